# The fork's entry points. `make check` is the test command of README.md.

.PHONY: check check-tools checkpatch kunit compare patches help

help:
	@echo "make check        tools checks, checkpatch, KUnit on the fork and on upstream's implementation"
	@echo "make kunit        ./tools/kunit run (the fork only)"
	@echo "make compare      ./tools/kunit compare (both variants, a table)"
	@echo "make checkpatch   the tree's checkpatch.pl --strict on kernel-overlay/ and patches/"
	@echo "make check-tools  shellcheck, mypy and unit tests of tools/"
	@echo "make patches      the fork as a patch series in out/patches"

# KUnit runs last: its closing line `kunit: N passed, N failed, N skipped`
# is the last line of the check.
check: check-tools checkpatch
	./tools/kunit compare

check-tools:
	./ci/check-tools

checkpatch:
	./ci/checkpatch

kunit:
	./tools/kunit run

compare:
	./tools/kunit compare

patches:
	./tools/kunit patches out/patches

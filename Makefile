# The fork's entry points. `make check` is the test command of README.md.

.PHONY: check check-tools checkpatch kunit compare guest coverage measure mutants patches uprobe help

help:
	@echo "make check        tools checks, checkpatch, KUnit and guest tests on the fork and on upstream's implementation"
	@echo "make guest        ./tools/vm compare (guest tests on both builds, a table)"
	@echo "make coverage     ./tools/coverage run (gcov of kernel-overlay/ under the tests, both builds)"
	@echo "make mutants      ./tools/mutate run --sample 40 (a fixed-seed sample of 40 mutants of each implementation file: hours)"
	@echo "make measure SECTION=NAME"
	@echo "                  ./tools/measure NAME (regenerate a section of MEASUREMENTS.md; without SECTION, list them)"
	@echo "make kunit        ./tools/kunit run (the fork only)"
	@echo "make compare      ./tools/kunit compare (both variants, a table)"
	@echo "make checkpatch   the tree's checkpatch.pl --strict on kernel-overlay/ and patches/"
	@echo "make check-tools  shellcheck, mypy and unit tests of tools/"
	@echo "make patches      the fork as a patch series in out/patches"
	@echo "make uprobe       build tools/uprobe's program (out/bin/uprobe; needs libelf-dev)"

# Every stage runs to its end (ci/check), and the last line sums the test
# runners: `check: N passed, N failed, N skipped`.
check:
	./ci/check

guest:
	./tools/vm compare

# Not part of check: coverage is measured, not asserted, and its builds
# and boots take tens of minutes (MEASUREMENTS.md).
coverage:
	./tools/coverage run

# Not part of check either: each section of MEASUREMENTS.md runs builds,
# boots or make check itself (./tools/measure --list).
measure:
	./tools/measure $(if $(SECTION),$(SECTION),--list)

# Not part of check either: every mutant is a build and a boot per suite
# run (./tools/mutate --help); the sample's seed is tools/mutate's fixed
# default, so the same overlay gives the same mutants.
mutants:
	./tools/mutate run --sample 40

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

uprobe: out/bin/uprobe

out/bin/uprobe: tools/src/uprobe.c
	@mkdir -p $(@D)
	@test -f /usr/include/gelf.h || { echo "tools/uprobe needs libelf-dev: apt-get install libelf-dev" >&2; exit 1; }
	$(CC) -O2 -g -Wall -Wextra -Werror -o $@ $< -lelf

"""Run the tree's kunit.py for one variant and judge the result.

A run fails on a failed, crashed or missing test, on a kernel that does
not configure or build, and on a console log holding a checker report
(see logscan), even when every test passed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import (AbstractSet, Any, Dict, FrozenSet, Iterable, List, Mapping, Optional,
                    Sequence, Tuple)

from . import logscan, tree
from .counts import Counts, total
from .marks import Mark, Marked
from .common import FORK, UPSTREAM_IMPL, ToolError, WorkArea, say, vcpus

# What the suites run at full size only when told (make check and the
# coverage boots do): otherwise the fuzz suites run a fiftieth of their
# strings (probe_fuzz, and uprobe_fetch's fetch_fuzz on the fork),
# probe_parse each rule on one probe kind, hhf_classify one of its three
# mixes without false negatives, skipping its 600,000-mice marked test,
# and pie_qdisc and fq_pie_qdisc the first of their differential runs.
FULL_PARAMS = ('trace_probe_fuzz_kunit.full=1', 'trace_uprobe.fuzz_full=1',
               'trace_probe_parse_kunit.full=1', 'sch_hhf_kunit.full=1',
               'sch_pie_qdisc_kunit.full=1')

# kunit.py's KernelCI statuses; a crash is reported as ERROR.
PASS, FAIL, SKIP, ERROR = 'PASS', 'FAIL', 'SKIP', 'ERROR'
_INCLUDE = re.compile(r'^#\s*include:\s*(\S+)\s*$')
# What kunit.py prints when QEMU outlives --timeout (and is stopped).
_TIMED_OUT = re.compile(r'timed out after \d+(\.\d+)? seconds')

# Fixed build identity: init/version.o and friends then hit the cache too.
BUILD_ENV = {
    'KBUILD_BUILD_TIMESTAMP': 'Thu Jan  1 00:00:00 UTC 2026',
    'KBUILD_BUILD_USER': 'kfork',
    'KBUILD_BUILD_HOST': 'kfork',
}


def kunitconfig_files(config: Path) -> List[Path]:
    """The kunitconfig and the fragments its "# include:" lines name."""
    if not config.is_file():
        raise ToolError(f'kunitconfig {config} does not exist')
    files = [config]
    for n, line in enumerate(config.read_text().splitlines(), 1):
        m = _INCLUDE.match(line)
        if not m:
            continue
        frag = (config.parent / m.group(1)).resolve()
        if not frag.is_file():
            raise ToolError(f'{config.name}:{n}: included fragment {m.group(1)} does not exist')
        files.append(frag)
    return files


def tagged(log: str, tag: str) -> Dict[str, str]:
    """Values suites print as 'TAG: KEY VALUE' lines, by KEY."""
    pattern = re.compile(rf'{re.escape(tag)}: (\S+) (\S+)\s*$')
    return {m.group(1): m.group(2) for m in map(pattern.search, log.splitlines()) if m}


def digests(log: str) -> Dict[str, str]:
    """Differential tests print 'kfork-diff: KEY VALUE': the same inputs
    must give the same VALUE on both builds."""
    return tagged(log, 'kfork-diff')


def compare_digests(by_variant: Mapping[str, Dict[str, str]]) -> Tuple[List[str], Counts]:
    """Lines for each key whose digest differs between the variants or
    is missing on one, and the keys as tests: passed when alike."""
    keys = sorted(set().union(*by_variant.values()))
    lines, same = [], 0
    for key in keys:
        values = {v: d.get(key, '(missing)') for v, d in by_variant.items()}
        if len(set(values.values())) == 1:
            same += 1
        else:
            cells = ', '.join(f'{v} {value}' for v, value in values.items())
            lines.append(f'kfork: differential {key} differs: {cells}')
    return lines, Counts(passed=same, failed=len(keys) - same)


_RESULT = re.compile(r'^(\s*)(ok|not ok) \d+ (?:- )?(.*?)(?:\s+#.*)?$')
_SUBTEST = re.compile(r'^(\s*)# Subtest: (\S+)')
_STAMP = re.compile(r'^\[[^\]]*\] ?')


def case_logs(log: str) -> Dict[str, str]:
    """The lines of a KTAP console log that came before each leaf's
    result line and after the previous result, by 'suite.test[.param]':
    where its failed expectations and messages are. A result belongs to
    the subtest opened at its own indent."""
    groups: Dict[int, str] = {}
    pending: List[str] = []
    out: Dict[str, str] = {}
    for raw in log.splitlines():
        line = _STAMP.sub('', raw)
        sub = _SUBTEST.match(line)
        result = _RESULT.match(line)
        if sub:
            depth = len(sub.group(1))
            groups = {d: n for d, n in groups.items() if d < depth}
            groups[depth] = sub.group(2)
        elif result and len(result.group(1)) in groups:
            depth = len(result.group(1))
            path = [groups[d] for d in sorted(groups) if d <= depth]
            out['.'.join([*path, result.group(3)])] = '\n'.join(pending)
            pending = []
            continue
        pending.append(line)
    return out


def cases_from_json(text: str) -> Dict[str, str]:
    """Leaf test cases of kunit.py's JSON as 'suite.test[.param]': status."""
    cases: Dict[str, str] = {}

    def walk(group: Dict[str, Any], prefix: str) -> None:
        for case in group.get('test_cases', []):
            cases[prefix + case['name']] = case['status']
        for sub in group.get('sub_groups', []):
            walk(sub, prefix + sub['name'] + '.')

    if text.strip():
        walk(json.loads(text), '')
    return cases


@dataclass
class Outcome:
    """What one variant's run amounts to."""

    variant: str
    cases: Dict[str, str] = field(default_factory=dict)
    marked: Marked = field(default_factory=lambda: Marked({}))
    reports: List[logscan.Report] = field(default_factory=list)
    error: str = ''
    # Digests printed by differential tests, by key (kfork-diff: lines).
    digests: Dict[str, str] = field(default_factory=dict)
    # Each case's lines of the console log (case_logs()).
    logs: Dict[str, str] = field(default_factory=dict)
    # Text the console log had to hold and did not (--expect-log).
    missing: List[str] = field(default_factory=list)
    # QEMU ran past kunit.py's --timeout and was stopped: the tests that
    # had not finished show as crashed, or there are none.
    timed_out: bool = False
    # KCSAN reports that do not fail the run (logscan.sort_races).
    races: List[logscan.Report] = field(default_factory=list)

    def _mark(self, case: str) -> Optional[Mark]:
        return self.marked.entry(case) if self.variant == UPSTREAM_IMPL else None

    def _expected_failure(self, case: str, status: str) -> bool:
        """A marked test failing on upstream as its entry says."""
        mark = self._mark(case)
        return bool(mark and status == FAIL and mark.shown_in(self.logs.get(case, '')))

    def _marked_but_passing(self, case: str, status: str) -> bool:
        """Passing on upstream: the test does not show the difference,
        unless it is a race that this run did not hit."""
        mark = self._mark(case)
        return bool(mark) and status == PASS and not (mark and mark.race)

    def _marked_failing_otherwise(self, case: str, status: str) -> bool:
        """A marked test that fails on upstream, but not as named: a
        crash, or another failure than its entry's."""
        return (bool(self._mark(case)) and status in (FAIL, ERROR)
                and not self._expected_failure(case, status))

    def case_counts(self, case: str, status: str) -> Counts:
        """One case as a test: a marked test failing on upstream as it
        should is skipped; one passing there, or failing otherwise,
        failed; a crash is ERROR."""
        if self._expected_failure(case, status):
            return Counts(skipped=1)
        if self._marked_but_passing(case, status) or self._marked_failing_otherwise(case, status):
            return Counts(failed=1)
        return Counts(passed=int(status == PASS), failed=int(status == FAIL),
                      skipped=int(status == SKIP), crashed=int(status == ERROR))

    @property
    def counts(self) -> Counts:
        # A kernel that did not build or boot ran nothing: that is a
        # failure, and so is each line the log had to hold and lacks.
        return (total(self.case_counts(c, s) for c, s in self.cases.items())
                + Counts(failed=int(bool(self.error)) + len(self.missing)))

    @property
    def ok(self) -> bool:
        return self.counts.ok and not self.reports

    def notes(self) -> List[str]:
        out = []
        for case, status in sorted(self.cases.items()):
            mark = self._mark(case)
            if mark and self._expected_failure(case, status):
                out.append(f'{case}: fails on the upstream implementation as marked, a '
                           f'{mark.kind}: {mark.named} ({mark.why})')
            elif mark and self._marked_but_passing(case, status):
                out.append(f'{case}: marked as project behaviour but passes on the '
                           f'upstream implementation: the test does not show the difference')
            elif mark and self._marked_failing_otherwise(case, status):
                how = 'crashes' if status == ERROR else 'fails'
                out.append(f'{case}: marked as project behaviour, but {how} on the upstream '
                           f'implementation without its named failure {mark.named}')
            elif status in (FAIL, ERROR):
                out.append(f'{case}: {"crashed" if status == ERROR else "failed"}')
        out += [f'the console log lacks "{text}"' for text in self.missing]
        return out


def missing_lines(log_path: Path, wanted: Sequence[str]) -> List[str]:
    """The texts of WANTED that the console log at LOG_PATH lacks (all
    of them if there is no log)."""
    log = log_path.read_text(errors='replace') if log_path.is_file() else ''
    return [text for text in wanted if text not in log]


def _cause(output: Sequence[str]) -> str:
    """One line naming why kunit.py produced no results."""
    if _timed_out(output):
        return 'the kernel did not finish the tests within --timeout and was stopped'
    for line in output:
        if 'Missing: ' in line:
            return ('kunitconfig options missing from the generated .config (unmet '
                    'dependencies?): ' + line.split('Missing: ', 1)[1].strip())
    for line in output:
        if re.search(r'(error|Error \d+):', line) and not line.startswith('$ '):
            return 'the kernel does not build: ' + line.strip()
    for line in output:
        if ('could not find any KTAP output' in line or 'no tests run' in line
                or 'Ran 0 tests' in line):
            return 'no test ran: no suite matched, or the kernel died before the tests'
    tail = [line for line in output if line.strip()]
    return tail[-1].strip() if tail else 'kunit.py failed without output'


def _timed_out(output: Sequence[str]) -> bool:
    return any(_TIMED_OUT.search(line) for line in output)


class BuildFailed(ToolError):
    """The kernel did not configure or build: the message says why."""


@dataclass(frozen=True)
class RunSpec:
    """Everything one kunit.py run needs."""

    tree: Path
    build_dir: Path
    kunitconfig: Path
    qemu_config: Path
    glob: str = ''
    jobs: int = os.cpu_count() or 1
    timeout: int = 600
    kernel_args: Sequence[str] = ()
    built: bool = False
    # More kunitconfig fragments after those of kunitconfig, and make
    # variables (X=Y) for every make kunit.py runs.
    fragments: Sequence[Path] = ()
    make_options: Sequence[str] = ()

    def argv(self, json_path: Optional[Path]) -> List[str]:
        """kunit.py run, or kunit.py build (configure and build only)
        when there is no JSON file to write, or kunit.py exec (boot the
        build as it is) when the kernel is already built."""
        verb = ('exec' if self.built else 'run') if json_path else 'build'
        argv = [sys.executable, str(self.tree / 'tools/testing/kunit/kunit.py'), verb,
                '--arch=x86_64', f'--build_dir={self.build_dir}',
                f'--qemu_config={self.qemu_config}', '--make_options=CC=ccache gcc']
        argv += [f'--make_options={o}' for o in self.make_options]
        if verb != 'exec':
            argv.append(f'--jobs={self.jobs}')
        argv += [f'--kunitconfig={f}'
                 for f in [*kunitconfig_files(self.kunitconfig), *self.fragments]]
        if json_path:
            argv += [f'--timeout={self.timeout}', f'--json={json_path}']
            argv += [f'--kernel_args={a}' for a in self.kernel_args]
            if self.glob:
                argv.append(self.glob)
        return argv

    def env(self, work: WorkArea) -> Dict[str, str]:
        return {**os.environ, **BUILD_ENV, 'CCACHE_DIR': str(work.ccache),
                'CCACHE_NOHASHDIR': '1',
                'CCACHE_MAXSIZE': os.environ.get('CCACHE_MAXSIZE', '20G')}


def _stream(argv: Sequence[str], cwd: Path, env: Dict[str, str],
            prefix: str = '') -> Tuple[int, List[str]]:
    """Run a command, echoing its lines (after PREFIX, which tells two
    runs at once apart); return its status and lines."""
    output: List[str] = []
    with subprocess.Popen(list(argv), cwd=cwd, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          errors='backslashreplace') as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(prefix + line)
            sys.stdout.flush()
            output.append(line.rstrip('\n'))
    return proc.returncode, output


# In a build folder: the key of the build it holds, written once that
# build is known to be whole (it booted, or kunit.py build succeeded).
BUILT_STAMP = '.kfork-built'


def build_key(spec: RunSpec) -> str:
    """What a build is of: the tree's checked-out content (tools sync it
    and refuse local edits), the kunitconfig with its fragments, and the
    make options."""
    head = subprocess.run(['git', '-C', str(spec.tree), 'rev-parse', 'HEAD^{tree}'],
                          capture_output=True, text=True, check=False).stdout.strip()
    if not head:
        raise ToolError(f'{spec.tree}: no checked-out commit to build')
    digest = hashlib.sha256(head.encode())
    for path in [*kunitconfig_files(spec.kunitconfig), *spec.fragments]:
        digest.update(path.read_bytes())
    for option in spec.make_options:
        digest.update(option.encode() + b'\0')
    return digest.hexdigest()


def _reuse_build(spec: RunSpec, variant: str) -> Tuple[RunSpec, str]:
    """SPEC marked built when its folder holds a whole build of what it
    would build, which saves make's walk of the tree (about 25 s);
    otherwise the old stamp goes, so a build stopped halfway is never
    taken for a whole one. Returns the spec and the key to stamp."""
    key = build_key(spec)
    stamp = spec.build_dir / BUILT_STAMP
    if spec.built:
        return spec, key
    image = spec.build_dir / 'arch/x86/boot/bzImage'
    if image.is_file() and stamp.is_file() and stamp.read_text().strip() == key:
        say(f'{variant}: nothing changed since the last build; booting it as it is')
        return dataclasses.replace(spec, built=True), key
    stamp.unlink(missing_ok=True)
    return spec, key


def _stamp_build(spec: RunSpec, key: str) -> None:
    (spec.build_dir / BUILT_STAMP).write_text(key + '\n')


# In a build folder: the root its modules are installed under
# (MODULES_ROOT/lib/modules/RELEASE), for the guests' modprobe (tools/vm).
MODULES_ROOT = 'modroot'


def modules_root(image: Path) -> Path:
    """Where the build whose bzImage is IMAGE installed its modules."""
    return image.parents[3] / MODULES_ROOT


def _install_modules(spec: RunSpec, work: WorkArea, variant: str, key: str) -> None:
    """make modules_install into the build folder, once per build: a
    guest's root is the host's, read-only, so its modprobe is pointed
    at this folder instead (guest-init)."""
    root = spec.build_dir / MODULES_ROOT
    stamp = root / BUILT_STAMP
    if stamp.is_file() and stamp.read_text().strip() == key:
        return
    shutil.rmtree(root, ignore_errors=True)
    say(f'{variant}: installing the modules in {root}')
    argv = ['make', 'ARCH=x86_64', f'O={spec.build_dir}', 'CC=ccache gcc',
            *spec.make_options, f'INSTALL_MOD_PATH={root}', 'modules_install']
    proc = subprocess.run(argv, cwd=spec.tree, env=spec.env(work), text=True,
                          capture_output=True, check=False)
    if proc.returncode != 0:
        raise ToolError(f'{variant}: make modules_install failed: '
                        f'{_cause(proc.stdout.splitlines() + proc.stderr.splitlines())}')
    stamp.write_text(key + '\n')


def build_kernel(spec: RunSpec, work: WorkArea, variant: str, modules: bool = True) -> Path:
    """Configure and build with kunit.py (nothing when the folder holds
    this build already) and, unless told otherwise, install its modules
    for the guests; return the bzImage, or raise BuildFailed with the
    cause."""
    spec.build_dir.mkdir(parents=True, exist_ok=True)
    spec, key = _reuse_build(spec, variant)
    image = spec.build_dir / 'arch/x86/boot/bzImage'
    if not spec.built:
        say(f'{variant}: kunit.py build in {spec.build_dir}')
        status, output = _stream(spec.argv(None), spec.tree, spec.env(work))
        if status != 0 or not image.is_file():
            raise BuildFailed(f'{variant}: {_cause(output)}')
        _stamp_build(spec, key)
    if modules:
        _install_modules(spec, work, variant, key)
    return image


def run_variant(spec: RunSpec, work: WorkArea, variant: str, marked: Marked,
                prefix: str = '') -> Outcome:
    """Run kunit.py, streaming its lines after PREFIX, and judge tests
    and console log."""
    spec.build_dir.mkdir(parents=True, exist_ok=True)
    builds = not spec.built
    spec, key = _reuse_build(spec, variant)
    json_path = spec.build_dir / 'results.json'
    log_path = spec.build_dir / 'test.log'
    for stale in (json_path, log_path):
        stale.unlink(missing_ok=True)
    say(f'{variant}: kunit.py {"exec" if spec.built else "run"} in {spec.build_dir}, '
        f'{vcpus()} vCPUs')
    status, output = _stream(spec.argv(json_path), spec.tree, spec.env(work), prefix)
    outcome = Outcome(variant, marked=marked, timed_out=_timed_out(output))
    if json_path.is_file():
        outcome.cases = cases_from_json(json_path.read_text())
    # It booted: the build is whole. A build the caller made and marked
    # built is stamped already, and the tree may hold another variant now.
    if outcome.cases and builds:
        _stamp_build(spec, key)
    if log_path.is_file():
        log = log_path.read_text(errors='replace')
        outcome.reports, outcome.races = judge_log(log, spec.build_dir, variant, marked)
        outcome.digests = digests(log)
        outcome.logs = case_logs(log)
    if not outcome.cases:
        outcome.error = _cause(output) if status else 'kunit.py ran no test'
    return outcome


def print_reports(reports: Iterable[logscan.Report], variant: str,
                  races: Iterable[logscan.Report] = ()) -> None:
    for report in reports:
        print(f'kfork: {variant}: {report.kind} report in the kernel log:')
        for line in report.lines:
            print(f'    {line}')
    for report in races:
        print(f'kfork: {variant}: listed, not failing (no kernel-overlay/ function, or a '
              f'finding of kunit/project-behaviour): {report.title}')


def overlay_functions(build_dir: Path) -> FrozenSet[str]:
    """The functions of the overlay's implementation files as built in
    BUILD_DIR (either variant's: the same files), from their objects."""
    names = set()
    for rel in tree.default_overlay().files(FORK):
        obj = build_dir / Path(rel).with_suffix('.o')
        if rel.endswith('.c') and obj.is_file():
            out = subprocess.run(['nm', '--defined-only', str(obj)], capture_output=True,
                                 text=True, check=False).stdout
            names |= {parts[2] for parts in map(str.split, out.splitlines())
                      if len(parts) == 3 and parts[1] in ('t', 'T')}
    return frozenset(names)


def judge_log(log: str, build_dir: Path, variant: str, marked: Marked
              ) -> Tuple[List[logscan.Report], List[logscan.Report]]:
    """The checker reports of a console log that fail the run, and the
    KCSAN reports only listed: races in no function of the overlay's
    files, and on upstream the races in its copies of them that
    kunit/project-behaviour names (kcsan.* entries)."""
    reports = logscan.scan(log)
    if not any(r.kind == logscan.KCSAN for r in reports):
        return reports, []
    own: AbstractSet[str] = overlay_functions(build_dir)
    findings = marked.kcsan_findings() if variant == UPSTREAM_IMPL else ()
    return logscan.sort_races(reports, own, findings)

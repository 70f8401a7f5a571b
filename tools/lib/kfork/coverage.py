"""Line, branch and function coverage of the overlay's files.

Each variant has a build of its own (build/VERSION/coverage-VARIANT):
the usual kunitconfig plus kunit/coverage.config, and gcov on the
overlay's .c files only, named on make's command line
(GCOV_PROFILE_<file>.o=y, which kbuild reads in every folder). One boot
per variant runs the KUnit suites before init and the guest suites
after it; tools/guest/coverage copies the counters after each phase:

  kunit      boot and the KUnit suites
  selftests  upstream's selftests alone (the counters reset first)
  guest      upstream's selftests and the project's guest suites

A second boot, without KUnit (whose suites would see the events such a
command line defines), runs the guest suites that name words for the
kernel's command line, with those words, as make check boots them:

  boot       that boot and those suites

gcovr turns a phase's counters, with the .gcno notes of the build, into
a tracefile; a test set adds up the tracefiles of its phases. Sources
are read from the tree, which must be on the variant's branch: that is
done once, by tools/coverage run, which keeps what it measured (a
Measured, as JSON in the run folder) for the report.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .common import ToolError, project_root, run
from .counts import Counts

PHASES = ('kunit', 'selftests', 'guest', 'boot')
# The phase of the second boot, whose guest leaves its counters in a
# folder of its own, BOOT_PHASE inside the run folder.
BOOT_PHASE = 'boot'
# What the table reports, and the phases each is the sum of.
TEST_SETS: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ('make check', ('kunit', 'guest', BOOT_PHASE)),
    ('KUnit', ('kunit',)),
    ('upstream selftests', ('selftests',)),
)
MAKE_CHECK = TEST_SETS[0][0]
# The coverage kernels: the debug kernels' fragments and checkers but
# for the sanitizers, with gcov (kunit/coverage.config says why).
KUNITCONFIG = project_root() / 'kunit' / 'coverage.kunitconfig'
# What coverage.config leaves out of debug.config.
SANITIZERS = ('CONFIG_KASAN', 'CONFIG_KASAN_GENERIC', 'CONFIG_UBSAN', 'CONFIG_UBSAN_BOUNDS',
              'CONFIG_UBSAN_SHIFT')
# The bar, for the make check set on the fork. Reported, not
# asserted: coverage is measured.
BAR = {'line': 90.0, 'branch': 80.0}
KINDS = ('line', 'branch', 'function')
PLURAL = {'line': 'lines', 'branch': 'branches', 'function': 'functions'}


def profiled_files(paths: Iterable[str]) -> List[str]:
    """The compiled files among the overlay's tree paths: gcov notes
    belong to objects; a header's lines count in the files that include it."""
    return sorted(p for p in paths if p.endswith('.c'))


def make_options(paths: Iterable[str]) -> List[str]:
    """GCOV_PROFILE_<file>.o=y for each compiled file, and nothing else:
    profiling the whole kernel would slow every test for no figure."""
    return sorted({f'GCOV_PROFILE_{PurePosixPath(p).stem}.o=y' for p in profiled_files(paths)})


def build_name(variant: str) -> str:
    return f'coverage-{variant}'


def snapshot_file(run_folder: Path, phase: str, build_dir: Path, path: str) -> Path:
    """Where tools/guest/coverage left a file's counters of one phase:
    debugfs names them after the object's absolute path in the build."""
    gcda = PurePosixPath(path).with_suffix('.gcda')
    return phase_folder(run_folder, phase) / str(build_dir).lstrip('/') / str(gcda)


def phase_folder(run_folder: Path, phase: str) -> Path:
    """Where a phase's counters are: the second boot's in its folder."""
    guest = run_folder / BOOT_PHASE if phase == BOOT_PHASE else run_folder
    return guest / 'gcov' / phase


@dataclass(frozen=True)
class Figures:
    """Executed and total lines, branches and functions of one file."""

    counts: Mapping[str, Tuple[int, int]]
    # Why a file has no figures (then every count is 0 of 0).
    reason: str = ''

    @classmethod
    def from_gcovr(cls, entry: Mapping[str, object]) -> 'Figures':
        def count(key: str) -> int:
            value = entry.get(key, 0)
            return value if isinstance(value, int) else 0
        return cls({k: (count(f'{k}_covered'), count(f'{k}_total')) for k in KINDS})

    @classmethod
    def missing(cls, reason: str) -> 'Figures':
        return cls({k: (0, 0) for k in KINDS}, reason)

    def percent(self, kind: str) -> float:
        done, total = self.counts[kind]
        return 100.0 * done / total if total else 0.0

    def cell(self, kind: str) -> str:
        done, total = self.counts[kind]
        if not total and self.reason:
            return '0% (no data)'
        return f'{done}/{total} {self.percent(kind):.1f}%'


def stage_phase(build_dir: Path, run_folder: Path, phase: str, paths: Sequence[str],
                stage: Path) -> Dict[str, str]:
    """Put each file's notes (.gcno, from the build) and counters (.gcda,
    from the phase's snapshot) side by side in stage, as gcov wants
    them; return why a file has none (a file with notes but no counters
    still counts, as never run)."""
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    reasons = {}
    for path in profiled_files(paths):
        notes = build_dir / PurePosixPath(path).with_suffix('.gcno')
        if not notes.is_file():
            reasons[path] = (f'not built with gcov: no {notes.name} in {build_dir} '
                             f'(is it compiled in this configuration?)')
            continue
        target = stage / PurePosixPath(path).parent
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(notes, target / notes.name)
        counters = snapshot_file(run_folder, phase, build_dir, path)
        if counters.is_file():
            shutil.copy(counters, target / counters.name)
        else:
            reasons[path] = 'no counters in the guest: its code never ran'
    return reasons


def _filters(src: Path, paths: Sequence[str]) -> List[str]:
    """gcovr matches an absolute filter against absolute paths."""
    out = []
    for path in paths:
        out += ['--filter', re.escape(str(src / path)) + '$']
    return out


def tracefile(src: Path, paths: Sequence[str], stage: Path, out: Path) -> None:
    """gcovr's JSON of one staged phase."""
    run(['gcovr', '--root', str(src), *_filters(src, paths), '--json', str(out), str(stage)])


def add_up(src: Path, paths: Sequence[str], tracefiles: Sequence[Path],
           html: Optional[Path] = None) -> Dict[str, Figures]:
    """Figures per tree path of the sum of the tracefiles, and the HTML
    report with the sources annotated when html names its index page."""
    adds: List[str] = []
    for trace in tracefiles:
        adds += ['--add-tracefile', str(trace)]
    argv = ['gcovr', '--root', str(src), *_filters(src, paths), *adds, '--json-summary']
    summary = json.loads(run(argv).stdout)
    if html is not None:
        html.parent.mkdir(parents=True, exist_ok=True)
        run(['gcovr', '--root', str(src), *_filters(src, paths), *adds,
             '--html-details', str(html)])
    return {str(f['filename']): Figures.from_gcovr(f) for f in summary.get('files', [])}


@dataclass
class VariantData:
    """What one variant's boot left: the phases it reached and the
    figures of each test set by tree path."""

    variant: str
    reached: List[str]
    sets: Dict[str, Dict[str, Figures]]


def data_folder(out: Path, variant: str) -> Path:
    """Where measure() leaves a variant's tracefiles, PHASE.json each."""
    return out / 'data' / variant


def line_counts(folder: Path) -> Optional[Dict[str, Dict[int, int]]]:
    """Executions of each line gcov counts as code, by tree path and
    line, added up over the tracefiles of every phase in folder (what
    measure() wrote there); None when there is none. A line some phase
    ran counts as run."""
    found = [folder / f'{phase}.json' for phase in PHASES if (folder / f'{phase}.json').is_file()]
    if not found:
        return None
    counts: Dict[str, Dict[int, int]] = {}
    for trace in found:
        try:
            files = json.loads(trace.read_text())['files']
            for entry in files:
                lines = counts.setdefault(str(entry['file']), {})
                for line in entry['lines']:
                    if not line.get('gcovr/noncode', False):
                        number = int(line['line_number'])
                        lines[number] = lines.get(number, 0) + int(line['count'])
        except (KeyError, TypeError, ValueError) as err:
            raise ToolError(f'{trace}: not a gcovr JSON tracefile ({err!r}): '
                            f'run make coverage again') from err
    return counts


def measure(variant: str, src: Path, build_dir: Path, run_folder: Path, paths: Sequence[str],
            out: Path) -> VariantData:
    """Stage, trace and add up every test set of one variant; the HTML
    report of make check goes to out/html/VARIANT/index.html."""
    data_dir = data_folder(out, variant)
    reached = [p for p in PHASES if phase_folder(run_folder, p).is_dir()]
    traces: Dict[str, Path] = {}
    reasons: Dict[str, Dict[str, str]] = {}
    for phase in reached:
        stage = data_dir / phase
        reasons[phase] = stage_phase(build_dir, run_folder, phase, paths, stage)
        traces[phase] = data_dir / f'{phase}.json'
        tracefile(src, paths, stage, traces[phase])
    sets: Dict[str, Dict[str, Figures]] = {}
    for name, phases in TEST_SETS:
        missing = [p for p in phases if p not in reached]
        if missing:
            why = f'the guest never reached the {missing[0]} phase'
            sets[name] = {p: Figures.missing(why) for p in paths}
            continue
        html = out / 'html' / variant / 'index.html' if name == MAKE_CHECK else None
        found = add_up(src, paths, [traces[p] for p in phases], html)
        sets[name] = {}
        for path in paths:
            why = next((reasons[p][path] for p in phases if path in reasons[p]), '')
            if path in found:
                # Notes without counters still give the totals, all unexecuted.
                sets[name][path] = dataclasses.replace(found[path], reason=why)
            else:
                sets[name][path] = Figures.missing(why or 'no profiled file includes it')
    return VariantData(variant, reached, sets)


# What tools/coverage run keeps in each variant's run folder.
MEASURED = 'measured.json'


@dataclass(frozen=True)
class Measured:
    """What tools/coverage run measured of one variant, for the report:
    the files, their figures, the tests' counts (KUnit None when the
    guest never reached init and left no log) and the HTML report."""

    data: VariantData
    paths: Tuple[str, ...]
    kunit: Optional[Counts]
    guest: Counts
    html: Path

    def to_json(self) -> str:
        sets = {name: {path: {'counts': {k: list(f.counts[k]) for k in KINDS},
                              'reason': f.reason}
                       for path, f in files.items()}
                for name, files in self.data.sets.items()}
        return json.dumps({'variant': self.data.variant, 'reached': self.data.reached,
                           'sets': sets, 'paths': list(self.paths),
                           'kunit': self.kunit.to_dict() if self.kunit else None,
                           'guest': self.guest.to_dict(), 'html': str(self.html)},
                          indent=1) + '\n'

    @classmethod
    def from_json(cls, text: str) -> 'Measured':
        """The inverse of to_json; ValueError on anything else."""
        try:
            raw: Any = json.loads(text)
            sets = {str(name): {str(path): Figures(
                        {k: (int(f['counts'][k][0]), int(f['counts'][k][1])) for k in KINDS},
                        str(f['reason'])) for path, f in files.items()}
                    for name, files in raw['sets'].items()}
            data = VariantData(str(raw['variant']), [str(p) for p in raw['reached']], sets)
            kunit = None if raw['kunit'] is None else Counts.from_dict(raw['kunit'])
            measured = cls(data, tuple(str(p) for p in raw['paths']), kunit,
                           Counts.from_dict(raw['guest']), Path(raw['html']))
        except (KeyError, TypeError, IndexError, AttributeError) as err:
            raise ValueError(f'not a measured coverage run: {err!r}') from err
        if any(set(files) != set(measured.paths) for files in sets.values()):
            raise ValueError('not a measured coverage run: figures of other files')
        return measured


# The report's figures as JSON, beside coverage.md: variant -> test set
# -> tree path -> kind -> [executed, total]. tools/measure reads it.
SUMMARY = 'coverage.json'

Summary = Dict[str, Dict[str, Dict[str, Figures]]]


def summary_json(data: Sequence[VariantData]) -> str:
    return json.dumps({d.variant: {name: {p: {k: list(f.counts[k]) for k in KINDS}
                                          for p, f in files.items()}
                                   for name, files in d.sets.items()} for d in data},
                      indent=1) + '\n'


def read_summary(text: str) -> Summary:
    """The inverse of summary_json (without the reasons); ValueError on
    anything else."""
    try:
        raw: Any = json.loads(text)
        return {str(variant): {str(name): {str(path): Figures(
                    {k: (int(counts[k][0]), int(counts[k][1])) for k in KINDS})
                    for path, counts in files.items()}
                for name, files in sets.items()}
                for variant, sets in raw.items()}
    except (KeyError, TypeError, IndexError, AttributeError) as err:
        raise ValueError(f'not a coverage summary: {err!r}') from err


def table(data: Sequence[VariantData], paths: Sequence[str]) -> List[str]:
    """A Markdown table: a row per file and test set, a column per
    variant and kind; then a line for each file without data."""
    head = ['file', 'tests'] + [f'{d.variant} {PLURAL[k]}' for d in data for k in KINDS]
    lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    notes = []
    for path in paths:
        for name, _ in TEST_SETS:
            cells = [path, name]
            for d in data:
                figures = d.sets[name][path]
                cells += [figures.cell(k) for k in KINDS]
                if figures.reason:
                    notes.append(f'{d.variant}: {path} under {name}: {figures.reason}')
            lines.append('| ' + ' | '.join(cells) + ' |')
    return lines + [f'no data: {n}' for n in notes]


def below_bar(data: VariantData, paths: Sequence[str]) -> List[str]:
    """Files whose make check figures miss the bar on this variant."""
    out = []
    for path in paths:
        figures = data.sets[MAKE_CHECK][path]
        short = [f'{PLURAL[k]} {figures.percent(k):.1f}% < {BAR[k]:.0f}%'
                 for k in BAR if figures.percent(k) < BAR[k]]
        if short:
            out.append(f'{path}: {", ".join(short)}')
    return out

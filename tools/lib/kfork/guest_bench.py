"""tools/vm bench's guest side: the cost of one uprobe hit.

Runs inside a tools/vm guest (python3 -m kfork.guest_bench). Compiles
tools/guest/uprobe/bench.c, finds kb_hit's file offset in its ELF, and
times the program's loop of kb_hit calls without a probe and with a
uprobe event on kb_hit: with no arguments, with six (a sign-extended
register, a dereference, a chain to a string, a bitfield, a string
argument, a short) and with the same six through $arg1..$arg6. 6.1 has
no $argN on uprobes, so on the upstream build that figure reads the
same registers by name: what a user of either build writes to get
those values. Prints 'kfork-bench: KEY VALUE' lines, in nanoseconds
per call; a hit's figure is the probed loop's time less the bare one's,
and a fetch's the hit with arguments less the hit without.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import guest_uprobe as up
from .common import is_fork, project_root

SOURCE = project_root() / 'tools' / 'guest' / 'uprobe' / 'bench.c'
GROUP = 'kfork_bench'

# kb_hit(long a, struct kb_rec *rec, const char *s, long d, long e, long f)
SIX_ARGS = ('a=%di:s64 id=+0(%si):s64 name=+0(+8(%si)):string bits=+16(%si):b7@4/32 '
            's=+0(%dx):string f=%r9:u16')
SIX_ARGN = ('a=$arg1:s64 id=+0($arg2):s64 name=+0(+8($arg2)):string '
            'bits=+16($arg2):b7@4/32 s=+0($arg3):string f=$arg6:u16')


def probes(fork: bool) -> Dict[str, str]:
    """Each figure's probe arguments."""
    return {'uprobe.hit_ns': '',
            'uprobe.hit_6args_ns': SIX_ARGS,
            'uprobe.hit_6argN_ns': SIX_ARGN if fork else SIX_ARGS}


def build(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / 'kb_bench'
    subprocess.run(['gcc', '-O1', '-no-pie', '-o', str(binary), str(SOURCE)], check=True)
    return binary


def hit_offset(binary: Path) -> int:
    def tool(*argv: str) -> str:
        return subprocess.run(argv, check=True, capture_output=True, text=True).stdout

    vaddr = up.parse_nm(tool('nm', str(binary)))['kb_hit']
    return vaddr - up.segment_of(up.parse_segments(tool('readelf', '-lW', str(binary))),
                                 vaddr).bias


def time_loop(binary: Path, calls: int, rounds: int) -> float:
    """The best round's nanoseconds per call."""
    out = subprocess.run([str(binary), str(calls), str(rounds)], check=True,
                         capture_output=True, text=True).stdout
    return float(out)


def measure(binary: Path, calls: int, rounds: int, fork: bool) -> Dict[str, float]:
    trace = up.tracefs()
    events = trace / 'uprobe_events'
    place = f'{binary}:{hit_offset(binary):#x}'
    figures = {}
    bare: List[float] = []
    for key, args in probes(fork).items():
        err = up.write(events, f'p:{GROUP}/kb_hit {place} {args}'.rstrip())
        if err:
            raise ValueError(f'{key}: the probe was refused: {err}')
        enable = trace / 'events' / GROUP / 'kb_hit' / 'enable'
        bare.append(time_loop(binary, calls, rounds))
        up.write(enable, '1', append=False)
        probed = time_loop(binary, calls, rounds)
        up.write(enable, '0', append=False)
        up.write(events, f'-:{GROUP}/kb_hit')
        up.write(trace / 'trace', '', append=False)
        figures[key] = probed - bare[-1]
    figures['uprobe.loop_ns'] = min(bare)
    # what the arguments add to a hit: the event's own work, without the
    # trap and single-step that the uprobes core spends on every hit
    for key in ('6args', '6argN'):
        figures[f'uprobe.fetch_{key}_ns'] = (figures[f'uprobe.hit_{key}_ns']
                                             - figures['uprobe.hit_ns'])
    return figures


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog='python3 -m kfork.guest_bench',
                                     description=__doc__.split('\n\n')[0])
    parser.add_argument('--calls', type=int, default=2000, help='calls per round')
    parser.add_argument('--rounds', type=int, default=5, help='rounds; the best one counts')
    parser.add_argument('folder', nargs='?', type=Path, default=Path('/tmp/kfork-bench'))
    args = parser.parse_args(argv)
    try:
        figures = measure(build(args.folder), args.calls, args.rounds, is_fork())
    except (OSError, ValueError, subprocess.CalledProcessError) as err:
        print(f'guest_bench: {err}', file=sys.stderr)
        return 1
    for key, value in sorted(figures.items()):
        print(f'kfork-bench: {key} {value:.1f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())

"""Steps repeated by several processes at once, for the guest's stress
suites (guest_probestress, guest_qdiscstress): each process counts how
its steps ended, and the suite checks that each ended only in ways it
may (a removal of a busy event: EBUSY)."""

from __future__ import annotations

import errno
import multiprocessing
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Set

from .tap import Tap

OK = 'ok'


def command(path: Path, text: str, append: bool = True) -> str:
    """One write(2) of TEXT, as `echo TEXT >> PATH`: OK or the name of
    the kernel's error (EBUSY)."""
    try:
        fd = os.open(path, os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC))
        try:
            os.write(fd, (text + '\n').encode())
        finally:
            os.close(fd)
        return OK
    except OSError as err:
        return errno.errorcode.get(err.errno or 0, str(err))


@dataclass
class Churn:
    """What a churning process did: how often each step ended each way."""

    name: str
    allowed: Set[str]
    outcomes: Dict[str, int] = field(default_factory=dict)

    def add(self, step: str, outcome: str) -> None:
        key = f'{step}: {outcome}'
        self.outcomes[key] = self.outcomes.get(key, 0) + 1

    @property
    def unexpected(self) -> Dict[str, int]:
        return {k: n for k, n in self.outcomes.items() if k not in self.allowed}


# A churning process: steps until the deadline (time.monotonic()).
Job = Callable[[float], Churn]


def _child(queue: 'multiprocessing.Queue[Churn]', name: str, job: Job,
           seconds: float) -> None:
    # the deadline counts from the process's own start: on a slow kernel
    # (KCSAN, kmemleak) a fork can take longer than a short phase
    try:
        queue.put(job(time.monotonic() + seconds))
    except Exception as err:   # reported as the job's outcome
        churn = Churn(name, set())
        churn.add('raised', repr(err))
        queue.put(churn)


def run_jobs(jobs: Dict[str, Job], seconds: float,
             started: Callable[[], None] = lambda: None) -> List[Churn]:
    """JOBS, each in a process of its own (forked: Linux's default), for
    SECONDS from its start; STARTED runs once they all have been started."""
    queue: 'multiprocessing.Queue[Churn]' = multiprocessing.Queue()
    processes = [multiprocessing.Process(target=_child, args=(queue, name, job, seconds))
                 for name, job in jobs.items()]
    for process in processes:
        process.start()
    started()
    churns = [queue.get(timeout=seconds + 300) for _ in processes]
    for process in processes:
        process.join()
    return churns


def check_churns(tap: Tap, what: str, churns: Sequence[Churn]) -> None:
    for churn in sorted(churns, key=lambda c: c.name):
        steps = sum(churn.outcomes.values())
        tap.check(steps > 0 and not churn.unexpected,
                  f'{what}: {churn.name}: every step ends as it may',
                  f'{steps} steps; unexpected: {churn.unexpected}; all: {churn.outcomes}')


def program(argv: Sequence[str]) -> str:
    """Run ARGV: OK, or its status and first line of error output."""
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode == 0:
        return OK
    first = (done.stderr.strip().splitlines() or [''])[0]
    return f'status {done.returncode}: {first}'

"""Runs of the store's first open or upgrade in a child process, killed at chosen moments.

Shared by the kill tests (one file each, so a parallel run gives each its own worker).
Each kill lands in its own slice of the time a whole run takes (stratified, with the
moment within the slice random), so every part of the run gets a kill.

Every run is a real process killed with SIGKILL, but the imports (0.7 s of CPU each,
most of a first run's cost) are paid once: a parent process imports the store and then
forks one child per run, which starts its database work at once. The kill lands only in
that work, as before, and the parent reaps each child and reports how it ended.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

TRIALS = 24
# imports once; then, for each URL read, a forked child opens it while the parent reports
# the child's pid, then how it ended (the exit code, or minus the signal that killed it)
FORK_PER_URL = """\
import os, sys, traceback
import alembic.command
from studyapp.store import open_store
import studyapp.store.backup
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            open_store(line.strip()).close()
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stderr.flush()
        os._exit(code)
    print(pid, flush=True)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""


class Runs:
    """Starts runs of ``open_store`` as forked children of one process that has imported it."""

    def __init__(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[2]))
        self._parent = subprocess.Popen([sys.executable, "-c", FORK_PER_URL], env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)

    def _start(self, url: str) -> int:
        """The pid of a child that has just begun opening ``url``."""
        assert self._parent.stdin is not None and self._parent.stdout is not None
        self._parent.stdin.write(url + "\n")
        self._parent.stdin.flush()
        return int(self._parent.stdout.readline())

    def _ended(self) -> int:
        """The last child's exit code (negative: the signal that killed it)."""
        assert self._parent.stdout is not None
        return int(self._parent.stdout.readline())

    def timed_run(self, url: str) -> float:
        """Seconds the database work of a whole run takes (imports excluded)."""
        self._start(url)
        start = time.monotonic()
        code = self._ended()
        assert code == 0, f"a whole run failed with {code}"
        return time.monotonic() - start

    def kill_after(self, url: str, delay: float) -> None:
        """A run killed with SIGKILL ``delay`` seconds into its database work."""
        pid = self._start(url)
        time.sleep(delay)
        with suppress(ProcessLookupError):  # it finished first: a kill after the end
            os.kill(pid, signal.SIGKILL)
        self._ended()

    def close(self) -> None:
        assert self._parent.stdin is not None
        self._parent.stdin.close()
        assert self._parent.wait(timeout=60) == 0


@contextmanager
def forked_runs() -> Iterator[Runs]:
    """Runs whose parent process is ended when the test is."""
    runs = Runs()
    try:
        yield runs
    finally:
        runs.close()


def kill_moments(whole: float, seed: int, trials: int = TRIALS) -> list[float]:
    """One moment in each of ``trials`` equal slices of ``whole`` seconds, in random order."""
    rng = random.Random(seed)
    moments = [whole * (i + rng.random()) / trials for i in range(trials)]
    rng.shuffle(moments)
    return moments

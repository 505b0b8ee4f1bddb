"""Runs of the store's first open or upgrade in a child process, killed at chosen moments.

Shared by the kill tests (one file each, so a parallel run gives each its own worker).
Each kill lands in its own slice of the time a whole run takes (stratified, with the
moment within the slice random), so every part of the run gets a kill.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

TRIALS = 24
# imports first, then "ready", then the work the kill should land in
OPEN = ("import sys; import alembic.command; from studyapp.store import open_store; "
        "import studyapp.store.backup; print('ready', flush=True); "
        "open_store(sys.argv[1]).close()")


def _run(url: str) -> subprocess.Popen[bytes]:
    """The process, once its imports are done and its database work begins."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[2]))
    proc = subprocess.Popen([sys.executable, "-c", OPEN, url], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    return proc


def timed_run(url: str) -> float:
    """Seconds the database work of a whole run takes (imports excluded)."""
    proc = _run(url)
    start = time.monotonic()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    return time.monotonic() - start


def kill_after(url: str, delay: float) -> None:
    """A run killed with SIGKILL ``delay`` seconds into its database work."""
    proc = _run(url)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)


def kill_moments(whole: float, seed: int, trials: int = TRIALS) -> list[float]:
    """One moment in each of ``trials`` equal slices of ``whole`` seconds, in random order."""
    rng = random.Random(seed)
    moments = [whole * (i + rng.random()) / trials for i in range(trials)]
    rng.shuffle(moments)
    return moments

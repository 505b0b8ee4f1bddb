"""The processes of a ``studyapp serve`` under test: its app children, and Ctrl+C to end it.

Shared by the loopback tests and the browser tests (a module, not a test file, so that
importing it never brings in Playwright).
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any


def child_pids(parent: int) -> set[int]:
    """The live (not zombie) processes whose parent is ``parent``, as /proc lists them."""
    pids = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            pids.add(int(stat.parent.name))
    return pids


def interrupt(process: subprocess.Popen[Any], timeout: float) -> None:
    """Ctrl+C, as a user stops the server; killed if still running after ``timeout`` s."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

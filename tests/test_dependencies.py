"""Every third-party package studyapp imports is declared in pyproject.toml.

A package that arrives only through another one (rich through Textual,
aiohttp through textual-serve) can vanish or change under us when that one
moves; deptry reads the imports and the declared ranges and says so.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_import_is_declared() -> None:
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("needs the repository's pyproject.toml")
    done = subprocess.run([sys.executable, "-m", "deptry", "."], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout + done.stderr

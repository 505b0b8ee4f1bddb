"""Several processes opening a new database at once: one migrates, all succeed."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

OPEN = ("import sys; from studyapp.store import open_store; "
        "s = open_store(sys.argv[1]); s.close(); print('opened')")


def test_six_processes_open_a_new_database_at_once(tmp_path: Path) -> None:
    db = tmp_path / "class.sqlite3"
    procs = [subprocess.Popen([sys.executable, "-c", OPEN, f"sqlite:///{db}"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(6)]
    results = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
        assert out.strip() == "opened"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM alembic_version").fetchone() == (1,)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)

"""A first run killed at any moment leaves a database that opens.

Each trial starts a process that creates a database, kills it with SIGKILL at
a moment within the time a whole run takes (``kill_runs``), then opens the
database again: it must open at the newest schema.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from kill_runs import forked_runs, kill_moments

from studyapp.store import HEAD, open_store
from studyapp.store.database import current_revision


@pytest.mark.slow
def test_first_run_killed_at_random_points_opens_afterwards(tmp_path: Path) -> None:
    with forked_runs() as runs:
        whole = runs.timed_run(f"sqlite:///{tmp_path / 'timing.sqlite3'}")
        for trial, moment in enumerate(kill_moments(whole, seed=13)):
            folder = tmp_path / f"t{trial}"
            folder.mkdir()
            url = f"sqlite:///{folder / 'studyapp.sqlite3'}"
            runs.kill_after(url, moment)
            store = open_store(url)
            try:
                assert current_revision(store.engine) == HEAD, trial
            finally:
                store.close()
            shutil.rmtree(folder)

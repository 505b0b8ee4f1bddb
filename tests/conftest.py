"""Shared test set-up: every test gets its own user folder.

Benchmarks in tests/perf run only when asked for (``python -m pytest tests/perf``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

PERF = Path(__file__).parent / "perf"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip tests/perf unless a command-line argument points into it."""
    if collection_path == PERF or PERF in collection_path.parents:
        asked = [Path(a.split("::")[0]).resolve() for a in config.args]
        if not any(a == PERF or PERF in a.parents for a in asked):
            return True
    return None


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> Path:
    """STUDYAPP_HOME in a temporary folder; no stray STUDYAPP_DB or profile."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("STUDYAPP_HOME", str(home))
    monkeypatch.delenv("STUDYAPP_DB", raising=False)
    monkeypatch.delenv("STUDYAPP_PROFILE", raising=False)
    return home

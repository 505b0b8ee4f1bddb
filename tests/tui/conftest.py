"""Fixtures for the terminal app: a temporary database, a fixed clock and seed.

The user folder (STUDYAPP_HOME) is already temporary for every test
(tests/conftest.py); here each app also gets its own SQLite file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import progress_history
import pytest
from tui_helpers import SEED, fixed_clock

from studyapp.config import Settings
from studyapp.tui.app import StudyApp, make_app


@pytest.fixture(scope="session", autouse=True)
def shared_histories(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """In a parallel run, the workers share the study histories they make: the run's
    temporary folder (one per run, so never a history from older code) holds them."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        progress_history.SHARED = tmp_path_factory.getbasetemp().parent / "study-histories"
    yield
    progress_history.SHARED = None


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "study.sqlite3"


@pytest.fixture
def app_factory(db_path: Path) -> Callable[..., StudyApp]:
    """``app_factory(lang="es", study={...})``: the real app on a temporary database."""

    def build(lang: str = "en", **kwargs: Any) -> StudyApp:
        settings = Settings(db_url=f"sqlite:///{db_path}", profile="default", lang=lang)
        kwargs.setdefault("clock", fixed_clock)
        kwargs.setdefault("seed", SEED)
        # a still stopwatch: the time an answer took (and the summary's time studied) does
        # not depend on how busy the machine is
        kwargs.setdefault("stopwatch", lambda: 0.0)
        app = make_app(settings, **kwargs)
        # scrolls jump instead of gliding: each glide draws a frame every 1/60 s, and the
        # tests read where a pane lands, not the frames on the way
        app.animation_level = "none"
        return app

    return build

"""The core never imports Textual, and the app's first screen never waits for the core.

Each import runs in a fresh interpreter and looks at ``sys.modules`` (the
check harlequin uses): a lazy import that becomes eager shows up here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def modules_after(statement: str) -> set[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.mark.parametrize("module", [
    "studyapp.study", "studyapp.cli", "studyapp.plain", "studyapp.catalog", "studyapp.infra",
    "studyapp.questions", "studyapp.decks", "studyapp.srs", "studyapp.store",
])
def test_core_does_not_import_textual(module: str) -> None:
    assert "textual" not in top_level(modules_after(f"import {module}"))


def test_app_starts_without_the_heavy_core() -> None:
    """The home screen paints before SQLAlchemy, pydantic, fsrs or the decks load."""
    loaded = modules_after("import studyapp.cli, studyapp.tui.app\n"
                           "from studyapp.tui.screens.home import HomeScreen")
    heavy = {"sqlalchemy", "pydantic", "fsrs", "alembic", "simpleeval"}
    assert not heavy & top_level(loaded)
    assert not {"studyapp.study", "studyapp.decks", "studyapp.catalog"} & loaded


def test_only_the_store_imports_sqlalchemy() -> None:
    """Storage stays behind studyapp.store: no other module names SQLAlchemy."""
    import re
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "studyapp"
    pattern = re.compile(r"^\s*(from|import)\s+sqlalchemy\b", re.MULTILINE)
    offenders = [str(path.relative_to(package)) for path in package.rglob("*.py")
                 if "store" not in path.relative_to(package).parts[:1]
                 and pattern.search(path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_study_service_loads_no_database_code_until_used() -> None:
    assert "sqlalchemy" not in top_level(modules_after("import studyapp.study"))

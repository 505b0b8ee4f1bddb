"""The layering holds, nothing imports in a circle, the core never imports Textual,
and the app's first screen never waits for the core.

The layers are import-linter contracts in pyproject.toml. The start-up checks
run each import in a fresh interpreter and look at ``sys.modules`` (the check
harlequin uses): a lazy import that becomes eager shows up here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent


def modules_after(statement: str) -> set[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.mark.parametrize("module", [
    "studyapp.study", "studyapp.cli", "studyapp.plain", "studyapp.catalog", "studyapp.infra",
    "studyapp.questions", "studyapp.decks", "studyapp.srs", "studyapp.store", "studyapp.config",
    "studyapp.progress", "studyapp.classroom",
])
def test_core_does_not_import_textual(module: str) -> None:
    assert "textual" not in top_level(modules_after(f"import {module}"))


def test_import_contracts_hold() -> None:
    """Faces > services > decks > questions > infra > catalog, and the rest of pyproject's."""
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True,
                        no_logo=True)
    assert code == 0, "an import breaks a contract in pyproject.toml (run lint-imports)"


def import_cycles(package: str) -> list[list[str]]:
    """Groups of modules that import each other, for type annotations too (Tarjan's algorithm)."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=False, cache_dir=None)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return cycles


def test_no_import_cycles() -> None:
    """Deferred imports count: a cycle hidden inside a function is still a cycle, and so
    does one through imports for type annotations only (a Protocol breaks those)."""
    assert import_cycles("studyapp") == []


def test_app_starts_without_the_heavy_core() -> None:
    """The home screen paints before SQLAlchemy, pydantic, fsrs, the decks or the catalog's
    tables load (it reads the posts' front matter only)."""
    loaded = modules_after("import studyapp.cli, studyapp.tui.app\n"
                           "from studyapp.tui.screens.home import HomeScreen")
    heavy = {"sqlalchemy", "pydantic", "fsrs", "alembic", "simpleeval"}
    assert not heavy & top_level(loaded)
    assert not {"studyapp.study", "studyapp.decks", "studyapp.catalog.loader",
                "studyapp.catalog.models"} & loaded


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

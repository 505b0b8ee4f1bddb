"""Imports sit at the top of a module; one waits inside a function only for a reason.

The reasons are start-up costs measured with ``python -X importtime -c "import X"`` (on the
2-core development machine, shared): the command line imports a command's module only
when it runs (``cli.COMMANDS``), the terminal app paints its home screen before it loads
decks, and neither pays for SQLAlchemy, Textual or the generator families before it needs
them. Every import inside a function is of a module in ``DEFERRED`` (with why) or listed in
``NOT_YET_HOISTED``; ``MOST`` caps how many there are, so a new one comes with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import studyapp

PACKAGE = Path(studyapp.__file__).parent

DEFERRED: dict[str, str] = {
    "studyapp.store": "SQLAlchemy: studyapp.store.database costs 1.7 s; commands and screens "
                      "that never open the database never pay it",
    "sqlalchemy": "1.1 s, as studyapp.store",
    "alembic": "1.9 s, only when a database is created or migrated",
    "psycopg": "the PostgreSQL driver, only for a PostgreSQL URL",
    "fcntl": "POSIX only: the lock falls back where the module does not exist",
    "studyapp.study": "the study service costs 1.5 s (decks, families, the store)",
    "studyapp.decks": "loading decks costs 1.2 s (YAML, pydantic, formulas): the home screen "
                      "and `--help` come first",
    "studyapp.questions": "the generator families cost 1.3 s; the calculator and the "
                          "catalog commands run without them",
    "studyapp.catalog": "pydantic costs 0.25 s and the catalog's YAML more; modules the "
                        "catalog itself imports reach it only when they draw (no cycle)",
    "studyapp.progress": "stats and exports: 2.7 s with the store, only where shown",
    "studyapp.classroom": "the class report and deck versions: the store and the decks, only "
                          "for the class commands and screen",
    "studyapp.anki": "genanki (0.3 s) and zstandard: only for Anki import and export",
    "studyapp.tuning": "the FSRS optimizer's service, only when tuning",
    "studyapp.browse": "the card browser's service (the study service beneath it)",
    "studyapp.cardsearch": "the browser's query language, only when searching",
    "studyapp.plain": "`study --plain`: the study service, 1.6 s, only for that command",
    "studyapp.cli": "a command's module is imported when the command runs (cli.COMMANDS)",
    "studyapp.tui": "Textual screens open on first use (tui.registry), so the home screen "
                    "paints first",
    "textual": "textual.app costs 0.2 s, more with its widgets; the command line never needs it",
    "rich": "rich.console costs 0.17 s; only the commands that print a table",
    "markdown_it": "0.08 s, only for the post reader's Markdown",
    "platformdirs": "0.06 s, only when no STUDYAPP_HOME says where the user's files go",
    "plotext": "the terminal charts' drawing, only for --plot",
    "yaml": "PyYAML costs 10 ms of the app's start, whose strings and post headings come "
            "from their JSON copy (studyapp.content_cache)",
    "importlib.metadata": "9 ms of the app's start (email, zipfile): only to name the "
                          "installed versions in a failure",
    "textual_plotext": "textual-plotext's figure (Textual beneath it), only for --plot",
}
"""Imported module (or package) -> why it waits for first use."""

NOT_YET_HOISTED: dict[tuple[str, str], str] = {
    # light imports left inside functions of modules other work is changing now: each goes
    # to the top of its module when that work has landed; the list is meant to end empty
    ("studyapp/classroom/items.py", "studyapp.numbers"): "classroom",
    **{("studyapp/classroom/publishing.py", m): "classroom"
       for m in ("studyapp.i18n", "studyapp.text", "difflib", "json", "studyapp.locations",
                 "contextlib", "studyapp.files")},
    ("studyapp/cli/calc.py", "studyapp.i18n"): "calc output",
    ("studyapp/cli/calc_inputs.py", "pathlib"): "calc output",
    ("studyapp/cli/calc_inputs.py", "studyapp.i18n"): "calc output",
    ("studyapp/questions/generators/families/scenario_kit.py", "dataclasses"): "families",
    ("studyapp/questions/generators/families/scenarios.py", "dataclasses"): "families",
    ("studyapp/tui/screens/calculator.py", "studyapp.infra.shapes"): "screens",
    ("studyapp/tui/screens/post_cards.py", "studyapp.i18n"): "screens",
    ("studyapp/tui/screens/post_cards.py", "dataclasses"): "screens",
    ("studyapp/tui/screens/progress.py", "datetime"): "screens",
    # an error's message in the learner's language: PyYAML's strings (0.1 s) load only when
    # a catalog error is shown; studyapp.catalog.errors is imported at every start
    ("studyapp/catalog/errors.py", "studyapp.i18n"): "deferred: PyYAML at start",
    ("studyapp/catalog/hf_config.py", "studyapp.i18n"): "deferred: PyYAML at start",
}
"""(module file, imported module) -> the area it waits for, or why it stays."""

MOST = 412
"""Imports inside functions today: lower it as they move up; raise it only with a reason
above (412: a scenario's step credit and the misconceptions the new-card order targets; the
home screen and ``stats`` tell regraded answers, through studyapp.study, which reads them
through studyapp.store; ``deck add`` regrades through studyapp.classroom)."""


def function_imports() -> list[tuple[str, int, str]]:
    """(module file, line, imported module) of every import inside a function."""
    found: list[tuple[str, int, str]] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE.parent).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom):
                    found.append((name, node.lineno, "." * node.level + (node.module or "")))
                elif isinstance(node, ast.Import):
                    found.extend((name, node.lineno, alias.name) for alias in node.names)
    return sorted(set(found))


def justified(module: str) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in DEFERRED)


def test_every_import_inside_a_function_has_a_reason() -> None:
    loose = [f"{name}:{line}: {module}" for name, line, module in function_imports()
             if not justified(module) and (name, module) not in NOT_YET_HOISTED]
    assert not loose, ("imports inside functions with no reason in DEFERRED (move them to "
                       "the top of the module): " + ", ".join(loose))


def test_imports_inside_functions_do_not_grow() -> None:
    count = len(function_imports())
    assert count <= MOST, f"{count} imports inside functions, at most {MOST}"


def test_the_list_of_imports_to_move_up_holds_only_real_ones() -> None:
    present = {(name, module) for name, _, module in function_imports()}
    stale = sorted(key for key in NOT_YET_HOISTED if key not in present)
    assert not stale, f"NOT_YET_HOISTED lists imports no longer inside a function: {stale}"

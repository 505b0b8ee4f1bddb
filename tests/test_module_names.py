"""Two modules share a file name only when they are one concept seen from two layers.

``from studyapp.x import text`` and ``from studyapp.y import text`` in one traceback or
one search result should mean the same idea; a module that holds something else gets a
name from its own domain (``deck_model.py`` in ``studyapp/decks``, not a third ``model.py``).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import studyapp

PACKAGE = Path(studyapp.__file__).parent

SAME_CONCEPT: dict[str, tuple[frozenset[str], str]] = {
    "__main__.py": (frozenset({"studyapp/__main__.py", "studyapp/cli/__main__.py"}),
                    "`python -m studyapp` and `python -m studyapp.cli`: both start the CLI"),
    "audit.py": (frozenset({"studyapp/cli/audit.py", "studyapp/questions/generators/audit.py"}),
                 "the `audit` command and the generator audit it prints"),
    "calc.py": (frozenset({"studyapp/cli/calc.py", "studyapp/infra/calc.py"}),
                "the `calc` command and the reports it prints"),
    "cards.py": (frozenset({"studyapp/cli/cards.py", "studyapp/store/cards.py"}),
                 "the card browser: its command and its stored reads and marks"),
    "classroom.py": (frozenset({"studyapp/cli/classroom.py", "studyapp/store/classroom.py"}),
                     "the class: its commands and its stored queries"),
    "glossary.py": (frozenset({"studyapp/catalog/glossary.py",
                               "studyapp/tui/screens/glossary.py"}),
                    "the glossary: its entries and the screen that lists them"),
    "held.py": (frozenset({"studyapp/store/held.py", "studyapp/study/held.py"}),
                "answers held until recorded: their rows and the service that keeps them"),
    "memory.py": (frozenset({"studyapp/infra/memory.py",
                             "studyapp/questions/generators/families/memory.py"}),
                  "memory arithmetic and the question families that ask it"),
    "network.py": (frozenset({"studyapp/infra/network.py",
                              "studyapp/questions/generators/families/network.py"}),
                   "network arithmetic and the question families that ask it"),
    "progress.py": (frozenset({"studyapp/cli/progress.py", "studyapp/store/progress.py",
                               "studyapp/tui/screens/progress.py"}),
                    "a learner's progress: its command, its stored answers and its screen"),
    "roles.py": (frozenset({"studyapp/store/roles.py", "studyapp/study/roles.py"}),
                 "database roles: the PostgreSQL grants and the service that sets them up"),
    "serve.py": (frozenset({"studyapp/cli/serve.py", "studyapp/tui/serve.py"}),
                 "serving the app in a browser: the command and the server"),
    "stats.py": (frozenset({"studyapp/progress/stats.py", "studyapp/store/stats.py"}),
                 "progress statistics: the figures and the queries they come from"),
    "text.py": (frozenset({"studyapp/text.py", "studyapp/decks/text.py",
                           "studyapp/tui/text.py"}),
                "untrusted text made safe to show: the shared rules, deck text, TUI widgets"),
    "tuning.py": (frozenset({"studyapp/cli/tuning.py", "studyapp/tuning.py"}),
                  "scheduler tuning: the commands and the service"),
    "exam.py": (frozenset({"studyapp/cli/exam.py", "studyapp/study/exam.py",
                           "studyapp/tui/screens/exam.py"}),
                "the mock exam: its command, the paper and its grading, its screen"),
    "calc_charts.py": (frozenset({"studyapp/infra/calc_charts.py",
                                  "studyapp/tui/screens/calc_charts.py"}),
                       "the calculator's charts: their data and the screen that shows them"),
    "calc_plot.py": (frozenset({"studyapp/cli/calc_plot.py",
                                "studyapp/tui/widgets/calc_plot.py"}),
                     "the calculator's charts drawn: on stdout (--plot) and in the app"),
    "misconceptions.py": (frozenset({"studyapp/questions/misconceptions.py",
                                     "studyapp/progress/misconceptions.py",
                                     "studyapp/classroom/misconceptions.py"}),
                          "misconceptions: which slips show each, a learner's estimate and "
                          "the class's"),
    "series.py": (frozenset({"studyapp/progress/series.py", "studyapp/store/series.py"}),
                  "progress over time: the series and the queries they come from"),
    "regrade.py": (frozenset({"studyapp/classroom/regrade.py", "studyapp/store/regrade.py"}),
                   "regrading a class's answers: the service and its stored updates"),
    "measured.py": (frozenset({"studyapp/infra/measured.py",
                               "studyapp/questions/generators/families/measured.py"}),
                    "published measurements: matched to a setup, and the families that ask "
                    "to predict them"),
}
"""File names more than one module has, each with every module that has it and why they
are the same concept."""


def modules_by_name() -> dict[str, set[str]]:
    names: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE.parent).as_posix()
        if path.name == "__init__.py" or "/migrations/versions/" in relative:
            continue
        names[path.name].add(relative)
    return names


def unexplained(names: dict[str, set[str]]) -> dict[str, list[str]]:
    """Names shared by modules that SAME_CONCEPT does not list exactly so."""
    return {name: sorted(paths) for name, paths in names.items()
            if len(paths) > 1 and (name not in SAME_CONCEPT or SAME_CONCEPT[name][0] != paths)}


def test_modules_share_a_name_only_when_they_are_one_concept() -> None:
    assert not unexplained(modules_by_name()), (
        "modules sharing a file name without a reason in SAME_CONCEPT (rename one after "
        f"what it holds, or list them with the reason): {unexplained(modules_by_name())}")


def test_every_allowed_name_is_still_shared() -> None:
    names = modules_by_name()
    stale = [name for name in SAME_CONCEPT if len(names.get(name, ())) < 2]
    assert not stale, f"SAME_CONCEPT lists names no two modules share any more: {stale}"


def test_a_second_model_or_a_third_text_module_fails() -> None:
    names = modules_by_name()
    study = "/".join(("studyapp", "study"))  # a package that has neither module
    names["model.py"] = {"studyapp/questions/model.py", f"{study}/model.py"}
    names["text.py"] = {*names["text.py"], f"{study}/text.py"}
    assert set(unexplained(names)) == {"model.py", "text.py"}

"""No import circle in the terminal app, TYPE_CHECKING imports included: screens see
the app through ``tui.context.StudyContext`` and never import ``tui.app``."""

from __future__ import annotations

import grimp
import pytest

GRAPH = grimp.build_graph("studyapp", exclude_type_checking_imports=False, cache_dir=None)
TUI = sorted(m for m in GRAPH.modules if m == "studyapp.tui" or m.startswith("studyapp.tui."))


def test_no_tui_module_imports_itself_back() -> None:
    circles = [m for m in TUI
               if any(GRAPH.find_shortest_chain(d, m) is not None
                      for d in GRAPH.find_modules_directly_imported_by(m) if d in TUI)]
    assert circles == []


@pytest.mark.parametrize("package", ["studyapp.tui", "studyapp.tui.screens",
                                     "studyapp.tui.widgets"])
def test_no_two_siblings_import_each_other(package: str) -> None:
    """What import-linter's ``acyclic_siblings`` checks: a child module or package of
    ``package`` never reaches, through its own imports, a sibling that reaches it."""
    children = sorted(GRAPH.find_children(package))

    def child_of(module: str) -> str | None:
        return next((c for c in children if module == c or module.startswith(c + ".")), None)

    edges: dict[str, set[str]] = {c: set() for c in children}
    for module in GRAPH.modules:
        source = child_of(module)
        if source is None:
            continue
        for imported in GRAPH.find_modules_directly_imported_by(module):
            target = child_of(imported)
            if target is not None and target != source:
                edges[source].add(target)

    def reached(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in edges[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen

    assert [c for c in children if c in reached(c)] == []


def test_no_screen_imports_the_app() -> None:
    screens = [m for m in TUI if m.startswith("studyapp.tui.screens")]
    assert [m for m in screens
            if "studyapp.tui.app" in GRAPH.find_modules_directly_imported_by(m)] == []

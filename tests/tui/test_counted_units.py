"""Things counted are named in the learner's language; measuring units stay as written."""

from __future__ import annotations

import pytest

from studyapp.i18n import unit_label
from studyapp.questions.generators import registered_families
from studyapp.questions.generators.running import generate_run
from studyapp.questions.units import UnitError, resolve_unit
from studyapp.tui.widgets.answer_input import counted


@pytest.mark.parametrize(("unit", "es"), [("sequences", "secuencias"), ("nodes", "nodos"),
                                          ("layers", "capas"), ("GB", "GB"), ("ms", "ms")])
def test_the_example_answer_names_the_unit_as_a_spanish_engineer_writes_it(
        unit: str, es: str) -> None:
    assert counted(unit, "es") == es


def test_every_counted_unit_a_family_asks_in_has_a_spanish_name() -> None:
    units: set[str] = set()
    for family in registered_families().values():
        for q in generate_run(family, seed=1, count=3, lang="es"):
            units.update(u for u in [q.unit, *(p.question.unit for p in q.parts)] if u)
    nouns = set()
    for unit in units:
        try:
            resolve_unit(unit)
        except UnitError:
            nouns.add(unit)
    untranslated = {u for u in nouns if unit_label(u, "es") == u and u not in {"chips"}}
    assert not untranslated, untranslated

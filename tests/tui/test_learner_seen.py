"""Faults a learner saw, each pinned: practice said on every card, '1 nueva' in
Spanish, and a transfer in seconds not worked out as '5.6 s = 5.6 s'."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from studyapp.questions.generators import registered_families
from studyapp.questions.generators.drawing import instance_seed
from studyapp.srs.scheduler import CardStage
from studyapp.study.views import PostProgress, Presented
from studyapp.tui.screens.question_format import header_line
from studyapp.tui.widgets.post_row import PostRow


def presented() -> Presented:
    question = registered_families()["link-transfer"].generate(1, "en", {})
    return Presented(number=2, total=10, deck_id="post-nvlink-infiniband", card_key="gen",
                     question=question, stage=CardStage.NEW)


@pytest.mark.parametrize(("lang", "word"), [("en", "practice"), ("es", "práctica")])
def test_practice_is_marked_in_the_question_header(lang: str, word: str) -> None:
    assert header_line(presented(), "NVLink", 80, lang, practice=True).startswith(
        f"[2/10] {word} · NVLink")
    assert word not in header_line(presented(), "NVLink", 80, lang)


@pytest.mark.parametrize(("lang", "new", "says"), [
    ("es", 1, "1 nueva · 0 hoy"), ("es", 2, "2 nuevas · 0 hoy"),
    ("en", 1, "1 new · 0 due"), ("en", 3, "3 new · 0 due"),
])
def test_one_new_card_is_singular_in_spanish(lang: str, new: int, says: str) -> None:
    row = PostRow(SimpleNamespace(slug="h200"), lang)  # type: ignore[arg-type]
    row.progress = PostProgress(slug="h200", title="H200", section="accelerators", order=4,
                                tagline="", total=20, new=new, learning=0, review=0, due=0,
                                read=True)
    assert row.counts_text() == says


def test_a_transfer_in_seconds_is_not_worked_out_as_the_same_figure_twice() -> None:
    family = registered_families()["link-transfer"]
    in_seconds = [q for q in (family.generate(instance_seed(7, i), lang, {})
                              for i in range(300) for lang in ("en", "es")) if q.unit == "s"]
    assert in_seconds  # the family asks in seconds often enough to check
    for question in in_seconds:
        assert not re.search(r"= ([0-9.,]+ s) = \1(?![0-9])", question.explanation), \
            question.explanation

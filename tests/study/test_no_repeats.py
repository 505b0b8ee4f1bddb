"""No exercise twice: not in one sitting, not within a week, not under another name.

The drill's pools are small (four to six exercises a card), so that without
the week's memory the same exercise would come back within days.

Two showings of a family are the same exercise when they give the same figures
or reach the same answer (DeepSeek-V3.1 and Kimi K2 share one attention shape:
in FP8 their KV cache per token is the same number). Days are simulated with
an injected clock; every answer is right, so cards come back as reviews.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from test_service import right_answer

from studyapp.questions.generators import get_family
from studyapp.questions.model import Question
from studyapp.srs import Rating
from studyapp.srs.scheduler import CardStage
from studyapp.study import SessionKind, StudyConfig, StudyService
from studyapp.study.draws import REPEAT_WINDOW, ShownDraws, draw_marks, repeated

START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
# sittings at 12:00 and 20:00 UTC on UTC study days, whatever hour the suite runs at
# (in a zone eight hours west the morning sitting fell on the 04:00 rollover)
pytestmark = pytest.mark.utc_days

DRILL = """deck: week-drill
title: Week drill
language: en
post: nvlink-infiniband
cards:
  - id: weights
    type: generated
    generator: weights-size
    options: {models: [llama-3.1-8b, llama-3.1-70b, qwen2.5-72b], dtypes: [bf16, fp8]}
  - id: kv
    type: generated
    generator: kv-cache-per-token
    options: {models: [llama-3.1-8b, llama-3.1-70b, qwen2.5-72b], dtypes: [bf16, fp8]}
  - id: send
    type: generated
    generator: link-transfer
    options: {links: [nvlink-4, ib-ndr], sizes_gb: [16, 32, 64]}
  - {id: send-ib, type: generated, generator: link-transfer, options: {links: [ib-ndr, ib-xdr]}}
  - id: ring
    type: generated
    generator: ring-allreduce
    options:
      links: [nvlink-4]
      gpu_counts: [8, 16]
      models: [llama-3.1-8b, llama-3.1-70b, qwen2.5-72b]
  - {id: ring-ib, type: generated, generator: ring-allreduce, options: {links: [ib-ndr]}}
  - id: decode
    type: generated
    generator: decode-ceiling
    options: {models: [llama-3.1-8b, llama-3.1-70b], gpus: [h100-sxm, h200-sxm, b200]}
  - {id: fits, type: generated, generator: fits-on-gpu}
"""


def draw(family: str, **options: Any) -> Question:
    return get_family(family).generate(3, "en", options)


# -- the same exercise under another name ----------------------------------------------


def test_deepseek_v3_1_and_kimi_k2_in_fp8_are_one_kv_exercise() -> None:
    deepseek = draw("kv-cache-per-token", models=["deepseek-v3.1"], dtypes=["fp8"])
    kimi = draw("kv-cache-per-token", models=["kimi-k2"], dtypes=["fp8"])
    llama = draw("kv-cache-per-token", models=["llama-3.1-70b"], dtypes=["fp8"])
    # both: 61 layers of a 512 latent and a 64 RoPE key, one byte each (their config.json,
    # tests/catalog/hf_configs): the same 35,136 bytes a token under two names
    assert deepseek.prompt != kimi.prompt and deepseek.answer == kimi.answer
    assert draw_marks(deepseek) & draw_marks(kimi)
    assert not draw_marks(deepseek) & draw_marks(llama)
    assert repeated([deepseek, llama, kimi]) == [(deepseek, kimi)]


def test_the_same_weights_under_another_model_name_repeat() -> None:
    v3 = draw("weights-size", models=["deepseek-v3"], dtypes=["fp8"])
    v31 = draw("weights-size", models=["deepseek-v3.1"], dtypes=["fp8"])
    assert "V3.1" in v31.prompt and "V3.1" not in v3.prompt
    assert repeated([v3, v31])


def test_small_counts_and_yes_no_answers_mark_nothing_alone() -> None:
    """A GPU count or a yes/no recurs by nature: only the figures given mark them."""
    one = draw("min-gpus", models=["llama-3.1-70b"], gpus=["h100-sxm"])
    other = draw("min-gpus", models=["qwen2.5-72b"], gpus=["h200-sxm"])
    assert all(" given " in mark for mark in draw_marks(one))
    assert not draw_marks(one) & draw_marks(other)


# -- a sitting, and a week ------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def service(tmp_path: Path, clock: Clock) -> StudyService:
    deck = tmp_path / "drill.yaml"
    deck.write_text(DRILL, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile="ana", lang="en", clock=clock,
                                    extra_decks=(deck,)))


def sitting(svc: StudyService, seed: int,
            rating: Rating = Rating.GOOD) -> list[tuple[str, Question]]:
    """One sitting over the drill, every answer right: (card, question) as shown."""
    session = svc.start(SessionKind.DECK, deck="week-drill", seed=seed)
    shown = []
    while (presented := session.next()) is not None:
        shown.append((presented.card_key, presented.question))
        outcome = session.submit(right_answer(presented.question))
        if outcome.needs_rating:  # learning steps rated Good, so they graduate
            session.rate(rating if presented.stage is CardStage.REVIEW else Rating.GOOD)
    return shown


def test_a_sitting_asks_one_new_card_per_family(tmp_path: Path) -> None:
    svc = service(tmp_path, Clock())
    shown = sitting(svc, seed=1)
    first = {card: question.family for card, question in reversed(shown)}
    assert len(first) == len(set(first.values())) == 6, first  # not send-ib, not ring-ib
    assert len(shown) > len(first)  # learning steps came back within the sitting ...
    assert not repeated(question for _, question in shown)  # ... with other numbers
    assert {card for card, _ in sitting(svc, seed=2)} == {"send-ib", "ring-ib"}  # next sitting
    svc.close()


def weeks(tmp_path: Path, days: int) -> list[tuple[int, Question]]:
    clock = Clock()
    svc = service(tmp_path, clock)
    shown = []
    for day in range(days):
        for _ in range(2):  # a morning and an evening sitting
            # reviews rated Hard: the cards come back within days
            shown += [(day, question) for _, question in sitting(svc, day, Rating.HARD)]
            clock.now += timedelta(hours=8)
        clock.now += timedelta(hours=8)
    svc.close()
    return shown


def repeats_within(shown: list[tuple[int, Question]], days: int) -> list[tuple[int, int, str]]:
    found = []
    for n, (day, question) in enumerate(shown):
        for later_day, later in shown[n + 1:]:
            if later_day - day < days and draw_marks(question) & draw_marks(later):
                found.append((day, later_day, question.prompt[:60]))
    return found


def test_nothing_asked_twice_within_a_week_over_three_weeks(tmp_path: Path) -> None:
    shown = weeks(tmp_path, 21)
    assert len(shown) >= 30  # the cards come back as reviews
    assert timedelta(days=7) == REPEAT_WINDOW
    assert not repeats_within(shown, 7)


def test_without_the_week_s_memory_the_same_exercises_come_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check has teeth: forgetting past sittings, the same days repeat exercises."""
    monkeypatch.setattr(ShownDraws, "lately",
                        classmethod(lambda cls, profile, now: cls(None, set())))
    assert repeats_within(weeks(tmp_path, 21), 7)


def test_the_log_keeps_profiles_apart_and_forgets_past_the_week(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from studyapp.decks import draw_log

    draw_log.record_shown("ana@db", START, ["a"])
    draw_log.record_shown("ana@db", START + timedelta(days=6), ["b"])
    draw_log.record_shown("bea@db", START + timedelta(days=6), ["c"])
    later = START + timedelta(days=8)
    assert ShownDraws.lately("ana@db", later).marks == {"b"}  # "a" is 8 days old
    assert ShownDraws.lately("bea@db", later).marks == {"c"}
    monkeypatch.setattr(draw_log, "MAX_SHOWN_BYTES", 10)  # grown: rewritten with the window
    assert draw_log.shown_since("ana@db", later - REPEAT_WINDOW) == {"b"}
    assert '"a"' not in draw_log.shown_path().read_text(encoding="utf-8")
    draw_log.shown_path().write_text("not json\n", encoding="utf-8")
    assert ShownDraws.lately("ana@db", later).marks == set()

"""New cards are gathered as a learner needs them: the numbers from day one.

On a fresh profile, a post's first session mixes generated numeric questions
with the authored cards (at least one in three of the first 15 new cards,
the two kinds interleaved, a generated one first); over the first 40 new
cards of the study order every numeric family of the post appears; of two
siblings, the generated card is shown first and the authored card on the
same fact comes another day. The order is a profile setting, as Anki's
new-card gather and sort order.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_service import Clock, right_answer, service

from studyapp.catalog.posts import POST_SLUGS
from studyapp.questions.generators import registered_families
from studyapp.questions.model import Kind
from studyapp.srs import Rating
from studyapp.srs.queue import NEW_CARD_ORDERS, gather_new, new_card_order
from studyapp.study import SessionKind, StudyConfig, StudyService

NUMERIC_KINDS = (Kind.NUMERIC, Kind.TRUEFALSE)


def numeric_family(svc: StudyService, key: tuple[str, str]) -> str | None:
    """The family of a generated card that asks for a number (or a yes/no worked from one)."""
    spec = svc._cards_by_key[key].spec
    family = registered_families().get(spec.generator or "")
    return spec.generator if family is not None and family.kind in NUMERIC_KINDS else None


def first_day_new(svc: StudyService, slug: str) -> list[tuple[str, str]]:
    return [i.key for i in svc.plan(SessionKind.POST, post=slug) if i.stage.name == "NEW"]


def study_order(svc: StudyService, slug: str) -> list[tuple[str, str]]:
    """The post's new cards in the order the profile gathers them (siblings put off a day
    keep their place: the generated one goes first)."""
    cards = svc._session_cards(None, slug).cards
    return [c.key for c in svc.gathered(cards)]


@pytest.mark.parametrize("slug", POST_SLUGS)
def test_a_fresh_profile_meets_the_numbers_in_every_post_first_session(
        tmp_path: Path, slug: str) -> None:
    svc = service(tmp_path, Clock())
    new = first_day_new(svc, slug)[:15]
    numeric = [k for k in new if numeric_family(svc, k)]
    assert len(new) >= 12, (slug, len(new))  # siblings of one fact wait for other days
    assert len(numeric) * 3 >= len(new), (slug, f"{len(numeric)}/{len(new)}", new)
    generated = [svc._cards_by_key[k].generated for k in new]
    assert numeric_family(svc, new[0]), (slug, new[0])  # the numbers first
    runs = "".join("g" if g else "a" for g in generated)
    assert "ggg" not in runs and "aaa" not in runs[: runs.rindex("g")], (slug, runs)


def padded_service(tmp_path: Path, slug: str, authored: int = 45) -> StudyService:
    """A fresh profile with an instructor's deck of ``authored`` written cards on ``slug``
    beside the post deck: a post of 60+ new cards, where the first 40 can miss a family."""
    lines = [f"deck: class-{slug}", "title: Class notes", "language: en", f"post: {slug}",
             "cards:"]
    lines += [f"  - {{id: note-{n}, type: truefalse, prompt: 'Class note {n} holds.', "
              "answer: true}" for n in range(authored)]
    path = tmp_path / f"class-{slug}.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile="ana", lang="en", clock=Clock(),
                                    extra_decks=(path,)))


def numeric_families_met(svc: StudyService, slug: str) -> tuple[set[str], set[str]]:
    """The post's numeric families (its own and those its deck draws), and those met in
    the first 40 new cards of the study order."""
    cards = svc._session_cards(None, slug).cards
    deck = {f for c in cards if (f := numeric_family(svc, c.key))}
    own = {name for name, f in registered_families().items()
           if f.post == slug and f.kind in NUMERIC_KINDS}
    met = {numeric_family(svc, k) for k in study_order(svc, slug)[:40]} - {None}
    return deck | own, {m for m in met if m}


@pytest.mark.parametrize("slug", POST_SLUGS)
def test_every_numeric_family_of_the_post_comes_within_its_first_40_new_cards(
        tmp_path: Path, slug: str) -> None:
    svc = padded_service(tmp_path, slug)
    assert len(study_order(svc, slug)) >= 60
    wanted, met = numeric_families_met(svc, slug)
    assert wanted and wanted <= met, (slug, wanted - met)


def test_written_cards_first_would_leave_the_numbers_past_the_first_40(
        tmp_path: Path) -> None:
    """The rule has teeth: the same profile in authored-first order meets none of them."""
    svc = padded_service(tmp_path, "h200")
    svc.update_settings(new_card_order="authored-first")
    wanted, met = numeric_families_met(svc, "h200")
    assert wanted and not met


def test_the_generated_sibling_is_shown_first_and_the_authored_one_another_day(
        tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    first = first_day_new(svc, "h200")
    assert ("post-h200", "gen-fits-on-gpu") in first
    assert ("post-h200", "h200-70b-bf16-single-gpu") not in first
    session = svc.start(SessionKind.POST, post="h200", seed=5)
    while (presented := session.next()) is not None:
        outcome = session.submit(right_answer(presented.question))
        if outcome.needs_rating:
            session.rate(Rating.GOOD)
    clock.advance(days=1)
    second = first_day_new(svc, "h200")
    assert ("post-h200", "gen-fits-on-gpu-any") in second  # the other generated sibling
    assert ("post-h200", "h200-70b-bf16-single-gpu") not in second
    order = study_order(svc, "h200")
    assert order.index(("post-h200", "gen-fits-on-gpu-any")) < order.index(
        ("post-h200", "h200-70b-bf16-single-gpu"))


def test_the_order_is_a_profile_setting(tmp_path: Path) -> None:
    svc = service(tmp_path, Clock())
    assert svc.new_card_order == "mixed"
    svc.update_settings(new_card_order="authored-first")
    authored = first_day_new(svc, "h200")
    assert not any(svc._cards_by_key[k].generated for k in authored[:5])
    svc.update_settings(new_card_order="generated-first")
    made = first_day_new(svc, "h200")
    assert all(svc._cards_by_key[k].generated for k in made[:5])
    svc.update_settings(new_card_order="random")
    shuffled = first_day_new(svc, "h200")
    assert shuffled == first_day_new(svc, "h200")  # stays put for the profile
    assert shuffled not in (authored, made)
    svc.update_settings(new_card_order="nonsense")  # an unreadable stored value
    assert svc.new_card_order == "mixed"


def test_order_names_read_as_written_or_spaced() -> None:
    assert new_card_order("authored first") == "authored-first"
    assert new_card_order("Generated_First") == "generated-first"
    assert [new_card_order(o) for o in NEW_CARD_ORDERS] == list(NEW_CARD_ORDERS)
    with pytest.raises(ValueError):
        new_card_order("newest")


def test_mixed_keeps_posts_together_and_waits_for_a_generated_sibling() -> None:
    # (post, name, generated, fact)
    cards = [(1, "a1", False, "x"), (1, "a2", False, None), (1, "a3", False, None),
             (1, "g1", True, None), (1, "g2", True, "x"), (2, "b1", False, None),
             (2, "h1", True, None)]
    got = gather_new(cards, "mixed", generated=lambda c: c[2], group=lambda c: c[0],
                     fact=lambda c: c[3], key=lambda c: c[1])
    assert [c[1] for c in got] == ["g1", "a2", "g2", "a3", "a1", "h1", "b1"]



REPEATED_MOST = ("blackwell", "trainium", "gaudi", "hgx", "nvlink-infiniband")
"""The posts whose totals and conversions repeated most (nvl72, trn2, gaudi-ethernet...)."""


@pytest.mark.parametrize(("slug", "lang"), [(slug, "en") for slug in POST_SLUGS]
                         + [(slug, "es") for slug in REPEATED_MOST])
def test_no_prompt_is_asked_twice_in_a_40_answer_session(tmp_path: Path, slug: str,
                                                         lang: str) -> None:
    """Seeded sittings of 40 answers, a third of them wrong so drawn cards come back: each
    showing of a drawn card is a question not yet asked (an authored card asks its one
    question again when it comes back, and so does a card that tests a fact)."""
    from test_service import wrong_answer

    from studyapp.study.draws import tests_a_fact

    clock = Clock()
    svc = service(tmp_path, clock)
    session = svc.start(SessionKind.POST, post=slug, seed=11, limit=40, lang=lang)
    prompts: list[tuple[str, frozenset[str]]] = []
    answers = 0
    while (presented := session.next()) is not None and answers < 60:
        answers += 1
        question = presented.question
        spec = svc.card(presented.deck_id, presented.card_key)
        # drawn numbers; a fact card keeps its chip while it is relearnt (study.draws)
        if spec.is_template and not tests_a_fact(spec):
            prompts.append((question.prompt, frozenset(question.choices)))
        reply = (wrong_answer if answers % 3 == 0 else right_answer)(question)
        if lang == "es" and question.kind in (Kind.NUMERIC, Kind.SCENARIO):
            reply = reply.replace(".", ",")  # typed as a Spanish speaker types 3,35
        outcome = session.submit(reply)
        if outcome.needs_rating:
            session.rate(Rating.GOOD)
        clock.advance(seconds=30)
    # the H200's written figure cards wait a day once a drawn question states them: its
    # sitting may end a few answers short, with nothing left to ask today
    assert (answers == 40 or (answers >= 35 and session.next() is None)) and len(prompts) >= 10
    repeated = [p for p in set(prompts) if prompts.count(p) > 1]
    assert not repeated, repeated


def test_the_post_screen_line_counts_what_the_next_session_asks(tmp_path: Path) -> None:
    """The post screen's "Next session: N new (G generated, A authored) and D due" is the
    session that follows: counted again from the cards a sitting shows, on the first day and
    five days on (when the first day's cards come back due). A new written card whose
    answer a drawn question states is put off a day, so the sitting shows it one less."""
    from studyapp.i18n import t

    clock = Clock()
    svc = service(tmp_path, clock)
    for day in range(2):
        mix = svc.next_session_mix("h200")
        planned = {i.key for i in svc.plan(SessionKind.POST, post="h200")}
        session = svc.start(SessionKind.POST, post="h200", seed=day)
        firsts: dict[tuple[str, str], tuple[bool, bool]] = {}  # key: (new, generated)
        put_off: set[tuple[str, str]] = set()  # new written cards a drawn question answered
        while (presented := session.next()) is not None:
            key = (presented.deck_id, presented.card_key)
            if key not in firsts:
                firsts[key] = (presented.stage.name == "NEW", svc._cards_by_key[key].generated)
            if firsts[key][1]:
                question = presented.question
                put_off |= {k for k in svc.given_away(presented.deck_id, (
                    question.prompt, question.explanation), "en")
                            if k in planned and k not in firsts}
            outcome = session.submit(right_answer(presented.question))
            if outcome.needs_rating:
                session.rate(Rating.GOOD)
            clock.advance(seconds=30)
        seen = list(firsts.values())
        assert (mix.new_generated, mix.new_authored, mix.due_generated, mix.due_authored) == (
            seen.count((True, True)), seen.count((True, False)) + len(put_off),
            seen.count((False, True)), seen.count((False, False))), (day, mix, put_off)
        assert day or (mix.new_generated and mix.new_authored)
        clock.advance(days=5)
    assert mix.due, "five days on, the first day's cards come back due"
    line = t("tui.post.next_session", "en", new=mix.new, new_generated=mix.new_generated,
             new_authored=mix.new_authored, due=mix.due, due_generated=mix.due_generated,
             due_authored=mix.due_authored)
    assert line.startswith(f"Next session: {mix.new} new ({mix.new_generated} generated")


@pytest.mark.parametrize(("slug", "lang"), [("h200", "en"), ("h200", "es"), ("gaudi", "en"),
                                            ("trainium", "es"), ("blackwell", "en")])
def test_no_written_card_is_asked_after_a_drawn_question_stated_its_answer(
        tmp_path: Path, slug: str, lang: str) -> None:
    """A drawn question states its chip's figures ("141 GB of HBM3e"); the written card
    asking that figure is put off to another day, not asked a minute later (a card asked
    before and coming back in learning has been answered already). The next day it is
    asked."""
    from studyapp.decks.cues import expected_answers, gives_away

    clock = Clock()
    svc = service(tmp_path, clock)
    put_off: set[tuple[str, str]] = set()
    for day in range(2):
        session = svc.start(SessionKind.POST, post=slug, seed=day, lang=lang)
        stated: list[str] = []
        asked: set[tuple[str, str]] = set()
        while (presented := session.next()) is not None:
            key = (presented.deck_id, presented.card_key)
            spec = svc.card(*key)
            if spec.type != "generated" and key not in asked:  # its first showing today
                asked.add(key)
                for answer in expected_answers(spec, lang):
                    assert not any(gives_away(text, answer) for text in stated), (
                        day, spec.id, answer)
            else:
                question = presented.question
                given = svc.given_away(presented.deck_id,
                                       (question.prompt, question.explanation), lang)
                put_off |= {k for k in given if k not in asked} if day == 0 else set()
                stated += [question.prompt, question.explanation]
            outcome = session.submit(right_answer(presented.question).replace(
                ".", "," if lang == "es" and presented.question.kind is Kind.NUMERIC else "."))
            if outcome.needs_rating:
                session.rate(Rating.GOOD)
            clock.advance(seconds=30)
        if day == 0:
            assert put_off, "a drawn question of this post states a written card's answer"
            held = put_off
        clock.advance(days=1)
    assert held & asked, "put off a day, then asked"


def test_undo_brings_back_the_written_card_a_drawn_question_put_off(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    capacity = ("post-h200", "h200-capacity")
    session = svc.start(SessionKind.POST, post="h200", seed=3)
    assert capacity in {i.key for i in session.queue.main}
    presented = session.next()
    assert presented is not None and svc.card(*capacity).type != "generated"
    assert "141 GB" in presented.question.prompt  # the first card is drawn on the H200
    outcome = session.submit(right_answer(presented.question))
    if outcome.needs_rating:
        session.rate(Rating.GOOD)
    assert capacity not in {i.key for i in session.queue.main}
    assert capacity not in {i.key for i in svc.plan(SessionKind.POST, post="h200")}
    assert session.undo()
    assert capacity in {i.key for i in session.queue.main}
    assert capacity in {i.key for i in svc.plan(SessionKind.POST, post="h200")}


def test_a_limited_sitting_asks_other_new_cards_in_place_of_those_put_off(
        tmp_path: Path) -> None:
    """Eight answers on the H200, all wrong: the drawn questions put the capacity and
    bandwidth cards off a day, and the cards planned past the limit take their places, so
    the eight answers go to eight different cards (no card back early while new ones wait)."""
    from test_service import wrong_answer

    clock = Clock()
    svc = service(tmp_path, clock)
    session = svc.start(SessionKind.POST, post="h200", seed=3, limit=8)
    keys = []
    while (presented := session.next()) is not None:
        keys.append(presented.card_key)
        session.submit(wrong_answer(presented.question))
        clock.advance(seconds=2)
    assert len(keys) == 8 and len(set(keys)) == 8, keys
    assert "h200-capacity" not in keys and "h200-bandwidth" not in keys

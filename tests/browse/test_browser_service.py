"""The card browser end to end: finding stored and never-studied cards, marks
honoured by the queue (TUI and plain mode plan the same way), reset, and the
instructor's edit loop on a built-in deck."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from studyapp import locations
from studyapp.browse import BrowsedCard, CardBrowser
from studyapp.cardsearch import QueryError
from studyapp.cli import main
from studyapp.progress import card_drilldown
from studyapp.questions.model import Kind, Question
from studyapp.srs import Rating
from studyapp.study import SessionKind, StudyConfig, StudyService

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday, 10:00 in Madrid
JSON_KEYS = ["deck", "card", "post", "family", "state", "due", "reps", "lapses", "accuracy",
             "flag", "suspended", "buried", "question"]


@dataclass
class Clock:
    now: datetime = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(tmp_path: Path, clock: Clock) -> Iterator[StudyService]:
    svc = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'p.sqlite3'}", profile="ana",
                                   lang="en", clock=clock))
    yield svc
    svc.close()


def answer_first(service: StudyService, post: str, *, wrong: bool = False) -> tuple[str, str]:
    """Answer the first card of a post's session (Again when ``wrong``)."""
    session = service.start(SessionKind.POST, post=post, limit=1, seed=1)
    shown = session.next()
    assert shown is not None
    outcome = session.submit(_wrong(shown.question) if wrong else _right(shown.question))
    if outcome.needs_rating:
        session.rate(Rating.GOOD)
    return shown.deck_id, shown.card_key


def _right(q: Question) -> str:
    if q.kind is Kind.CHOICE:
        return str(q.choices.index(str(q.answer)) + 1)
    if q.kind is Kind.TRUEFALSE:
        return "y" if q.answer else "n"
    if q.kind is Kind.NUMERIC:
        return repr(float(q.answer))
    return str(q.answer)


def _wrong(q: Question) -> str:
    if q.kind is Kind.CHOICE:
        return str((q.choices.index(str(q.answer)) + 1) % len(q.choices) + 1)
    if q.kind is Kind.TRUEFALSE:
        return "n" if q.answer else "y"
    if q.kind is Kind.NUMERIC:
        return repr(float(q.answer) * 3 + 1)
    return "surely not " + str(q.answer)


def keys(cards: list[BrowsedCard]) -> set[tuple[str, str]]:
    return {c.key for c in cards}


def planned(service: StudyService, post: str) -> set[tuple[str, str]]:
    return {item.key for item in service.plan(SessionKind.POST, post=post)}


def test_never_studied_cards_are_found_as_new(service: StudyService) -> None:
    browser = CardBrowser(service)
    h200 = browser.search("post:h200")
    assert h200 and all(c.state == "new" and c.due is None for c in h200)
    deck, card = answer_first(service, "h200")
    after = {c.key: c for c in browser.search("post:h200")}
    assert after[(deck, card)].state in ("learning", "review")
    assert after[(deck, card)].reps == 1 and after[(deck, card)].accuracy == 1.0
    assert (deck, card) not in keys(browser.search("post:h200 is:new"))
    assert len(browser.search("post:h200 is:new")) == len(h200) - 1


def test_free_words_match_the_question_in_the_learners_language(
        service: StudyService) -> None:
    browser = CardBrowser(service)
    english = keys(browser.search("hbm capacity h200", lang="en"))
    spanish = keys(browser.search("CAPACIDAD MEMORIA h200", lang="es"))  # memoria, capacidad
    assert ("post-h200", "h200-capacity") in english
    assert ("post-h200", "h200-capacity") in spanish


def test_a_buried_card_leaves_the_queue_until_the_next_study_day(
        service: StudyService, clock: Clock) -> None:
    browser = CardBrowser(service)
    target = browser.search("card:h200-capacity")
    assert len(target) == 1 and target[0].key in planned(service, "h200")
    assert browser.apply(target, "bury") == 1
    assert browser.apply(target, "bury") == 0  # already buried
    assert target[0].key not in planned(service, "h200")
    assert keys(browser.search("is:buried")) == {target[0].key}
    assert browser.search("card:h200-capacity")[0].state == "new"  # still a new card
    clock.now = START + timedelta(days=1)  # past the 04:00 rollover
    assert target[0].key in planned(service, "h200")
    assert browser.search("is:buried") == []


def test_a_buried_review_is_not_due_and_unbury_brings_it_back(
        service: StudyService, clock: Clock) -> None:
    deck, card = answer_first(service, "h100", wrong=True)
    browser = CardBrowser(service)
    clock.now += timedelta(minutes=30)
    assert (deck, card) in keys(browser.search("is:due"))
    before = service.overview().due_today
    assert browser.apply(browser.search(f"card:{card} deck:{deck}"), "bury") == 1
    assert (deck, card) not in planned(service, "h100")
    assert (deck, card) not in {i.key for i in service.plan(SessionKind.PRACTICE, post="h100")}
    assert service.overview().due_today == before - 1
    assert browser.apply(browser.search("is:buried"), "unbury") == 1
    assert (deck, card) in planned(service, "h100")


def test_flags_mark_without_hiding_and_survive_answers(service: StudyService) -> None:
    browser = CardBrowser(service)
    target = browser.search("card:h200-capacity")
    assert browser.apply(target, "flag", 3) == 1
    assert keys(browser.search("flag:3")) == {target[0].key}
    assert target[0].key in planned(service, "h200")  # a flag marks, it does not hide
    assert service.overview().posts[3].new == len(browser.search("post:h200 is:new"))
    session = service.start(SessionKind.POST, post="h200", seed=1)
    while (shown := session.next()) is not None and shown.card_key != "h200-capacity":
        session.skip()
        if session.remaining == 0:
            break
    assert shown is not None
    outcome = session.submit(_right(shown.question))
    session.rate(Rating.GOOD) if outcome.needs_rating else None
    after = browser.search("card:h200-capacity")[0]
    assert after.flag == 3 and after.state != "new"
    assert browser.apply(browser.search("is:flagged"), "flag", 0) == 1
    assert browser.search("is:flagged") == []


def test_suspend_a_new_card_and_reset_an_answered_one(service: StudyService) -> None:
    browser = CardBrowser(service)
    new = browser.search("card:h200-nvlink")  # a card with no sibling: always planned
    assert browser.apply(new, "suspend") == 1
    assert new[0].key not in planned(service, "h200")
    assert browser.apply(new, "unsuspend") == 1
    assert new[0].key in planned(service, "h200")
    deck, card = answer_first(service, "h100", wrong=True)
    answered = browser.search(f"deck:{deck} card:{card}")
    assert answered[0].state == "learning"
    assert browser.apply(answered, "reset") == 1
    again = browser.search(f"deck:{deck} card:{card}")[0]
    assert again.state == "new" and again.reps == 0 and again.lapses == 0
    detail = card_drilldown(service, deck, card)
    assert detail is not None and len(detail.logs) == 1  # the answer stays in the history
    assert (deck, card) in planned(service, "h100")


def test_bad_query_raises_with_a_column(service: StudyService) -> None:
    with pytest.raises(QueryError) as caught:
        CardBrowser(service).search("post:h200 is:lost")
    assert caught.value.column == 14


# -- the command line ------------------------------------------------------------------


def run(db: str, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", db, "--lang", "en", "cards", *args])


def test_cards_json_has_the_contract_keys(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    result = run(db, "post:h200", "--json")
    assert result.exit_code == 0, result.output
    cards = json.loads(result.output)
    assert cards and all(list(c) == JSON_KEYS for c in cards)
    assert {c["post"] for c in cards} == {"h200"}
    assert all(c["state"] == "new" and c["due"] is None for c in cards)


def test_cards_actions_print_how_many_changed(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    flagged = run(db, "post:h200", "hbm", "--flag", "2")
    assert flagged.exit_code == 0, flagged.output
    count = len(json.loads(run(db, "post:h200", "hbm", "--json").output))
    assert flagged.output.strip() == f"{count} cards changed (of {count} found)"
    assert len(json.loads(run(db, "flag:2", "--json").output)) == count
    again = run(db, "post:h200", "hbm", "--flag", "2")
    assert again.output.strip() == f"0 cards changed (of {count} found)"
    one = run(db, "card:h200-capacity", "--bury")
    assert one.output.strip() == "1 card changed (of 1 found)"
    listed = run(db, "is:buried")
    assert "post-h200/h200-capacity" in listed.output and "1 card" in listed.output
    assert run(db, "is:buried", "--unbury").output.strip() == "1 card changed (of 1 found)"
    assert run(db, "is:flagged", "--suspend").output.startswith(f"{count} cards changed")
    assert run(db, "is:suspended", "--reset").output.startswith("0 cards changed")


def test_cards_bad_query_points_at_the_column(tmp_path: Path) -> None:
    result = run(f"sqlite:///{tmp_path / 'c.sqlite3'}", "post:h200", "lapses>many")
    assert result.exit_code == 1
    assert "bad query at column 18: lapses>many — write a number" in result.output
    assert "  post:h200 lapses>many\n                   ^" in result.output
    assert "Traceback" not in result.output


def test_cards_refuses_two_actions(tmp_path: Path) -> None:
    result = run(f"sqlite:///{tmp_path / 'c.sqlite3'}", "--bury", "--flag", "1")
    assert result.exit_code == 2


def test_cards_spanish_plurals(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "es", "cards",
                                       "card:h200-capacity", "--flag", "1"])
    assert result.output.strip() == "1 tarjeta cambiada (encontradas: 1)"


# -- editing a card where it is written ---------------------------------------------------


def test_edit_a_builtin_card_through_a_copy_that_overrides_it(
        service: StudyService) -> None:
    browser = CardBrowser(service)
    session = service.start(SessionKind.DECK, deck="post-h200", limit=1, seed=1)
    shown = session.next()
    assert shown is not None
    deck, card = shown.deck_id, shown.card_key
    if session.submit(_right(shown.question)).needs_rating:
        session.rate(Rating.GOOD)
    target = browser.edit_target(deck, card)
    assert target.copied_from is not None
    assert target.path == locations.user_decks_dir() / f"{deck}.yaml"
    lines = target.path.read_text(encoding="utf-8").splitlines()
    assert f"id: {card}" in lines[target.line - 1]
    # the instructor rewrites the prompt
    text = target.path.read_text(encoding="utf-8")
    spec = service.card(deck, card)
    old = spec.text(spec.prompt, "en")
    edited = text.replace(old, "EDITED: " + old, 1)
    assert edited != text
    target.path.write_text(edited, encoding="utf-8")
    assert browser.reload(target.path, deck).ok
    found = browser.search(f"card:{card} deck:{deck}")[0]
    assert found.question.startswith("EDITED: ") and found.reps == 1  # progress kept
    assert found.source == "user"
    # a fresh process finds the copy instead of the built-in deck
    fresh = StudyService(service.config)
    try:
        fresh_spec = fresh.card(deck, card)
        assert fresh_spec.text(fresh_spec.prompt, "en").startswith("EDITED: ")
        assert [d.id for d in fresh.decks].count(deck) == 1
    finally:
        fresh.close()
    # editing it again opens the same copy, not the built-in file
    assert browser.edit_target(deck, card).path == target.path


def test_a_broken_edit_is_reported_and_the_deck_stays_as_it_was(
        service: StudyService) -> None:
    browser = CardBrowser(service)
    target = browser.edit_target("post-h200", "h200-capacity")
    text = target.path.read_text(encoding="utf-8")
    target.path.write_text(text.replace("type: ", "type: nonsense-", 1), encoding="utf-8")
    result = browser.reload(target.path, "post-h200")
    assert not result.ok
    assert result.problems[0].startswith(f"{target.path}:")
    line, col = result.problems[0][len(str(target.path)) + 1:].split(":")[:2]
    assert int(line) > 1 and int(col) >= 1
    assert browser.search("card:h200-capacity")[0].question.startswith("How much HBM capacity")


def test_plain_mode_skips_buried_cards(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    buried = run(db, "post:h200", "-card:h200-capacity", "--bury")
    assert buried.exit_code == 0, buried.output
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", "study", "--plain",
                                       "--post", "h200", "--limit", "3"], input="\n\n\n\n\n\n")
    assert result.exit_code == 0, result.output
    asked = [line for line in result.output.splitlines() if line.startswith("[")]
    assert len(asked) == 1 and "HBM capacity" in asked[0] + result.output
    assert "How much HBM capacity does NVIDIA list for an H200 SXM" in result.output


def test_a_card_due_today_shows_its_time_in_the_browser(service: StudyService,
                                                          clock: Clock) -> None:
    """A learning card coming back in 10 minutes showed only today's date."""
    from studyapp.tui.screens.browser import BrowserScreen

    key = answer_first(service, "h200")
    card = next(c for c in CardBrowser(service).search("post:h200") if c.key == key)
    assert card.due_today and card.due is not None
    cell = BrowserScreen.due_cell(None, card)  # type: ignore[arg-type]
    assert cell.plain == card.due.astimezone().strftime("%H:%M")
    clock.now -= timedelta(days=1)  # seen from the day before, it shows the date
    before = next(c for c in CardBrowser(service).search("post:h200") if c.key == key)
    assert not before.due_today
    assert BrowserScreen.due_cell(None, before).plain == card.due.astimezone().strftime(  # type: ignore[arg-type]
        "%Y-%m-%d")
    new = next(c for c in CardBrowser(service).search("post:h200 is:new"))
    assert BrowserScreen.due_cell(None, new).plain == "—"  # type: ignore[arg-type]

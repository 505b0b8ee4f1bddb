"""Each deck's own options at work: its retention, daily limits, burying and leech action."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from study_parts import DRILL, RecordingService
from test_service import Clock

from studyapp.srs import Rating
from studyapp.srs.deck_options import DeckOptions, with_deck_options
from studyapp.srs.scheduler import CardStage
from studyapp.study import SessionKind, StudyConfig, StudyService
from studyapp.study.session import showing
from studyapp.study.views import AnsweredCard
from studyapp.tuning import exam_plan


def two_decks(tmp_path: Path, clock: Clock) -> RecordingService:
    """The drill deck twice, as ``hard`` and ``easy``: the same cards in two decks."""
    paths = []
    for name in ("hard", "easy"):
        path = tmp_path / f"{name}.yaml"
        path.write_text(DRILL.replace("deck: drill", f"deck: {name}"), encoding="utf-8")
        paths.append(path)
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return RecordingService(StudyConfig(db_url=url, profile="ana", lang="en", clock=clock,
                                        extra_decks=tuple(paths)))


def set_options(svc: StudyService, deck_id: str, **options: object) -> None:
    own = DeckOptions.from_dict(options)
    svc.update_settings(deck_options=with_deck_options(svc.settings, deck_id, own).deck_options)


def answer(svc: StudyService, clock: Clock, deck: str, card: str, rating: Rating) -> int:
    """Record an answer to a drill card; its log id."""
    question = showing(svc.card(deck, card), 1, "en")
    right = rating is not Rating.AGAIN
    log_id, _ = svc.record_answer(AnsweredCard(deck, card, question, rating, right, clock(),
                                               "y" if right else "n", "true", 1500, {}, "en"))
    return log_id


def test_a_card_at_095_retention_comes_back_sooner_than_at_085(tmp_path: Path) -> None:
    clock = Clock()
    svc = two_decks(tmp_path, clock)
    try:
        set_options(svc, "hard", desired_retention=0.95)
        set_options(svc, "easy", desired_retention=0.85)
        easy_first = {deck: svc.intervals(deck, "alone")[Rating.EASY] for deck in ("hard", "easy")}
        assert easy_first["hard"] < easy_first["easy"]
        due = {}
        for deck in ("hard", "easy"):  # the same answers at the same times in both decks
            answer(svc, clock, deck, "alone", Rating.GOOD)
        clock.advance(minutes=10)
        for deck in ("hard", "easy"):
            answer(svc, clock, deck, "alone", Rating.GOOD)
            due[deck] = svc.answering.due_times([(deck, "alone")])[0]
        assert due["hard"] < due["easy"]
        # the profile's own retention is untouched: a deck without options keeps 0.9
        assert svc.settings.desired_retention == 0.9
    finally:
        svc.close()


def test_a_deck_keeps_to_its_own_daily_new_limit(tmp_path: Path) -> None:
    clock = Clock()
    svc = two_decks(tmp_path, clock)
    try:
        set_options(svc, "hard", new_per_day=1)
        hard = svc.plan(SessionKind.DECK, deck="hard")
        assert [i.stage for i in hard] == [CardStage.NEW]
        assert len(svc.plan(SessionKind.DECK, deck="easy")) == 2  # one per fact, no own limit
        answer(svc, clock, "hard", "alone", Rating.EASY)
        assert [i for i in svc.plan(SessionKind.DECK, deck="hard")
                if i.stage is CardStage.NEW] == []  # today's one new card was answered
    finally:
        svc.close()


def test_a_deck_that_buries_no_new_siblings_asks_them_the_same_day(tmp_path: Path) -> None:
    clock = Clock()
    svc = two_decks(tmp_path, clock)
    try:
        set_options(svc, "easy", bury_new=False)
        for deck in ("hard", "easy"):
            answer(svc, clock, deck, "stacked", Rating.EASY)
        assert "stacked-again" not in {i.card_key for i in svc.plan(SessionKind.DECK,
                                                                     deck="hard")}
        assert "stacked-again" in {i.card_key for i in svc.plan(SessionKind.DECK, deck="easy")}
        # home holds back only hard's sibling for another day (both decks are of post intro)
        intro = next(p for p in svc.overview().posts if p.slug == "intro")
        assert intro.held == 1
    finally:
        svc.close()


def test_a_deck_whose_leech_action_is_suspend_suspends_the_leech(tmp_path: Path) -> None:
    clock = Clock()
    svc = two_decks(tmp_path, clock)
    try:
        set_options(svc, "hard", leech_lapses=1, leech_action="suspend")
        set_options(svc, "easy", leech_lapses=1, leech_action="tag")
        for deck in ("hard", "easy"):
            answer(svc, clock, deck, "alone", Rating.EASY)  # straight to review
        clock.advance(days=30)
        for deck in ("easy", "hard"):
            log_id = answer(svc, clock, deck, "alone", Rating.AGAIN)  # a lapse: a leech
        states = svc.card_states()
        assert states[("hard", "alone")].leech and states[("hard", "alone")].suspended
        assert states[("easy", "alone")].leech and not states[("easy", "alone")].suspended
        assert svc.undo_answer(log_id)  # the lapse taken back: the card is studied again
        states = svc.card_states()
        assert not states[("hard", "alone")].leech and not states[("hard", "alone")].suspended
    finally:
        svc.close()


def test_options_stored_are_read_back_by_a_new_service(tmp_path: Path) -> None:
    clock = Clock()
    svc = two_decks(tmp_path, clock)
    try:
        set_options(svc, "hard", desired_retention=0.95, learning_steps_s=[120])
    finally:
        svc.close()
    again = two_decks(tmp_path, clock)
    try:
        assert again.settings.deck_options["hard"] == {"desired_retention": 0.95,
                                                       "learning_steps_s": [120]}
        assert again.intervals("hard", "alone")[Rating.AGAIN] == timedelta(minutes=2)
        assert again.intervals("easy", "alone")[Rating.AGAIN] == timedelta(minutes=1)
    finally:
        again.close()


def test_a_deck_keeps_to_its_own_daily_review_limit(tmp_path: Path) -> None:
    clock = Clock()
    svc = two_decks(tmp_path, clock)
    try:
        set_options(svc, "hard", reviews_per_day=1)
        for deck in ("hard", "easy"):
            for card in ("alone", "stacked"):
                answer(svc, clock, deck, card, Rating.EASY)  # straight to review
        clock.advance(days=60)  # both long due
        reviews = {deck: [i.card_key for i in svc.plan(SessionKind.REVIEW, deck=deck)]
                   for deck in ("hard", "easy")}
        assert len(reviews["hard"]) == 1 and sorted(reviews["easy"]) == ["alone", "stacked"]
        answer(svc, clock, "hard", reviews["hard"][0], Rating.GOOD)
        assert svc.plan(SessionKind.REVIEW, deck="hard") == []  # its one review is done
    finally:
        svc.close()


def test_home_counts_the_new_cards_each_decks_own_limit_lets_the_session_bring(
        tmp_path: Path) -> None:
    clock = Clock()
    svc = two_decks(tmp_path, clock)
    try:
        decks = {deck_id for deck_id, _, _, _ in svc.overview("en").deck_totals}
        for deck_id in decks:  # every deck studied has a daily new limit of its own
            set_options(svc, deck_id, new_per_day=0)
        set_options(svc, "hard", new_per_day=1)
        assert svc.settings.new_per_day == 20  # the profile's limit: far above the decks'

        def session_new() -> int:
            return sum(1 for item in svc.plan(SessionKind.DUE) if item.stage is CardStage.NEW)

        home = svc.overview("en")
        assert home.new_left == session_new() == 1
        answer(svc, clock, "hard", "alone", Rating.EASY)
        home = svc.overview("en")
        assert home.new_left == session_new() == 0
        assert home.new_limit_reached  # more wait: home offers more today, or practice
        set_options(svc, "easy", new_per_day=2)
        assert svc.overview("en").new_left == session_new() == 2
    finally:
        svc.close()


def test_the_exam_plan_keeps_to_each_decks_own_new_limit(tmp_path: Path) -> None:
    clock = Clock()
    svc = two_decks(tmp_path, clock)
    try:
        decks = {deck_id for deck_id, _, _, _ in svc.overview("en").deck_totals}
        for deck_id in decks:
            set_options(svc, deck_id, new_per_day=0)
        set_options(svc, "hard", new_per_day=1)
        new_left = len(svc.studied_keys())  # nothing answered yet
        plan = exam_plan(svc, (clock() + timedelta(days=2)).date())
        assert plan.days_left == 2
        # one card of hard a day, as the session gives it; every other waits
        assert plan.new_unreached == new_left - 2
    finally:
        svc.close()


def test_load_balancing_weighs_the_decks_of_the_cards_preset(tmp_path: Path) -> None:
    """As Anki's balancer counts the cards of one preset (test_anki_preset_balance.py)."""
    clock = Clock()
    svc = two_decks(tmp_path, clock)
    try:
        per_deck = svc.planner.per_deck
        assert per_deck.balanced_with("hard") == (None, frozenset())  # one profile: all
        set_options(svc, "hard", preset="Hard facts", desired_retention=0.95)
        set_options(svc, "easy", preset="Hard facts", desired_retention=0.85)
        assert per_deck.balanced_with("hard") == (frozenset({"hard", "easy"}), frozenset())
        set_options(svc, "easy", desired_retention=0.85)  # set here: a preset of its own
        assert per_deck.balanced_with("easy") == (frozenset({"easy"}), frozenset())
        assert per_deck.balanced_with("hard") == (frozenset({"hard"}), frozenset())
        # a deck on the profile's options weighs every deck without options of its own
        assert per_deck.balanced_with("intro") == (None, frozenset({"hard", "easy"}))
    finally:
        svc.close()

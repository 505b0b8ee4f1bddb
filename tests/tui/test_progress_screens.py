"""Pilot tests of the progress review: stats, drill-downs, suspending, class report."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from progress_history import make_history
from textual.pilot import Pilot
from textual.widgets import DataTable, Static
from tui_helpers import FIXED_NOW, wait_until

from studyapp.store import open_store
from studyapp.store.progress import Answer, NewState, ensure_profile, record_answer
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.card_detail import CardDetailScreen
from studyapp.tui.screens.class_report import ClassReportScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.post_cards import PostCardsScreen
from studyapp.tui.screens.progress import ProgressScreen
from studyapp.tui.screens.progress_format import duration, percent
from studyapp.tui.widgets.forecast import DueForecast, bar_cells
from studyapp.tui.widgets.heatmap import ReviewHeatmap, level, week_grid

# the histories are studied at fixed UTC moments before FIXED_NOW, on UTC study days:
# in the zone the suite picks for the hour it runs at, some hours gave no leech
pytestmark = pytest.mark.utc_days

AppFactory = Callable[..., StudyApp]


def table(app: StudyApp, selector: str) -> DataTable[Any]:
    return app.screen.query_one(selector, DataTable)


def suspended_in_db(db_path: Path, deck_id: str, card_key: str) -> bool:
    with sqlite3.connect(db_path) as connection:
        row = connection.execute("SELECT suspended FROM card_states WHERE deck_id = ? AND "
                                 "card_key = ?", (deck_id, card_key)).fetchone()
    return bool(row[0])


async def open_progress(pilot: Pilot[Any]) -> ProgressScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                     and app.screen.overview is not None)
    await pilot.press("p")
    await wait_until(pilot, lambda: isinstance(app.screen, ProgressScreen)
                     and app.screen.view is not None)
    screen = app.screen
    assert isinstance(screen, ProgressScreen)
    return screen


# -- pure pieces --------------------------------------------------------------------


@pytest.mark.parametrize(("count", "busiest", "expected"), [
    (0, 10, 0), (1, 10, 1), (3, 10, 2), (5, 10, 2), (8, 10, 4), (10, 10, 4), (1, 1, 4),
    (5, 0, 0),
])
def test_heatmap_shades_in_quarters_of_the_busiest_day(count: int, busiest: int,
                                                       expected: int) -> None:
    assert level(count, busiest) == expected


def test_week_grid_starts_on_monday_and_leaves_days_outside_blank() -> None:
    from datetime import date, timedelta

    first = date(2026, 3, 4)  # a Wednesday
    days = [(first + timedelta(days=i), i) for i in range(10)]
    grid = week_grid(days)
    assert len(grid) == 2
    assert grid[0][0] is None and grid[0][1] is None  # Monday and Tuesday before the range
    assert grid[0][2] == (first, 0)
    assert grid[1][6] is None  # the Sunday after the range


def test_forecast_bars_grow_in_eighths() -> None:
    assert bar_cells(0, 10) == [" "] * 4
    assert bar_cells(10, 10) == ["█"] * 4
    assert bar_cells(5, 10) == [" ", " ", "█", "█"]
    assert bar_cells(1, 100) == [" ", " ", " ", "▁"]  # never invisible


@pytest.mark.parametrize(("ms", "shown"), [(0, "0 s"), (45_000, "45 s"), (720_000, "12 min"),
                                           (11_100_000, "3 h 05 min")])
def test_durations_are_short(ms: int, shown: str) -> None:
    assert duration(ms) == shown


def test_percent_of_nothing_is_a_dash() -> None:
    assert percent(None) == "—"
    assert percent(0.756) == "76%"


# -- the stats screen ---------------------------------------------------------------------


async def test_stats_screen_shows_every_panel(app_factory: AppFactory, db_path: Path) -> None:
    make_history(db_path, days=60, skill=0.5)
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_progress(pilot)
        stats = screen.stats
        assert stats is not None
        assert table(app, "#progress-table").row_count == 12
        assert len(screen.query_one(ReviewHeatmap).days) == 180
        assert len(screen.query_one(DueForecast).days) == 30
        assert sum(n for _, n in screen.query_one(ReviewHeatmap).days) == stats.reviews_total
        summary = str(screen.query_one("#stats-summary", Static).render())
        assert "Streak" in summary and "True retention" in summary and "desired 90%" in summary
        assert table(app, "#weakest-table").row_count == len(stats.weakest) > 0
        assert table(app, "#leeches-table").row_count == len(stats.leeches) > 0
        assert not screen.query_one("#weakest-none").display


async def test_an_empty_profile_shows_none_yet(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_progress(pilot)
        assert screen.query_one("#weakest-none").display
        assert not table(app, "#weakest-table").display
        assert screen.check_action("suspend", ()) is False


async def test_suspend_a_leech_and_resume_it(app_factory: AppFactory, db_path: Path) -> None:
    make_history(db_path, days=60, skill=0.5)
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_progress(pilot)
        assert screen.check_action("suspend", ()) is False  # on the posts table
        leeches = table(app, "#leeches-table")
        leeches.focus()
        await pilot.pause()
        assert screen.check_action("suspend", ()) is True
        card = screen.highlighted_card()
        assert card is not None and card.leech
        key = (card.deck_id, card.card_key)
        await pilot.press("x")
        await wait_until(pilot, lambda: key in screen.suspended)
        assert "suspended" in str(leeches.get_cell_at((0, 3)))
        assert suspended_in_db(db_path, *key)
        await pilot.press("x")
        await wait_until(pilot, lambda: key not in screen.suspended)
        assert "suspended" not in str(leeches.get_cell_at((0, 3)))
        assert not suspended_in_db(db_path, *key)
        assert leeches.cursor_row == 0


async def test_enter_drills_down_from_post_to_card(app_factory: AppFactory,
                                                   db_path: Path) -> None:
    # the history the stats tests use (made once per process): any with answered h200 cards
    make_history(db_path, days=60, skill=0.5)
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_progress(pilot)
        assert screen.stats is not None
        row = next(i for i, p in enumerate(screen.stats.posts) if p.slug == "h200")
        table(app, "#progress-table").move_cursor(row=row)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PostCardsScreen)
                         and app.screen.data is not None)
        cards_screen = app.screen
        assert isinstance(cards_screen, PostCardsScreen) and cards_screen.slug == "h200"
        assert table(app, "#cards-table").row_count == len(cards_screen.cards) > 0
        studied = next(i for i, c in enumerate(cards_screen.cards) if c.stored)
        table(app, "#cards-table").move_cursor(row=studied)
        await pilot.press("x")
        await wait_until(pilot, lambda: cards_screen.cards[studied].suspended)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, CardDetailScreen)
                         and app.screen.loaded)
        detail = app.screen
        assert isinstance(detail, CardDetailScreen) and detail.detail is not None
        assert detail.detail.card.suspended
        assert "suspended" in str(detail.query_one("#card-facts", Static).render())
        await pilot.press("x")  # resumed from the detail as well
        await wait_until(pilot, lambda: detail.detail is not None
                         and not detail.detail.card.suspended)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is cards_screen
                         and not cards_screen.cards[studied].suspended)


async def test_a_card_never_answered_has_nothing_to_suspend(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_progress(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PostCardsScreen)
                         and app.screen.data is not None)
        assert app.screen.check_action("suspend", ()) is False
        assert app.screen.check_action("open", ()) is True
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, CardDetailScreen)
                         and app.screen.loaded)
        assert app.screen.check_action("suspend", ()) is False
        assert "Never answered" in str(app.screen.query_one("#card-facts", Static).render())


async def test_card_detail_shows_stored_answers_as_plain_text(app_factory: AppFactory,
                                                              db_path: Path) -> None:
    store = open_store(f"sqlite:///{db_path}")
    profile = ensure_profile(store, "default", {}, FIXED_NOW)
    when = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    record_answer(store, profile.id, Answer(
        "post-h200", "gen-[bold]", "h200", "kv", NewState(2, None, 3.0, 6.5, FIXED_NOW, when,
                                                          1, 0, False),
        when, 3, True, 4000, 11, {"layers": 80, "note": "[@click=app.quit]"},
        "How big is [red]the[/red] cache? [@click=app.quit]", "[b]12 GB", "12 GB"))
    store.close()
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.push_screen(CardDetailScreen("post-h200", "gen-[bold]"))
        await wait_until(pilot, lambda: isinstance(app.screen, CardDetailScreen)
                         and app.screen.loaded)
        answers = str(app.screen.query_one("#card-answers", Static).render())
        assert "How big is [red]the[/red] cache? [@click=app.quit]" in answers
        assert "layers = 80, note = [@click=app.quit]" in answers
        assert "[b]12 GB" in answers
        title = app.screen.query_one(".screen-title", Static).render()
        assert "post-h200/gen-[bold]" in str(title)
        await pilot.pause()
        assert app.is_running


async def test_class_report_over_every_profile(app_factory: AppFactory, db_path: Path) -> None:
    make_history(db_path, "ana", days=20, skill=0.9)
    make_history(db_path, "ben", days=20, skill=0.4)
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_progress(pilot)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ClassReportScreen)
                         and app.screen.report is not None)
        report = app.screen.report  # type: ignore[attr-defined]
        names = {s.name for s in report.students}
        assert {"ana", "ben", "default"} <= names
        assert table(app, "#class-students").row_count == len(report.students)
        blocks = list(app.screen.query(".mastery-block").results(DataTable))
        # mastery turned round: a row per post, a column per student (after the post column)
        assert sum(len(b.columns) - 1 for b in blocks) == len(report.students)
        assert all(b.row_count == len(app.screen.posts) for b in blocks)  # type: ignore[attr-defined]
        assert table(app, "#class-hardest").row_count == len(report.hardest) > 0
        assert table(app, "#class-overdue").row_count == len(report.most_overdue)
        assert not app.screen.query_one("#class-empty").display
        # item analysis: the reteach list names cards with their prompt text
        reteach = str(app.screen.query_one("#class-reteach").render())
        assert report.items
        if report.reteach:
            first = report.reteach[0]
            assert first.card_key in reteach and first.prompt[:20] in reteach
        wrong = str(app.screen.query_one("#class-wrong").render())
        assert any(i.card_key in wrong for i in report.items if i.wrong) or not any(
            i.wrong for i in report.items)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ProgressScreen))


async def test_the_class_screen_leaves_a_profile_out_and_remembers_it(
        app_factory: AppFactory, db_path: Path) -> None:
    """As ``class report --exclude default``: the instructor's own profile left out with x,
    still out the next time the app opens, everyone back with a."""
    # the class report test's histories (made once per process); only the names matter here
    make_history(db_path, "ana", days=20, skill=0.9)
    make_history(db_path, "ben", days=20, skill=0.4)

    async def open_class(pilot: Pilot[Any]) -> ClassReportScreen:
        await open_progress(pilot)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ClassReportScreen)
                         and pilot.app.screen.report is not None)
        return pilot.app.screen  # type: ignore[return-value]

    def names(screen: ClassReportScreen) -> list[str]:
        assert screen.report is not None
        return [s.name for s in screen.report.students]

    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_class(pilot)
        assert names(screen) == ["ana", "ben", "default"]
        students = table(app, "#class-students")
        students.move_cursor(row=1)
        await pilot.press("x")
        await wait_until(pilot, lambda: names(screen) == ["ana", "default"])
        # the highlight stays on the same line: x again leaves out the one now there
        assert table(app, "#class-students").cursor_row == 1
        await pilot.press("x")
        await wait_until(pilot, lambda: names(screen) == ["ana"])
        await pilot.press("a")
        await wait_until(pilot, lambda: names(screen) == ["ana", "ben", "default"])
        students = table(app, "#class-students")
        students.move_cursor(row=2)
        await pilot.press("x")
        await wait_until(pilot, lambda: names(screen) == ["ana", "ben"])
        assert table(app, "#class-students").row_count == 2
        title = str(screen.query_one("#class-title").render())
        assert "2 students" in title and "left out: default" in title
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_class(pilot)
        assert names(screen) == ["ana", "ben"]
        await pilot.press("a")
        await wait_until(pilot, lambda: names(screen) == ["ana", "ben", "default"])
        assert "left out" not in str(screen.query_one("#class-title").render())
        assert app.preferences.class_left_out == ()


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (120, 30)])
async def test_class_report_fits_the_width_without_scrolling_sideways(
        app_factory: AppFactory, db_path: Path, size: tuple[int, int]) -> None:
    class_names = ["ana", "ben", "carolina-fernandez-lopez", "dmitri", "eun-ji"]
    for n, name in enumerate(class_names):
        make_history(db_path, name, days=10, skill=0.5 + n / 10, per_day=4)
    app = app_factory()
    async with app.run_test(size=size) as pilot:
        await open_progress(pilot)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ClassReportScreen)
                         and app.screen.report is not None)
        await pilot.pause()
        screen = app.screen
        tables = list(screen.query(DataTable).results(DataTable))
        assert len(tables) >= 4
        for shown in tables:
            assert shown.max_scroll_x == 0, (shown.id, shown.classes, shown.virtual_size)
        assert screen.query_one("#class-body").max_scroll_x == 0
        heads = [str(column.label) for block in screen.query(".mastery-block").results(DataTable)
                 for column in list(block.columns.values())[1:]]
        assert heads == ["ana", "ben", "carolina-fe…", "default", "dmitri", "eun-ji"]
        hardest = table(app, "#class-hardest")
        assert [str(c.label) for c in hardest.columns.values()][1:3] == ["Students", "First try"]
        assert ("post" in hardest.columns) is (size[0] >= 80)  # the post goes when narrow
        await pilot.resize_terminal(60, 20)  # the tables follow the terminal's width
        await wait_until(pilot, lambda: screen.laid_out_for == 56)  # type: ignore[attr-defined]
        await pilot.pause()
        for shown in screen.query(DataTable).results(DataTable):
            assert shown.max_scroll_x == 0, (shown.id, shown.classes, shown.virtual_size)


async def test_palette_offers_the_class_report_and_the_row_actions(
        app_factory: AppFactory, db_path: Path) -> None:
    make_history(db_path, days=60, skill=0.5)
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_progress(pilot)
        titles = [command.title for command in app.get_system_commands(screen)]
        assert "Class report" in titles
        assert any(title.startswith("Cards of post:") for title in titles)
        table(app, "#weakest-table").focus()
        await pilot.pause()
        titles = [command.title for command in app.get_system_commands(screen)]
        assert any(title.startswith("Suspend card:") for title in titles)
        assert any(title.startswith("Card details:") for title in titles)
        home = app.screen_stack[0]
        assert "Class report" in [c.title for c in app.get_system_commands(home)]


async def test_spanish_labels(app_factory: AppFactory, db_path: Path) -> None:
    make_history(db_path, days=60, skill=0.5)  # the stats tests' history: labels need any
    app = app_factory(lang="es")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_progress(pilot)
        summary = str(screen.query_one("#stats-summary", Static).render())
        assert "Racha" in summary and "Retención real" in summary
        header = [str(column.label) for column in table(app, "#progress-table").columns.values()]
        assert "Dominio" in header
        footer_keys = {b.binding.description for b in screen.active_bindings.values()}
        assert "Abrir" in footer_keys and "Clase" in footer_keys


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)])
async def test_layout_fits_small_terminals_and_resizes(app_factory: AppFactory, db_path: Path,
                                                       size: tuple[int, int]) -> None:
    # the stats tests' history (made once per process); the heat map always spans 180 days
    make_history(db_path, days=60, skill=0.5)
    app = app_factory()
    async with app.run_test(size=size) as pilot:
        screen = await open_progress(pilot)
        heatmap = screen.query_one(ReviewHeatmap)
        await pilot.pause()
        assert heatmap.size.width <= size[0]
        lines = str(heatmap.render()).splitlines()
        assert len(lines) == 9 and max(len(line) for line in lines) <= heatmap.size.width
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        lines = str(heatmap.render()).splitlines()
        assert max(len(line) for line in lines) <= heatmap.size.width
        forecast = str(screen.query_one(DueForecast).render()).splitlines()
        assert max(len(line) for line in forecast) <= screen.query_one(DueForecast).size.width


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_weak_cards_read_as_prompts_at_80_columns(app_factory: AppFactory, db_path: Path,
                                                        lang: str) -> None:
    """Each weak card is the prompt it last showed, cut to fit, never "deck/card-id"; the
    table needs no sideways scroll at 80 columns; the mastery line says what mastery is,
    and the families table shows the same mastered share as stats."""
    make_history(db_path, days=60, skill=0.5)
    app = app_factory(lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_progress(pilot)
        assert screen.stats is not None and screen.stats.weakest
        weakest = table(app, "#weakest-table")
        for row, line in enumerate(screen.stats.weakest):
            shown = str(weakest.get_cell_at((row, 0)))
            assert line.prompt and " ".join(line.prompt.split()).startswith(shown.rstrip("…"))
            assert f"{line.deck_id}/" not in shown
        assert weakest.virtual_size.width <= 80 - 2  # the screen's padding
        ordered = [(-c.lapses, c.accuracy or 0.0) for c in screen.stats.weakest]
        assert ordered == sorted(ordered)
        means = str(screen.query_one("#mastery-means", Static).render())
        assert "21" in means and ("90%" in means or "90 %" in means)
        families = table(app, "#families-table")
        for row, family in enumerate(screen.stats.families):
            assert str(families.get_cell_at((row, 3))) == percent(family.mastery)
        posts = table(app, "#progress-table")
        for row, post in enumerate(screen.stats.posts):
            assert str(posts.get_cell_at((row, 4))) == percent(post.mastery)


async def test_home_post_and_progress_show_one_mastery(app_factory: AppFactory,
                                                       db_path: Path) -> None:
    """The figure on a post's home line, on the post screen and on the progress screen is
    the same number: ``progress.mastery_share`` of ``progress.mastered_per_place``."""
    from studyapp.tui.screens.post import PostScreen
    from studyapp.tui.widgets.post_row import PostRow

    # the stats tests' history (made once per process): h200 shows 24% mastered, a figure
    # that can differ between the screens (neither none nor all)
    make_history(db_path, days=60, skill=0.5)
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        row = app.screen.query_one("#post-h200", PostRow)
        await wait_until(pilot, lambda: row.mastered is not None)
        on_home = row.mastery_text()
        assert on_home and on_home in row.counts_text()
        screen = await open_progress(pilot)
        assert screen.stats is not None
        h200 = next(p for p in screen.stats.posts if p.slug == "h200")
        assert h200.review > 0
        assert percent(h200.mastery) == on_home
        row_index = [p.slug for p in screen.stats.posts].index("h200")
        assert str(table(app, "#progress-table").get_cell_at((row_index, 4))) == on_home
        app.open_post("h200")
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen)
                         and bool(app.screen.query("#post-mastery"))
                         and "%" in str(app.screen.query_one("#post-mastery").render()))
        assert str(app.screen.query_one("#post-mastery").render()) == f"Mastery {on_home}"

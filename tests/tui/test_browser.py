"""The card browser in the app: live search, marks from the keyboard, the edit
loop through a fake ``$EDITOR``, and snapshots at 80x24 and 60x20 in both
languages. The history is two months of study on the fixed snapshot deck."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from progress_history import make_history
from textual.pilot import Pilot
from textual.widgets import Input, Static
from tui_helpers import fixed_clock, wait_until

from studyapp import locations
from studyapp.browse import BrowsedCard, CardBrowser
from studyapp.study import StudyConfig, StudyService
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.browser import BrowserScreen
from studyapp.tui.screens.home import HomeScreen

SIZE = (80, 24)
NARROW = (60, 20)
SNAPSHOT_DECKS = Path(__file__).parent / "snapshot_decks"

AppFactory = Callable[..., StudyApp]
SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def fixed_world(monkeypatch: pytest.MonkeyPatch, db_path: Path) -> Iterator[None]:
    monkeypatch.setattr(locations, "builtin_decks_dir", lambda: SNAPSHOT_DECKS)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    make_history(db_path, days=30, skill=0.6, per_day=6)
    try:
        yield
    finally:
        monkeypatch.undo()
        time.tzset()


def stored(db_path: Path, query: str) -> list[BrowsedCard]:
    """What the database says now, through a service of its own."""
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}", profile="default",
                                       lang="en", clock=fixed_clock))
    try:
        return CardBrowser(service).search(query)
    finally:
        service.close()


async def open_browser(pilot: Pilot[Any], query: str | None = None) -> BrowserScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                     and app.screen.overview is not None)
    await pilot.press("b")
    await wait_until(pilot, lambda: isinstance(app.screen, BrowserScreen)
                     and app.screen.searches > 0 and app.screen.view is not None)
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    if query is not None:
        done = screen.searches
        screen.query_one("#browser-search", Input).value = query
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.searches > done)
        await wait_until(pilot, lambda: not screen.cards or (
            screen.view is not None and screen.view.card.key == screen.cards[0].key))
    await pilot.pause(0.1)
    return screen


async def on_browser(pilot: Pilot[Any]) -> None:
    await open_browser(pilot, "post:h200")
    await pilot.wait_for_scheduled_animations()
    await pilot.pause(0.2)


async def on_bad_query(pilot: Pilot[Any]) -> None:
    await open_browser(pilot, "post:h200 lapses>lots")
    await pilot.pause(0.2)


class TestBrowserSnapshots:
    @pytest.mark.parametrize("lang", ["en", "es"])
    def test_browser(self, lang: str, app_factory: AppFactory,
                     snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(lang=lang), terminal_size=SIZE, run_before=on_browser)

    @pytest.mark.parametrize("lang", ["en", "es"])
    def test_browser_narrow(self, lang: str, app_factory: AppFactory,
                            snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(lang=lang), terminal_size=NARROW,
                            run_before=on_browser)

    def test_bad_query(self, app_factory: AppFactory, snap_compare: SnapCompare) -> None:
        assert snap_compare(app_factory(), terminal_size=SIZE, run_before=on_bad_query)


async def test_search_lists_cards_and_shows_the_highlighted_one(
        app_factory: AppFactory) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot)
        every = len(screen.cards)
        assert every == len(stored_all := [c.key for c in screen.cards]) and stored_all
        screen = await open_browser_query(pilot, screen, "usable memory")
        assert [c.card for c in screen.cards] == ["capacity"]
        assert screen.view is not None
        text = str(screen.query_one("#browser-card", Static).render())
        assert "How much usable memory does an H200 SXM have?" in text
        assert "snapshot_decks/h200.yaml:" in text
        assert "Past answers" in text and "Stability" in text


async def open_browser_query(pilot: Pilot[Any], screen: BrowserScreen,
                             query: str) -> BrowserScreen:
    done = screen.searches
    screen.query_one("#browser-search", Input).focus()
    screen.query_one("#browser-search", Input).value = query
    await pilot.press("enter")
    await wait_until(pilot, lambda: screen.searches > done)
    await wait_until(pilot, lambda: not screen.cards or (
        screen.view is not None and screen.view.card.key == screen.cards[0].key))
    return screen


async def test_keys_suspend_bury_flag_and_reset(app_factory: AppFactory,
                                                db_path: Path) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot, "card:capacity")
        assert screen.highlighted is not None and screen.highlighted.reps > 0

        async def press(key: str) -> None:
            done = screen.searches
            await pilot.press(key)
            await wait_until(pilot, lambda: screen.searches > done)

        await press("x")
        assert [c.card for c in stored(db_path, "is:suspended")] == ["capacity"]
        await press("x")
        assert stored(db_path, "is:suspended") == []
        await press("z")
        assert [c.card for c in stored(db_path, "is:buried")] == ["capacity"]
        assert "⤓" in screen.state_cell(screen.cards[0]).plain
        await press("3")
        assert [c.card for c in stored(db_path, "flag:3")] == ["capacity"]
        await press("3")  # the same flag again clears it
        assert stored(db_path, "is:flagged") == []
        await press("R")
        after = stored(db_path, "card:capacity")[0]
        assert after.state == "new" and after.reps == 0


async def test_bad_query_points_at_the_column(app_factory: AppFactory) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot, "post:h200 lapses>lots")
        error = screen.query_one("#browser-error", Static)
        assert error.display
        shown = str(error.render())
        assert "Column 18: lapses>lots" in shown
        assert "post:h200 lapses>lots\n" + " " * 17 + "^" in shown


def fake_editor(tmp_path: Path, name: str, body: str) -> str:
    """A script that edits the file it is given (``+LINE PATH``), like vi or nano."""
    script = tmp_path / f"{name}.py"
    script.write_text("import sys\nfrom pathlib import Path\n"
                      "line = int(sys.argv[1].lstrip('+'))\npath = Path(sys.argv[2])\n"
                      "lines = path.read_text(encoding='utf-8').splitlines(keepends=True)\n"
                      + body +
                      "path.write_text(''.join(lines), encoding='utf-8')\n", encoding="utf-8")
    return f"{sys.executable} {script}"


def use_editor(monkeypatch: pytest.MonkeyPatch, editor: str) -> None:
    """``$EDITOR`` is ``editor`` (and no ``$VISUAL`` comes first)."""
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)


async def test_edit_loop_changes_the_card_live_and_keeps_progress(
        app_factory: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the card's own line is "- id: capacity"; its English prompt is three lines below
    editor = fake_editor(tmp_path, "fix", (
        "assert 'id: capacity' in lines[line - 1], lines[line - 1]\n"
        "lines[line + 3] = lines[line + 3].replace('How much usable memory',"
        " 'How much usable HBM')\n"))
    use_editor(monkeypatch, editor)
    async with app_factory().run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot, "card:capacity")
        reps = screen.cards[0].reps
        done = screen.searches
        await pilot.press("e")
        await wait_until(pilot, lambda: screen.searches > done and screen.view is not None)
        await wait_until(pilot, lambda: screen.view is not None
                         and screen.view.card.question.startswith("How much usable HBM"))
        assert screen.cards[0].reps == reps  # progress kept: same deck and card ids
        copy = locations.user_decks_dir() / "snapshot-h200.yaml"
        assert "How much usable HBM" in copy.read_text(encoding="utf-8")
        assert "How much usable memory" in (SNAPSHOT_DECKS / "h200.yaml").read_text(
            encoding="utf-8")  # the built-in file is untouched
        assert screen.problems == ()
        messages = [n.message for n in pilot.app._notifications]
        assert any("reloaded" in m for m in messages)


async def test_a_broken_edit_shows_path_line_col_and_keeps_the_card(
        app_factory: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    editor = fake_editor(tmp_path, "break", (
        "lines[line] = lines[line].replace('type: choice', 'type: choise')\n"))
    use_editor(monkeypatch, editor)
    async with app_factory().run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot, "card:capacity")
        done = screen.searches
        await pilot.press("e")
        await wait_until(pilot, lambda: screen.searches > done and bool(screen.problems))
        copy = locations.user_decks_dir() / "snapshot-h200.yaml"
        assert screen.problems[0].startswith(f"{copy}:")
        line, col = screen.problems[0][len(str(copy)) + 1:].split(":")[:2]
        assert int(line) == screen.cards[0].line + 1 and int(col) > 1
        await wait_until(pilot, lambda: screen.view is not None)
        text = str(screen.query_one("#browser-card", Static).render())
        assert screen.problems[0] in text
        assert screen.cards[0].question == "How much usable memory does an H200 SXM have?"


BREAK_THEN_FIX = """\
log = Path(LOG)
log.write_text((log.read_text() if log.exists() else "") + sys.argv[1] + "\\n")
if "type: choise" in "".join(lines):  # reopened at the problem's line: fix it
    assert "type: choise" in lines[line - 1], lines[line - 1]
    lines[line - 1] = lines[line - 1].replace("choise", "choice")
    prompt = line + 2
    lines[prompt] = lines[prompt].replace("How much usable memory", "How much usable HBM")
else:  # first opening, at the card: a typo in its type
    lines[line] = lines[line].replace("type: choice", "type: choise")
"""


async def test_a_failing_edit_reopens_the_editor_at_its_line_then_the_fix_is_live(
        app_factory: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = tmp_path / "calls.txt"
    use_editor(monkeypatch, fake_editor(
        tmp_path, "break-then-fix", BREAK_THEN_FIX.replace("LOG", repr(str(calls)))))
    async with app_factory().run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot, "card:capacity")
        card_line = screen.cards[0].line
        await pilot.press("e")
        await wait_until(pilot, lambda: screen.view is not None
                         and screen.view.card.question.startswith("How much usable HBM"))
        # reopened at the problem's line, below the two "# studyapp:" lines that name it
        assert calls.read_text().split() == [f"+{card_line}", f"+{card_line + 1 + 2}"]
        assert screen.problems == ()
        copy = locations.user_decks_dir() / "snapshot-h200.yaml"
        assert "type: choise" not in copy.read_text(encoding="utf-8")


async def test_in_a_browser_tab_the_editor_is_refused_and_never_started(
        app_factory: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "editor-ran"
    editor = fake_editor(tmp_path, "spy", f"Path({str(marker)!r}).write_text('ran')\n")
    use_editor(monkeypatch, editor)
    monkeypatch.setattr(StudyApp, "is_web", property(lambda self: True))
    async with app_factory().run_test(size=SIZE) as pilot:
        await open_browser(pilot, "card:capacity")
        await pilot.press("e")
        await pilot.pause(0.5)
        messages = [n.message for n in pilot.app._notifications]
        assert any("Editing needs a terminal" in m for m in messages)
    assert not marker.exists()

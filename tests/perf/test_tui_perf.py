"""Benchmarks: a key answered to its feedback painted, Enter to the next question
painted, each against a bare Textual app doing the equivalent update, side by side.

Both apps run headless under a Pilot at the same size. A step is timed from the
key event posted to the app (as a terminal's driver posts it) until the frame
after which the screen no longer changes: every frame the app writes is kept and
played back afterwards on a model of the terminal, cell by cell, and the step
ends at the first frame that shows what the screen finally shows. (Stopping at
the first frame after the app's state changed, as this benchmark once did, can
stop at a frame drawn before the new layout reached the screen, or miss the
frames that follow.) Figures are medians over ROUNDS.

The bare app is the floor for the same visible change, written the plainest
way Textual allows: the same card, choice list, feedback lines, four rating
buttons under the card and a key footer, all composed once; a key hides the
choices and fills in and shows the feedback and the ratings, Enter brings the
next prompt and choices back. It has no database, grading or scheduling. The
one-line update of a bare app is reported beside it.

Run with ``python -m pytest tests/perf/test_tui_perf.py -s``.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from rich.segment import ControlType, Segment
from test_stats_perf import figure, report
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Label, OptionList, Static

from studyapp.config import Settings
from studyapp.tui.app import StudyApp, make_app
from studyapp.tui.screens.question import QuestionScreen

ROUNDS = int(os.environ.get("TUI_ROUNDS", "15"))
SIZE = (100, 30)
QUIET_S = 0.15
"""A step is over once no frame has been written for this long."""
POLL_S = 0.001
"""How often a step looks whether the app has changed state. Not 0: spinning the
event loop keeps the main thread holding the GIL, so the study app's service
thread waited up to the interpreter's switch interval (about 4 ms of each step
here) for work a terminal's idle loop never delays. The step is timed by the
frames written, not by when this poll notices."""
NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
DECK = "deck: tui-bench\ntitle: TUI benchmark\nlanguage: en\npost: h200\ncards:\n" + "".join(
    f"  - id: c{i}\n    type: choice\n    prompt: \"Which memory does chip {i} use?\"\n"
    f"    choices: [HBM3 {i}, HBM3e {i}, GDDR7 {i}, LPDDR5X {i}]\n    answer: HBM3e {i}\n"
    f"    explanation: \"HBM3e, as on the H200 (chip {i}).\"\n"
    for i in range(ROUNDS + 5))

Cell = tuple[str, object]


class Frames:
    """The frames an app writes, with when; played back on a model of the terminal."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.written: list[tuple[float, Any]] = []
        width, height = SIZE
        self.screen: list[list[Cell]] = [[(" ", None)] * width for _ in range(height)]
        display = app._display

        def record(screen: Any, update: Any) -> None:
            if update is not None and not app._batch_count:
                self.written.append((time.perf_counter(), update))
            display(screen, update)

        app._display = record  # type: ignore[method-assign]

    def _apply(self, update: Any) -> None:
        """Write one frame's segments where its cursor moves put them."""
        console = self.app.console
        x = y = 0
        for segment in console.render(update, console.options):
            assert isinstance(segment, Segment)
            if segment.control:
                for code in segment.control:
                    if code[0] is ControlType.CURSOR_MOVE_TO:
                        x, y = int(code[1]), int(code[2])  # type: ignore[misc]
                continue
            if segment.text == "\n":
                continue
            row = self.screen[y] if 0 <= y < len(self.screen) else None
            for char in segment.text:
                if row is not None and 0 <= x < len(row):
                    row[x] = (char, segment.style)
                x += 1

    async def step(self, start: float, done: Callable[[], object], timeout: float = 15) -> float:
        """Milliseconds from ``start`` to the first frame showing the settled screen.

        Settled: no frame for QUIET_S, and the frames played back show what a full
        render of the screen shows (else a frame is still to come: wait for it).
        """
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {done}")
            await asyncio.sleep(POLL_S)
        shown: list[tuple[float, list[list[Cell]]]] = []
        while True:
            waited = time.perf_counter()
            while time.perf_counter() - max([waited] + [w for w, _ in self.written[-1:]]) < QUIET_S:
                await asyncio.sleep(0.01)
            for when, update in self.written:
                self._apply(update)
                shown.append((when, [row[:] for row in self.screen]))
            self.written.clear()
            stale = self.stale()
            if not stale:
                break
            if time.monotonic() > end:
                raise AssertionError(f"the frames written left stale cells: {stale[:5]}")
        if not shown:
            raise AssertionError("no frame was written")
        first = len(shown) - 1
        while first > 0 and shown[first - 1][1] == shown[-1][1]:
            first -= 1  # the frames that only drew again what was already there
        return (shown[first][0] - start) * 1000

    def stale(self) -> list[tuple[int, int, Cell, Cell]]:
        """Cells where the frames played back differ from a full render of the screen."""
        full: list[list[Cell]] = []
        for strip in self.app.screen._compositor.render_strips():
            row: list[Cell] = []
            for segment in strip:
                row.extend((char, segment.style) for char in segment.text)
            full.append(row)
        return [(y, x, full[y][x], self.screen[y][x]) for y in range(len(full))
                for x in range(len(full[y])) if full[y][x] != self.screen[y][x]]


def press(app: App[Any], key: str) -> None:
    """The key event a terminal driver posts for ``key``."""
    app.post_message(events.Key(key, key if len(key) == 1 else None))


async def quiet(frames: Frames) -> None:
    """Let the app draw everything it has to before the next step starts."""
    while True:
        await asyncio.sleep(QUIET_S)
        if not frames.written or time.perf_counter() - frames.written[-1][0] >= QUIET_S:
            break
    for _, update in frames.written:
        frames._apply(update)
    frames.written.clear()


# -- the floors --------------------------------------------------------------------------


class BareLine(App[None]):
    """A Textual app that replaces one line of text on a key."""

    def __init__(self) -> None:
        super().__init__()
        self.shown = 0

    def compose(self) -> ComposeResult:
        yield Static("Question 0", id="line")

    def on_key(self) -> None:
        self.shown += 1
        self.query_one("#line", Static).update(f"Feedback {self.shown}: right, HBM3e.")


class BareStudy(App[None]):
    """The same visible change as a study step, the plainest way: built once, then updated."""

    CSS = """
    #card { padding: 1 2 0 2; height: 1fr; }
    #prompt { margin-bottom: 1; text-style: bold; }
    #choices { height: auto; }
    #feedback { display: none; height: auto; margin-top: 1; padding: 0 1;
                border-left: thick $success; }
    #bar { display: none; height: auto; padding: 0 2 0 3; border-top: solid $panel; }
    #bar Horizontal { height: auto; }
    #bar Button { margin-right: 2; min-width: 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+z", "nothing", "Undo"),
                                             Binding("escape", "nothing", "End")]

    def __init__(self) -> None:
        super().__init__()
        self.shown = 0
        self.phase = "asking"

    def compose(self) -> ComposeResult:
        yield Label("[1/20] NVIDIA H200 · Multiple choice", id="head")
        with VerticalScroll(id="card"):
            yield Static(self.prompt(), id="prompt")
            yield OptionList(*self.choices(), id="choices")
            yield Label("Type 1-4 or a-d.", id="hint")
            with Vertical(id="feedback"):
                yield Label("", id="verdict")
                yield Static("", id="comparison")
                yield Label("Explanation")
                yield Static("", id="explanation")
        with Vertical(id="bar"), Horizontal():
            for n, name in enumerate(("I guessed", "Hard", "Good", "Easy"), start=1):
                yield Button(f"{n} {name}", id=f"r{n}", compact=True)
        yield Footer()

    def prompt(self) -> str:
        return f"Which memory does chip {self.shown} use?"

    def choices(self) -> list[str]:
        return [f"{n}) {name} {self.shown}"
                for n, name in enumerate(("HBM3", "HBM3e", "GDDR7", "LPDDR5X"), start=1)]

    def on_mount(self) -> None:
        self.query_one("#choices").focus()

    def on_key(self, event: events.Key) -> None:
        if self.phase == "asking" and event.key == "b":
            self.phase = "feedback"
            self.query_one("#verdict", Label).update("Right")
            self.query_one("#comparison", Static).update(
                f"Your answer: 2) HBM3e {self.shown}\nExpected: 2) HBM3e {self.shown}")
            self.query_one("#explanation", Static).update(f"HBM3e, as on the H200 ({self.shown}).")
            for n in range(1, 5):
                self.query_one(f"#r{n}", Button).label = f"{n} rating {self.shown}d"
            self.query_one("#choices").display = False
            self.query_one("#hint").display = False
            self.query_one("#feedback").display = True
            self.query_one("#bar").display = True
            self.query_one("#r3").focus()
        elif self.phase == "feedback" and event.key == "enter":
            event.stop()
            self.phase = "asking"
            self.shown += 1
            self.query_one("#prompt", Static).update(self.prompt())
            self.query_one("#choices", OptionList).set_options(self.choices())
            self.query_one("#choices").display = True
            self.query_one("#hint").display = True
            self.query_one("#feedback").display = False
            self.query_one("#bar").display = False
            self.query_one("#choices").focus()

    def action_nothing(self) -> None:
        """Keys for the footer to show."""


async def bare_line_steps(rounds: int) -> list[float]:
    app = BareLine()
    times: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        frames = Frames(app)
        await pilot.pause()
        await quiet(frames)
        for _ in range(rounds):
            before = app.shown
            start = time.perf_counter()
            press(app, "a")
            times.append(await frames.step(start, lambda b=before: app.shown > b))  # type: ignore[misc]
    return times


async def bare_study_steps(rounds: int) -> tuple[list[float], list[float]]:
    app = BareStudy()
    feedback: list[float] = []
    following: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        frames = Frames(app)
        await pilot.pause()
        await quiet(frames)
        for _ in range(rounds):
            start = time.perf_counter()
            press(app, "b")
            feedback.append(await frames.step(start, lambda: app.phase == "feedback"))
            start = time.perf_counter()
            press(app, "enter")
            following.append(await frames.step(start, lambda: app.phase == "asking"))
    return feedback, following


# -- the study app ---------------------------------------------------------------------------


def _question(app: StudyApp) -> QuestionScreen | None:
    return app.screen if isinstance(app.screen, QuestionScreen) else None


def _phase(app: StudyApp) -> str | None:
    screen = _question(app)
    return screen.phase if screen is not None else None


async def study_steps(deck: Path, db: Path, rounds: int) -> tuple[list[float], list[float]]:
    """(key → feedback, Enter → next question) times in ms over ``rounds`` questions."""
    settings = Settings(db_url=f"sqlite:///{db}", profile="default", lang="en")
    app = make_app(settings, study={"deck": str(deck)}, clock=lambda: NOW, seed=7)
    feedback: list[float] = []
    following: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        frames = Frames(app)
        await pilot.pause()
        await frames.step(time.perf_counter(), lambda: _phase(app) == "asking", timeout=60)
        for _ in range(rounds):
            screen = _question(app)
            assert screen is not None and screen.presented is not None
            index = screen.presented.question.answer_index
            assert index is not None
            start = time.perf_counter()
            press(app, "abcdef"[index])
            feedback.append(await frames.step(start, lambda: _phase(app) == "feedback"))
            shown = screen.presented
            start = time.perf_counter()
            press(app, "enter")
            following.append(await frames.step(
                start, lambda s=shown: _phase(app) == "asking"  # type: ignore[misc]
                and _question(app) is not None
                and _question(app).presented is not s))  # type: ignore[union-attr]
    return feedback, following


def test_feedback_and_next_against_a_bare_app(tmp_path: Path) -> None:
    deck = tmp_path / "tui-bench.yaml"
    deck.write_text(DECK, encoding="utf-8")
    line = asyncio.run(bare_line_steps(ROUNDS))
    bare_feedback, bare_next = asyncio.run(bare_study_steps(ROUNDS))
    feedback, following = asyncio.run(study_steps(deck, tmp_path / "tui.sqlite3", ROUNDS))
    median = statistics.median
    report(f"tui: key -> feedback median {median(feedback):.1f} ms, "
           f"Enter -> next median {median(following):.1f} ms; bare Textual app, same change: "
           f"{median(bare_feedback):.1f} ms and {median(bare_next):.1f} ms; one line replaced: "
           f"{median(line):.1f} ms ({ROUNDS} rounds, {SIZE}, to the settled frame)")
    figure("feedback-ratio", median(feedback) / median(bare_feedback), "x", "<= 2x")
    figure("next-ratio", median(following) / median(bare_next), "x", "<= 2x")
    assert len(feedback) == len(following) == ROUNDS

"""The card browser: search every card, act on it, and fix it where it is written.

The search field takes the same language as ``studyapp cards`` and results
follow as you type. The table lists questions (a template shows a sample
instance); the pane below shows the highlighted card in full with its
memory state and every past answer. ``e`` opens the card's YAML in
``$EDITOR`` at its line (a copy of the file the deck was added from, when
known); on return the copy is validated: a good one is saved and the card is
live at once with its progress, one with problems reopens the editor at the
first problem's line, until it validates or the edit is given up (an empty
save, or no change), and the file keeps its last good text. Deck text is never markup.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.timer import Timer
from textual.widgets import DataTable, Input, Label, Static

from studyapp.text import visible
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.screens.card_detail import RATINGS, local_time, params_text
from studyapp.tui.text import fit
from studyapp.tui.widgets.footer import SteadyFooter
from studyapp.tui.widgets.row_table import PageTable

if TYPE_CHECKING:
    from studyapp.browse import BrowsedCard, CardView, Reloaded
    from studyapp.decks.editing import EditPlan

CSS = Path(__file__).parent / "browser.tcss"
SEARCH_DELAY = 0.25
"""Seconds of quiet typing before the search runs."""
FLAG_MARKS = {1: "⚑1", 2: "⚑2", 3: "⚑3", 4: "⚑4"}


POST_WIDTH = 10
STATE_WIDTH = 13
DUE_WIDTH = 10


class BrowserScreen(StudyScreen):
    """Find any card; suspend, bury, flag, reset or edit it."""

    CSS_PATH = CSS
    COMPACT_FOOTER = True
    SCROLL_PANE = "#browser-table"  # a key the focused field does not use moves it
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "tui.key.back", id="browser.back"),
        # priority: the key moves to the field before it can type itself there
        Binding("slash", "search", "tui.key.search", id="browser.search", priority=True),
        Binding("e", "edit", "tui.key.edit", id="browser.edit"),
        Binding("x", "mark('suspend')", "tui.key.suspend_short", id="browser.suspend"),
        Binding("z", "mark('bury')", "tui.key.bury", id="browser.bury"),
        Binding("1", "flag(1)", "tui.key.flag", key_display="1-4", id="browser.flag1"),
        *(Binding(str(n), f"flag({n})", "tui.key.flag", show=False, id=f"browser.flag{n}")
          for n in (2, 3, 4)),
        Binding("0", "flag(0)", "tui.key.unflag", show=False, id="browser.flag0"),
        Binding("R", "mark('reset')", "tui.key.reset", show=False, id="browser.reset"),
    ]

    def __init__(self, query: str = "") -> None:
        super().__init__(id="browser-screen")
        self.initial_query = query
        self.cards: list[BrowsedCard] = []
        self.view: CardView | None = None
        self.problems: tuple[str, ...] = ()
        self.editor_error: str | None = None  # why the editor could not start
        self._timer: Timer | None = None
        self.searches = 0  # finished searches (tests wait on it)

    def compose(self) -> ComposeResult:
        tr = self.tr
        yield Label(tr("tui.browser.title"), classes="screen-title")
        yield Input(self.initial_query, placeholder=tr("tui.browser.placeholder"),
                    id="browser-search")
        yield Static("", id="browser-error", markup=False)
        table: DataTable[object] = PageTable(id="browser-table", cursor_type="row",
                                             zebra_stripes=True)
        yield table
        with VerticalScroll(id="browser-detail"):
            yield Static("", id="browser-card", markup=False)
        yield SteadyFooter(compact=True)

    def on_mount(self) -> None:
        super().on_mount()
        table: DataTable[object] = self.query_one("#browser-table", DataTable)
        widths = self.column_widths()
        for key in ("question", "post", "state", "due"):
            table.add_column(self.tr(f"tui.browser.col.{key}"), width=widths[key], key=key)
        self.query_one("#browser-error").display = False
        self.query_one("#browser-search", Input).focus()
        self.run_search()

    def after_language_change(self) -> None:
        self.run_search()

    # -- searching -------------------------------------------------------------

    @on(Input.Changed, "#browser-search")
    def query_changed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(SEARCH_DELAY, self.run_search)

    @on(Input.Submitted, "#browser-search")
    def query_submitted(self, event: Input.Submitted) -> None:
        if self._timer is not None:
            self._timer.stop()
        self.run_search()
        self.query_one("#browser-table", DataTable).focus()

    @property
    def query_text(self) -> str:
        return self.query_one("#browser-search", Input).value

    @work(exclusive=True, group="browser-search", exit_on_error=False)
    async def run_search(self) -> None:
        from studyapp.browse import browser_for
        from studyapp.cardsearch import QueryError

        query, lang = self.query_text, self.lang
        error = self.query_one("#browser-error", Static)
        try:
            result = await self.study_app.backend.call(
                lambda service: browser_for(service).search(query, lang))
        except QueryError as exc:  # the query explained, under the field
            error.update(self.tr("tui.browser.bad_query", column=exc.column,
                                 message=exc.message) + "\n" + exc.pointer())
            error.display = True
        else:
            error.display = False
            self.show_cards(result)
        self.searches += 1
        self.refresh_bindings()

    def show_cards(self, cards: list[BrowsedCard]) -> None:
        table: DataTable[object] = self.query_one("#browser-table", DataTable)
        keep = self.highlighted.key if self.highlighted else None
        self.cards = cards
        table.clear()
        width = self.column_widths()["question"]
        for card in cards:
            question = " ".join(visible(card.question).split())
            table.add_row(Text(fit(question, width)), Text(fit(card.post, 10)),
                          self.state_cell(card), self.due_cell(card),
                          key=f"{card.deck}/{card.card}")
        self.query_one(".screen-title", Label).update(
            self.tr("tui.browser.title_count", n=len(cards)) if len(cards) != 1
            else self.tr("tui.browser.title_one"))
        if cards:
            keys = [c.key for c in cards]
            row = keys.index(keep) if keep in keys else 0
            table.move_cursor(row=row, animate=False)
            self.load_detail(cards[row])
        else:
            self.view = None
            self.query_one("#browser-card", Static).update(self.tr("tui.browser.none"))

    def state_cell(self, card: BrowsedCard) -> Text:
        marks = [self.tr(f"tui.stats.stage.{card.stage}")]
        if card.suspended:
            marks.append("⏸")
        if card.buried:
            marks.append("⤓")
        if card.flag:
            marks.append(FLAG_MARKS.get(card.flag, "⚑"))
        if card.leech:
            marks.append("!")
        text = Text(" ".join(marks))
        if card.suspended or card.buried:
            text.stylize("italic dim")
        return text

    def column_widths(self) -> dict[str, int]:
        """Fixed widths, so no cell is cut mid-word; the question takes what is left."""
        fixed = {"post": POST_WIDTH, "state": STATE_WIDTH, "due": DUE_WIDTH}
        spare = self.app.size.width - 4 - sum(fixed.values()) - 2 * (len(fixed) + 1)
        return {"question": max(12, spare), **fixed}

    def due_cell(self, card: BrowsedCard) -> Text:
        """The time for a card due today (a learning step comes back at 21:13), else the
        date in full (year, month, day): "12-03" read as a month or a day."""
        if not card.stage or card.due is None:
            return Text("—")
        if card.due_today:
            return Text(card.due.astimezone().strftime("%H:%M"))
        return Text(card.due.astimezone().strftime("%Y-%m-%d"))

    # -- the highlighted card ----------------------------------------------------

    @property
    def highlighted(self) -> BrowsedCard | None:
        table: DataTable[object] = self.query_one("#browser-table", DataTable)
        if not self.cards or not table.row_count:
            return None
        row = table.cursor_row
        return self.cards[row] if 0 <= row < len(self.cards) else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        card = self.highlighted
        if card is not None and (self.view is None or self.view.card.key != card.key):
            self.load_detail(card)
        self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.query_one("#browser-detail").focus()

    @work(exclusive=True, group="browser-detail", exit_on_error=False)
    async def load_detail(self, card: BrowsedCard) -> None:
        from studyapp.browse import browser_for

        lang = self.lang
        view = await self.study_app.backend.call(
            lambda service: browser_for(service).view(card.deck, card.card, lang))
        self.view = view
        self.query_one("#browser-card", Static).update(self.detail_text(view))

    def detail_text(self, view: CardView) -> Text:
        tr = self.tr
        card = view.card
        lines: list[str] = []
        for problem in self.problems:
            lines.append(problem)
        if self.problems:
            lines.append("")
        lines.append(f"{card.deck}/{card.card} · {card.post} · "
                     + self.state_cell(card).plain)
        question = view.question
        if question is not None:
            if card.template:
                lines.append(tr("tui.browser.sample"))
            lines.append(question.prompt)
            for n, choice in enumerate(question.choices, 1):
                lines.append(f"  {n}) {choice}")
            answer = question.answer
            if isinstance(answer, bool):
                answer_text = tr("tui.key.true") if answer else tr("tui.key.false")
            else:
                answer_text = f"{answer}{' ' + question.unit if question.unit else ''}"
            lines.append(tr("tui.browser.answer", answer=answer_text))
            if question.explanation:
                lines.append(tr("tui.browser.explanation", text=question.explanation))
        else:
            lines.append(card.question)
            lines.append(tr("tui.browser.broken", problem=view.problem or ""))
        lines.append(tr("tui.browser.source", where=card.where))
        if card.stage:
            lines.append(tr(
                "tui.browser.memory",
                stability="—" if card.stability is None else f"{card.stability:.1f}",
                difficulty="—" if card.difficulty is None else f"{card.difficulty:.1f}",
                recall="—" if card.retrievability is None else f"{card.retrievability:.0%}",
                due=local_time(card.due), reps=card.reps, lapses=card.lapses))
        else:
            lines.append(tr("tui.browser.never"))
        if view.answers:
            from studyapp.study.phrases import logged_choice, logged_parts  # loaded by now

            lines.append(tr("tui.browser.answers", n=len(view.answers)))
            for log in view.answers:
                mark = "✓" if log.correct else "✗"
                rating = tr(RATINGS.get(log.rating, "tui.rating.good"))
                lines.append(f"  {local_time(log.reviewed_at)} {mark} {rating} · "
                             f"{log.response or '—'} · {tr('tui.browser.expected')} "
                             f"{logged_choice(log.expected, log.params) or '—'} · "
                             f"{params_text(log.params)}")
                lines += [f"      {line}" for line in logged_parts(log.params, self.lang)]
        return Text(visible("\n".join(lines)))

    # -- actions ---------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("edit", "mark", "flag"):
            return self.highlighted is not None
        if action == "search" and self.is_mounted:
            # in the field "/" is text ("GB/s"), so the key goes on to the field
            return not self.query_one("#browser-search", Input).has_focus
        return True

    def action_back(self) -> None:
        if self.query_one("#browser-search", Input).has_focus and self.cards:
            self.query_one("#browser-table", DataTable).focus()
            return
        self.dismiss(None)

    def action_search(self) -> None:
        self.query_one("#browser-search", Input).focus()

    def action_mark(self, action: str) -> None:
        card = self.highlighted
        if card is None:
            return
        if action == "suspend" and card.suspended:
            action = "unsuspend"
        if action == "bury" and card.buried:
            action = "unbury"
        self.apply(card, action, 0)

    def action_flag(self, flag: int) -> None:
        card = self.highlighted
        if card is None:
            return
        self.apply(card, "flag", 0 if card.flag == flag else flag)

    @work(group="browser-mark", exit_on_error=False)
    async def apply(self, card: BrowsedCard, action: str, flag: int) -> None:
        from studyapp.browse import browser_for

        changed = await self.study_app.backend.call(
            lambda service: browser_for(service).apply([card], action, flag))
        name = f"{card.deck}/{card.card}"
        key = f"tui.browser.done.{action}" if action != "flag" or flag else \
            "tui.browser.done.unflag"
        self.notify(self.tr(key, card=visible(name), flag=flag) if changed
                    else self.tr("tui.browser.unchanged", card=visible(name)), markup=False)
        self.run_search()

    def action_edit(self) -> None:
        card = self.highlighted
        if card is None:
            return
        if self.app.is_web:  # the editor would run on the server, in no terminal anyone sees
            self.notify(self.tr("tui.browser.no_editor_web"), severity="warning", markup=False)
            return
        self.edit(card)

    @work(exclusive=True, group="browser-edit", exit_on_error=False)
    async def edit(self, card: BrowsedCard) -> None:
        """The ``$EDITOR`` loop: a copy is edited until it validates or the edit is given up."""
        from studyapp.browse import browser_for
        from studyapp.decks.editing import edit_until_valid, editor_name

        plan: EditPlan = await self.study_app.backend.call(
            lambda service: browser_for(service).edit_plan(card.deck, card.card))
        lang = self.lang
        for note in plan.notes:
            self.notify(note.render(lang), markup=False)
        self.editor_error = None
        outcome = edit_until_valid(plan, self.run_editor, lang=lang)
        if outcome.status == "editor_failed":
            self.notify(self.editor_error or self.tr(
                "tui.browser.editor_failed", editor=editor_name(), code=outcome.editor_code),
                severity="error", markup=False)
            return
        if outcome.status == "gave_up":
            self.problems = tuple(problem.render(lang) for problem in outcome.problems)
            self.notify(self.tr("tui.browser.invalid", n=len(outcome.problems)),
                        severity="error", markup=False)
            self.view = None
            self.run_search()
            return
        result: Reloaded = await self.study_app.backend.call(
            lambda service: browser_for(service).reload(outcome.live, card.deck, lang))
        self.problems = result.problems
        if result.ok:
            self.notify(self.tr("tui.browser.reloaded", deck=result.deck), markup=False)
        else:
            self.notify(self.tr("tui.browser.invalid", n=len(result.problems)),
                        severity="error", markup=False)
        self.view = None
        self.run_search()

    def run_editor(self, path: Path, line: int) -> int:
        """Run ``$VISUAL``/``$EDITOR`` (``vi`` by default) as ``EDITOR +LINE FILE``; its code.

        An editor that cannot start leaves its reason in ``editor_error``.
        """
        from textual.app import SuspendNotSupported

        from studyapp.decks.editing import editor_command, editor_name

        command = editor_command(path, line)
        try:
            try:
                with self.app.suspend():
                    return subprocess.call(command)
            except SuspendNotSupported:  # a headless or web session: run it as is
                return subprocess.call(command, stdin=subprocess.DEVNULL)
        except OSError as exc:
            self.editor_error = self.tr("tui.browser.no_editor", editor=editor_name(),
                                        detail=str(exc))
            return -1

    def palette_commands(self) -> Iterable[SystemCommand]:
        """The highlighted card's actions, for the command palette."""
        card = self.highlighted
        if card is None:
            return
        tr = self.tr
        name = escape(visible(f"{card.deck}/{card.card}"))
        yield SystemCommand(tr("tui.cmd.edit_card", card=name), tr("tui.cmd.edit_card_help"),
                            self.action_edit)
        yield SystemCommand(tr("tui.cmd.unsuspend" if card.suspended else "tui.cmd.suspend",
                               card=name), tr("tui.cmd.suspend_help"),
                            lambda: self.action_mark("suspend"))
        yield SystemCommand(tr("tui.cmd.bury_card", card=name), tr("tui.cmd.bury_card_help"),
                            lambda: self.action_mark("bury"))
        yield SystemCommand(tr("tui.cmd.reset_card", card=name), tr("tui.cmd.reset_card_help"),
                            lambda: self.action_mark("reset"))


__all__ = ["BrowserScreen"]

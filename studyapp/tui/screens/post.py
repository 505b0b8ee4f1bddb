"""A post's summary: Markdown, the key-figures table from the catalog, sources.

Opened from the home screen, before a post's first study session, or from
a question (then it only goes back to the question).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Label, Markdown, Static

from studyapp.catalog.posts import load_post
from studyapp.i18n import t
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.study_context import MORE_NEW
from studyapp.tui.widgets.footer import SteadyFooter

FIGURE_FIELDS = (
    "name", "vendor", "year", "memory_gb", "memory_type", "memory_bandwidth_tb_s",
    "bf16_dense_tflops", "fp8_dense_tflops", "fp4_dense_tflops", "tdp_w", "scale_up",
    "scale_up_gb_s", "bandwidth_gb_s", "direction", "gpus", "accelerator", "total_memory_gb",
    "params_b", "active_params_b", "layers", "hidden_size", "heads", "kv_heads", "head_dim",
    "context_length", "attention", "aggregate_scale_up_gb_s", "gbit_s",
)


CELL_PADDING = 1
"""DataTable's default padding on each side of a cell."""
GUTTER = 4
"""Columns the post body keeps for itself: padding and the vertical scrollbar."""
MIN_NAME = 12
"""Narrowest name column worth keeping as a table; below it the figures stack."""


def longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=0)


def column_widths(rows: list[list[str]], width: int) -> list[int] | None:
    """Widths that fit the figures table in ``width`` columns, or None to stack it.

    Headers wrap at spaces (``Ancho de banda (TB/s)`` over two or three
    lines) and long names wrap too, so a table is as narrow as its longest
    header word or value. Names are kept whole when they can be, then the
    header is made as short as the room allows.
    """
    columns = list(zip(*rows, strict=True))
    natural = [max(len(cell) for cell in column) for column in columns]
    least = [max(longest_word(column[0]), *(len(cell) for cell in column[1:]))
             for column in columns]
    least[0] = min(natural[0], max(MIN_NAME, *(longest_word(name) for name in columns[0])))
    room = width - GUTTER - 2 * CELL_PADDING * len(columns)
    tallest = max(len(textwrap.wrap(column[0], least[i])) for i, column in enumerate(columns))
    for name_width in dict.fromkeys((natural[0], least[0])):
        for lines in range(1, tallest + 1):
            widths = [name_width, *(header_width(column[0], lines, least[i])
                                    for i, column in enumerate(columns) if i)]
            if sum(widths) <= room:
                widths[0] = min(natural[0], widths[0] + room - sum(widths))
                return widths
    return None


def header_width(header: str, lines: int, least: int) -> int:
    """The narrowest width from ``least`` up that wraps ``header`` into ``lines`` lines."""
    width = least
    while width < len(header) and len(textwrap.wrap(header, width)) > lines:
        width += 1
    return width


def wrap_cell(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width)) or text


def stacked_figures(rows: list[list[str]]) -> Text:
    """The figures as one block per entry (name, then ``label  value`` lines), for
    screens too narrow for the table."""
    header, body = rows[0], rows[1:]
    label_width = max(len(label) for label in header[1:])
    text = Text()
    for number, row in enumerate(body):
        if number:
            text.append("\n\n")
        text.append(row[0], style="bold")
        for label, value in zip(header[1:], row[1:], strict=True):
            text.append(f"\n  {label:<{label_width}}  {value}")
    return text


def figure_labels(lang: str) -> dict[str, str]:
    """Column headers for catalog fields in the interface language."""
    return {field: t(f"tui.field.{field}", lang) for field in FIGURE_FIELDS}


class PostScreen(StudyScreen):
    """Read a post; ``s`` studies it (or Enter, when opened before a first session)."""

    CSS_PATH = Path(__file__).parent / "post.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "study", "tui.key.study_post", id="post.study"),
        Binding("enter", "start", "tui.key.start", id="post.start"),
        Binding("escape", "back", "tui.key.back", id="post.back"),
        Binding("m", "study_more", "tui.key.study_more", id="post.more"),
        Binding("x", "practice", "tui.key.practice", id="post.practice"),
    ]

    def __init__(self, slug: str, *, then_study: bool = False, from_question: bool = False,
                 limit: int | None = None, practice: bool = False) -> None:
        super().__init__(id="post-screen")
        self.slug = slug
        self.then_study = then_study
        self.from_question = from_question
        self.limit = limit
        """Question limit and practice mode of the session that follows the reading."""
        self.practice = practice
        self.figure_rows: list[list[str]] = []
        """Header and rows of the key figures, as the catalog gives them."""
        self.limit_reached = False
        """Today's new cards are done while this post still has some: offer more or practice."""

    def compose(self) -> ComposeResult:
        post = load_post(self.slug, self.lang)
        with Horizontal(id="post-head"):
            yield Label(Content(post.title), id="post-heading")
            yield Label("", id="post-mastery")
            yield Label(self.tr(f"tui.section.{post.section}"), id="post-section")
        if self.then_study:
            yield Label(self.tr("tui.post.read_first"), id="read-first")
        yield Static("", id="notice")
        with VerticalScroll(id="post-body"):
            yield Markdown(post.body, id="summary", open_links=False)
            if post.figures is not None:
                yield Label(self.tr("tui.post.figures"), classes="subheading")
                yield DataTable(id="figures", show_cursor=False, zebra_stripes=True)
                yield Static("", id="figures-stacked")
            yield Label(self.tr("tui.post.sources"), classes="subheading")
            yield Static(Content("\n".join(f"• {url}" for url in post.sources)), id="sources")
        yield SteadyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#post-body").focus()
        self.load_figures()
        self.load_mastery()
        self.remember_reading()
        if not self.from_question and not self.practice:
            self.load_offer()

    @work(exclusive=True, group="mastery", exit_on_error=False)
    async def load_mastery(self) -> None:
        """The post's mastery, the figure home and the progress screen show, and its meaning."""
        from studyapp.progress import MASTERY_DEFINITION, post_mastery

        slug = self.slug
        share = await self.study_app.backend.call(lambda service: post_mastery(service, slug))
        label = self.query_one("#post-mastery", Label)
        label.update(self.tr("tui.post.mastery", mastery=f"{share:.0%}"))
        label.tooltip = self.tr("tui.home.mastery_tip", mastery=f"{share:.0%}",
                                days=round(MASTERY_DEFINITION["stability_days_at_least"]))

    @work(exclusive=True, group="offer", exit_on_error=False)
    async def load_offer(self) -> None:
        slug = self.slug
        self.limit_reached, held, mix = await self.study_app.backend.call(
            lambda service: service.post_offer(slug))
        notices = []
        if mix is not None and (mix.new or mix.due):
            notices.append(self.tr("tui.post.next_session", new=mix.new,
                                   new_generated=mix.new_generated,
                                   new_authored=mix.new_authored, due=mix.due,
                                   due_generated=mix.due_generated,
                                   due_authored=mix.due_authored))
        if self.limit_reached:
            notices.append(self.tr("tui.post.limit_reached", more=MORE_NEW))
        if held:
            notices.append(self.tr("tui.post.siblings_held_one") if held == 1
                           else self.tr("tui.post.siblings_held_many", count=held))
        if notices:
            notice = self.query_one("#notice", Static)
            notice.update("\n".join(notices))
            notice.add_class("-shown")
        self.refresh_bindings()

    def after_language_change(self) -> None:
        self.load_figures()

    @work(exclusive=True, group="figures", exit_on_error=False)
    async def load_figures(self) -> None:
        if not self.query("#figures"):
            return
        slug, lang = self.slug, self.lang

        def rows(_: object) -> list[list[str]]:
            from studyapp.catalog.posts import figures_rows

            return figures_rows(load_post(slug, lang), labels=figure_labels(lang))

        self.figure_rows = await self.study_app.backend.call(rows)
        self.show_figures()

    def on_resize(self) -> None:
        self.show_figures()

    def show_figures(self) -> None:
        """The key figures as a table that fits the width, or stacked when none does."""
        if not self.figure_rows or not self.query("#figures"):
            return
        rows = self.figure_rows
        table = self.query_one("#figures", DataTable)
        stacked = self.query_one("#figures-stacked", Static)
        widths = column_widths(rows, self.size.width)
        self.set_class(widths is None, "-stacked-figures")
        if widths is None:
            stacked.update(stacked_figures(rows))
            return
        headers = [wrap_cell(cell, width) for cell, width in zip(rows[0], widths, strict=True)]
        table.clear(columns=True)
        table.header_height = max(header.count("\n") + 1 for header in headers)
        for header, width in zip(headers, widths, strict=True):
            table.add_column(Text(header), width=width)
        for row in rows[1:]:
            cells = [Text(wrap_cell(row[0], widths[0])), *(Text(cell) for cell in row[1:])]
            table.add_row(*cells, height=None)

    def remember_reading(self) -> None:
        """On the app, not this screen: leaving at once must not cancel it."""
        slug = self.slug

        async def read() -> None:
            await self.study_app.backend.call(lambda service: service.read_post(slug))

        self.app.run_worker(read(), group="read", exit_on_error=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "study":
            return not self.from_question
        if action == "start":
            return self.then_study and not self.from_question
        if action in ("study_more", "practice"):
            return self.limit_reached and not self.from_question
        return True

    def action_study_more(self) -> None:
        self.dismiss(None)
        self.study_app.study_more(self.slug, MORE_NEW)

    def action_practice(self) -> None:
        self.study_app.start_session("practice", post=self.slug, replace=True)

    def action_start(self) -> None:
        self.action_study()

    def action_study(self) -> None:
        if self.from_question:
            return
        self.study_app.update_preferences(last_post=self.slug)
        kind = "practice" if self.practice else "post"
        self.study_app.start_session(kind, post=self.slug, limit=self.limit, replace=True)

    def action_back(self) -> None:
        self.dismiss(None)

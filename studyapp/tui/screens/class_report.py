"""The instructor's view: every profile of the current database as a class.

Mastery per student and post, the questions students miss most the first
time, and who has the most overdue cards. Profile names are typed by users
and card ids come from decks, so both are shown as plain text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Label, Static

from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.screens.progress_format import (
    CSS,
    card_name,
    duration,
    percent,
    plain_text,
    scroll_row_into_view,
)

if TYPE_CHECKING:
    from studyapp.classroom import ClassReport
    from studyapp.study import StudyService


def load_class_report(service: StudyService) -> tuple[ClassReport, tuple[str, ...]]:
    """Runs on the service thread: the report and the posts in catalogue order."""
    from studyapp.classroom import class_report_for

    return class_report_for(service)


class ClassReportScreen(StudyScreen):
    """Three tables over every profile; reached from progress or the palette."""

    CSS_PATH = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "tui.key.back", id="class_report.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="class-report-screen")
        self.report: ClassReport | None = None
        self.posts: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Label(self.tr("tui.cmd.class_report"), id="class-title", classes="screen-title")
        with VerticalScroll(id="class-body"):
            yield Static(self.tr("tui.class.loading"), id="class-empty", classes="hint",
                         markup=False)
            yield Label(self.tr("tui.class.mastery"), classes="subheading")
            yield DataTable(id="class-mastery", cursor_type="row", zebra_stripes=True)
            yield Label(self.tr("tui.class.hardest"), classes="subheading")
            yield DataTable(id="class-hardest", cursor_type="row", zebra_stripes=True)
            yield Label(self.tr("tui.class.overdue"), classes="subheading")
            yield DataTable(id="class-overdue", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#class-mastery", DataTable).focus()
        self.load()

    def after_language_change(self) -> None:
        if self.report is not None:
            self.fill(self.report, self.posts)

    @work(exclusive=True, group="class-report", exit_on_error=False)
    async def load(self) -> None:
        report, posts = await self.study_app.backend.call(load_class_report)
        self.fill(report, posts)
        self.report, self.posts = report, posts

    def fill(self, report: ClassReport, posts: tuple[str, ...]) -> None:
        tr = self.tr
        self.query_one("#class-title", Label).update(
            tr("tui.class.title", count=len(report.students)))
        empty = self.query_one("#class-empty", Static)
        empty.update(tr("tui.class.empty"))
        empty.display = not any(s.reviews for s in report.students)

        mastery: DataTable[object] = self.query_one("#class-mastery", DataTable)
        mastery.clear(columns=True)
        for key in ("student", "reviews", "accuracy", "overdue", "time"):
            mastery.add_column(Text(tr(f"tui.class.col.{key}")), key=key)
        for post in posts:
            mastery.add_column(Text(post[:9]), key=f"post:{post}")
        for student in report.students:
            by_post = dict(student.mastery)
            mastery.add_row(plain_text(student.name, 20), student.reviews,
                            percent(student.accuracy), student.overdue,
                            duration(student.time_ms),
                            *(percent(by_post.get(post, 0.0)) for post in posts))

        hardest: DataTable[object] = self.query_one("#class-hardest", DataTable)
        hardest.clear(columns=True)
        for key in ("question", "students", "first_try"):
            hardest.add_column(Text(tr(f"tui.class.col.{key}")), key=key)
        hardest.add_column(Text(tr("tui.stats.col.post")), key="post")
        for question in report.hardest:
            hardest.add_row(plain_text(card_name(question.deck_id, question.card_key), 30),
                            question.students, percent(question.first_try_accuracy),
                            plain_text(question.post, 18))

        overdue: DataTable[object] = self.query_one("#class-overdue", DataTable)
        overdue.clear(columns=True)
        for key in ("student", "overdue"):
            overdue.add_column(Text(tr(f"tui.class.col.{key}")), key=key)
        for student in report.most_overdue:
            overdue.add_row(plain_text(student.name, 30), student.overdue)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.has_focus:
            scroll_row_into_view(self.query_one("#class-body", VerticalScroll), event.data_table)

    def action_back(self) -> None:
        self.dismiss(None)

"""The instructor's view: every profile of the current database as a class.

Mastery per student and post, the questions students miss most the first
time, and who has the most overdue cards. Profile names are typed by users
and card ids come from decks, so both are shown as plain text.

Like ``studyapp class report``, the screen fits the terminal's width rather
than scrolling sideways: one line of totals per student, then mastery turned
round (a row per post, a column per student) in as many tables as the class
needs, and names and questions cut to the room left beside the figures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Label, Static

from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.screens.progress_format import (
    CSS,
    card_name,
    duration,
    percent,
    scroll_row_into_view,
)
from studyapp.tui.text import plain
from studyapp.tui.widgets.footer import SteadyFooter
from studyapp.tui.widgets.row_table import PageTable

if TYPE_CHECKING:
    from studyapp.classroom import ClassReport
    from studyapp.study import StudyService

CELL_GAP = 2
"""What a table column takes besides its text: a cell's padding on each side."""
PAGE_GAP = 4
"""What the page takes of the screen's width: its padding, its scroll bar and the
scroll bar of a table taller than the page."""
MIN_NAME = 8
"""Below this many characters a name column gives way: the students' time column goes."""
MIN_QUESTION = 24
"""Below this many characters for the question, the hardest table leaves out its post column."""
MISCONCEPTIONS_SHOWN = 10
"""The class's most held misconceptions listed, as in `studyapp class report`."""


def load_class_report(service: StudyService, left_out: tuple[str, ...] = ()
                      ) -> tuple[ClassReport, tuple[str, ...]]:
    """Runs on the service thread: the report (less the ``left_out`` profiles) and the
    posts in catalogue order."""
    from studyapp.classroom import class_report_for

    return class_report_for(service, exclude=left_out)


def widest(header: str, cells: list[str]) -> int:
    """A column's width: its header or its widest cell."""
    return max([len(header), *(len(cell) for cell in cells)])


def figure(text: str) -> Text:
    """A count or a percentage, right-aligned so that digits line up."""
    return Text(text, justify="right")


class ClassReportScreen(StudyScreen):
    """Four kinds of table over every profile; reached from progress or the palette."""

    CSS_PATH = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "tui.key.back", id="class_report.back"),
        Binding("x", "leave_out", "tui.key.leave_out", id="class_report.leave_out"),
        Binding("a", "everyone", "tui.key.everyone", id="class_report.everyone"),
    ]

    def __init__(self) -> None:
        super().__init__(id="class-report-screen")
        self.report: ClassReport | None = None
        self.posts: tuple[str, ...] = ()
        self.laid_out_for: int | None = None
        """The width the tables were last cut to."""

    def compose(self) -> ComposeResult:
        yield Label(self.tr("tui.cmd.class_report"), id="class-title", classes="screen-title")
        with VerticalScroll(id="class-body"):
            yield Static(self.tr("tui.class.loading"), id="class-empty", classes="hint",
                         markup=False)
            yield Label(self.tr("tui.class.students"), classes="subheading")
            yield PageTable(id="class-students", cursor_type="row", zebra_stripes=True)
            # what to reteach first: the instructor sees it without scrolling
            yield Label(self.tr("tui.class.reteach"), classes="subheading")
            yield Static("", id="class-reteach")
            yield Label(self.tr("tui.class.misconceptions"), classes="subheading")
            yield Static("", id="class-misconceptions", markup=False)
            yield Label(self.tr("tui.class.wrong"), classes="subheading")
            yield Static("", id="class-wrong")
            yield Label(self.tr("tui.class.mastery"), classes="subheading")
            yield Vertical(id="class-mastery")
            yield Label(self.tr("tui.class.hardest"), classes="subheading")
            yield PageTable(id="class-hardest", cursor_type="row", zebra_stripes=True)
            yield Label(self.tr("tui.class.overdue"), classes="subheading")
            yield PageTable(id="class-overdue", cursor_type="row", zebra_stripes=True)
        yield SteadyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#class-students", DataTable).focus()
        self.load()

    def after_language_change(self) -> None:
        self.laid_out_for = None
        self.lay_out()

    def on_resize(self) -> None:
        if self.room != self.laid_out_for:
            self.lay_out()

    @property
    def room(self) -> int:
        """Columns the tables may fill without scrolling sideways."""
        return max(self.size.width - PAGE_GAP, 20)

    @property
    def left_out(self) -> tuple[str, ...]:
        """The profiles left out of the class, kept in the app's settings file."""
        return self.study_app.preferences.class_left_out

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_out":
            return self.report is not None and bool(self.report.students)
        if action == "everyone":
            return bool(self.left_out)
        return super().check_action(action, parameters)

    @work(exclusive=True, group="class-report", exit_on_error=False)
    async def load(self) -> None:
        left_out = self.left_out
        students = self.query_one("#class-students", DataTable)
        row = students.cursor_row  # stays where it was: x twice leaves out the next one
        report, posts = await self.study_app.backend.call(
            lambda service: load_class_report(service, left_out))
        await self.fill(report, posts)
        self.report, self.posts = report, posts
        if report.students:
            students.move_cursor(row=min(max(row, 0), len(report.students) - 1))
        self.refresh_bindings()

    def action_leave_out(self) -> None:
        """Leave the highlighted student out (the default profile, a test profile)."""
        table = self.query_one("#class-students", DataTable)
        if self.report is None or not 0 <= table.cursor_row < len(self.report.students):
            return
        name = self.report.students[table.cursor_row].name
        self.study_app.update_preferences(class_left_out=(*self.left_out, name))
        self.notify(self.tr("tui.class.left_out_one", name=name))
        self.load()

    def action_everyone(self) -> None:
        """Bring every left-out student back."""
        self.study_app.update_preferences(class_left_out=())
        self.load()

    @work(exclusive=True, group="class-layout", exit_on_error=False)
    async def lay_out(self) -> None:
        """The tables again, cut to a new width or in a new language."""
        if self.report is not None:
            await self.fill(self.report, self.posts)

    async def fill(self, report: ClassReport, posts: tuple[str, ...]) -> None:
        room = self.room
        self.laid_out_for = room
        absent = set(report.not_excluded)
        left_out = [n for n in self.left_out if n not in absent]
        title = self.tr("tui.class.title", count=len(report.students))
        if left_out:
            title += self.tr("tui.class.left_out", names=", ".join(left_out))
        self.query_one("#class-title", Label).update(Text(title))
        empty = self.query_one("#class-empty", Static)
        empty.update(self.tr("tui.class.empty"))
        empty.display = not any(s.reviews for s in report.students)
        self.fill_students(report, room)
        await self.fill_mastery(report, posts, room)
        self.fill_hardest(report, room)
        self.fill_overdue(report, room)
        self.fill_items(report)
        if self.focused is None:  # a mastery table that had the focus was replaced
            self.query_one("#class-students", DataTable).focus()

    def fill_students(self, report: ClassReport, room: int) -> None:
        """A line of totals per student; time, study days and last activity go, in that order,
        when names get too short."""
        tr = self.tr
        figures = {
            "reviews": [str(s.reviews) for s in report.students],
            "accuracy": [percent(s.accuracy) for s in report.students],
            "overdue": [str(s.overdue) for s in report.students],
            "last_active": ["—" if s.away_days is None else
                            tr("tui.class.days_ago", n=s.away_days)
                            + (" " + tr("tui.class.absent") if s.absent else "")
                            for s in report.students],
            "study_days": [f"{s.study_days}/7" for s in report.students],
            "time": [duration(s.time_ms) for s in report.students],
        }
        widths = {key: widest(tr(f"tui.class.col.{key}"), cells) + CELL_GAP
                  for key, cells in figures.items()}
        longest = widest(tr("tui.class.col.student"), [s.name for s in report.students])
        for key in ("time", "study_days", "last_active"):  # the least needed go first
            if room - sum(widths.values()) - CELL_GAP >= min(MIN_NAME, longest):
                break
            del figures[key], widths[key]
        name_width = max(min(longest, room - sum(widths.values()) - CELL_GAP), 4)

        students: DataTable[object] = self.query_one("#class-students", DataTable)
        students.clear(columns=True)
        students.add_column(Text(tr("tui.class.col.student")), key="student")
        for key in figures:
            students.add_column(figure(tr(f"tui.class.col.{key}")), key=key)
        for n, student in enumerate(report.students):
            students.add_row(plain(student.name, name_width),
                             *(figure(cells[n]) for cells in figures.values()))

    async def fill_mastery(self, report: ClassReport, posts: tuple[str, ...],
                           room: int) -> None:
        """Mastery turned round: a row per post, a column per student, as many tables as needed."""
        from studyapp.classroom import NAME_WIDTH, student_blocks

        post_header = self.tr("tui.stats.col.post")
        # then a row per deck the class studies besides the post decks (a course deck)
        deck_ids = list(dict.fromkeys(d for s in report.students for d, _ in s.decks))
        post_width = widest(post_header, [*posts, *deck_ids])
        blocks = student_blocks(report.students, room, post_width, gap=CELL_GAP)
        holder = self.query_one("#class-mastery", Vertical)
        await holder.remove_children()
        tables: list[DataTable[object]] = [
            PageTable(classes="mastery-block", cursor_type="row", zebra_stripes=True)
            for _ in blocks]
        await holder.mount_all(tables)
        for table, block in zip(tables, blocks, strict=True):
            table.add_column(Text(post_header), key="post")
            for student in block:
                table.add_column(plain(student.name, NAME_WIDTH, justify="right").as_text())
            for post in posts:
                table.add_row(Text(post), *(figure(percent(dict(s.mastery).get(post, 0.0)))
                                            for s in block))
            for deck in deck_ids:
                table.add_row(plain(deck).as_text(), *(
                    figure(percent(dict(s.decks)[deck]) if deck in dict(s.decks) else "—")
                    for s in block))

    def fill_hardest(self, report: ClassReport, room: int) -> None:
        """Questions cut to the room the figures leave; the post column goes when that is small."""
        tr = self.tr
        questions = [card_name(q.deck_id, q.card_key) for q in report.hardest]
        figures = {
            "students": [str(q.students) for q in report.hardest],
            "first_try": [percent(q.first_try_accuracy) for q in report.hardest],
        }
        post_header = tr("tui.stats.col.post")
        post_width = widest(post_header, [q.post for q in report.hardest])
        taken = sum(widest(tr(f"tui.class.col.{key}"), cells) + CELL_GAP
                    for key, cells in figures.items())
        with_post = room - taken - post_width - 2 * CELL_GAP >= MIN_QUESTION
        if with_post:
            taken += post_width + CELL_GAP
        longest = widest(tr("tui.class.col.question"), questions)
        question_width = max(min(longest, room - taken - CELL_GAP), 8)

        hardest: DataTable[object] = self.query_one("#class-hardest", DataTable)
        hardest.clear(columns=True)
        hardest.add_column(Text(tr("tui.class.col.question")), key="question")
        for key in figures:
            hardest.add_column(figure(tr(f"tui.class.col.{key}")), key=key)
        if with_post:
            hardest.add_column(Text(post_header), key="post")
        for n, question in enumerate(report.hardest):
            post = [plain(question.post or "—")] if with_post else []
            hardest.add_row(plain(questions[n], question_width),
                            *(figure(cells[n]) for cells in figures.values()), *post)

    def fill_overdue(self, report: ClassReport, room: int) -> None:
        tr = self.tr
        counts = [str(s.overdue) for s in report.most_overdue]
        taken = widest(tr("tui.class.col.overdue"), counts) + CELL_GAP
        longest = widest(tr("tui.class.col.student"), [s.name for s in report.most_overdue])
        name_width = max(min(longest, 30, room - taken - CELL_GAP), 4)

        overdue: DataTable[object] = self.query_one("#class-overdue", DataTable)
        overdue.clear(columns=True)
        overdue.add_column(Text(tr("tui.class.col.student")), key="student")
        overdue.add_column(figure(tr("tui.class.col.overdue")), key="overdue")
        for student, count in zip(report.most_overdue, counts, strict=True):
            overdue.add_row(plain(student.name, name_width), figure(count))

    def fill_items(self, report: ClassReport) -> None:
        """The reteach list with prompt text; per card its common wrong answers and slips."""
        tr = self.tr
        reteach = [tr("tui.class.reteach_line", card=card_name(i.deck_id, i.card_key),
                      first_try=percent(i.first_try_accuracy), students=i.students,
                      prompt=i.prompt) for i in report.reteach]  # fmt: skip
        # flags first: a card whose key looks wrong before the cards to teach again
        check = [tr("tui.class.check_key_line", card=card_name(i.deck_id, i.card_key),
                    first_try=percent(i.first_try_accuracy), students=i.students,
                    overrides=i.overrides, prompt=i.prompt) for i in report.check_key]
        self.query_one("#class-reteach", Static).update(
            Text("\n".join(check + reteach) or tr("tui.class.reteach_none")))
        held = [tr("tui.class.misconception_line", name=m.name(self.lang), students=m.students,
                   slips=m.slips) for m in report.misconceptions[:MISCONCEPTIONS_SHOWN]]
        self.query_one("#class-misconceptions", Static).update(
            Text("\n".join(held) or tr("tui.class.misconceptions_none")))
        wrong = []
        for item in report.items:
            if not item.lists_wrong_answers:
                continue
            answers = ", ".join(f"{a} ({percent(item.share(n))})" for a, n in item.answers)
            slips = ", ".join(f"{k} ({percent(item.share(n))})" for k, n in item.slips)
            flags = "".join(f"[{tr('tui.class.flag_' + f.replace(' ', '_'))}] "
                            for f in item.flags)
            carried = (" · " + tr("tui.class.carried_note", n=item.carried)
                       if item.carried else "")
            wrong.append(flags + tr("tui.class.wrong_line",
                                    card=card_name(item.deck_id, item.card_key),
                                    answers=answers or "—", slips=slips or "—") + carried)
        self.query_one("#class-wrong", Static).update(
            Text("\n".join(wrong) or tr("tui.class.wrong_none")))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.has_focus:
            scroll_row_into_view(self.query_one("#class-body", VerticalScroll), event.data_table)

    def action_back(self) -> None:
        self.dismiss(None)

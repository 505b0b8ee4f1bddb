"""The home screen: the twelve posts by section, and today's numbers.

Composed from the posts' front matter only, so it paints at once; the
counts come from the study service on its thread right after.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Label, Static

from studyapp.text import visible
from studyapp.tui.messages import OverviewLoaded
from studyapp.tui.post_index import post_headings, sections
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.study_context import MORE_NEW
from studyapp.tui.text import fit
from studyapp.tui.widgets.footer import SteadyFooter
from studyapp.tui.widgets.post_row import CourseRow, PostRow

PREVIEW_LINES = 2
"""Lines of the tagline under the list (``#preview`` in app.tcss gives them room)."""

if TYPE_CHECKING:
    from textual.widget import Widget

    from studyapp.study import CourseProgress, Overview
    from studyapp.tuning import ExamPlan


def clamp_lines(text: str, width: int, lines: int = PREVIEW_LINES) -> str:
    """``text`` wrapped to ``width`` in at most ``lines`` lines, ending with ``…`` when
    cut, so a long tagline never stops mid-sentence without a sign."""
    wrapped = textwrap.wrap(text, max(1, width))
    if len(wrapped) <= lines:
        return "\n".join(wrapped)
    last = wrapped[lines - 1]
    if len(last) >= width:
        last = last[: width - 1].rstrip()
    return "\n".join([*wrapped[: lines - 1], last.rstrip(" ,;:") + "…"])


class HomeScreen(StudyScreen):
    """Where every session starts and ends."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_post", "tui.key.read", id="home.read"),
        Binding("s", "study_post", "tui.key.study", id="home.study"),
        Binding("r", "review_due", "tui.key.review", id="home.review"),
        Binding("c", "continue", "tui.key.continue", id="home.continue"),
        Binding("m", "study_more", "tui.key.study_more", id="home.more"),
        Binding("x", "practice", "tui.key.practice", id="home.practice"),
        Binding("p", "app.progress", "tui.key.progress", id="home.progress"),
        Binding("b", "app.browser", "tui.key.browser", id="home.browser"),
        # lesser keys: listed by F1 and the palette, not in the footer
        Binding("k", "app.calculator", "tui.key.calculator", show=False, id="home.calculator"),
        Binding("d", "app.decks", "tui.key.decks", show=False, id="home.decks"),
        Binding("comma", "app.settings", "tui.key.settings", show=False, id="home.settings"),
    ]
    COMPACT_FOOTER = True

    AUTO_FOCUS = ".post-row"

    def __init__(self) -> None:
        super().__init__(id="home")
        self.overview: Overview | None = None

    def compose(self) -> ComposeResult:
        posts = post_headings(self.lang)
        with Horizontal(id="topbar"):
            yield Label(self.tr("tui.app.title"), id="app-title")
            yield Label(self.tr("tui.home.loading"), id="today")
        yield Static("", id="exam-plan")
        yield Static("", id="notice")
        with VerticalScroll(id="posts"):
            for section in sections(posts):
                in_section = [post for post in posts if post.section == section]
                if not in_section:
                    continue
                yield Label(self.tr(f"tui.section.{section}"), classes="section-title")
                for post in in_section:
                    yield PostRow(post, self.lang)
        yield Static("", id="preview")
        yield SteadyFooter(compact=True)

    def on_mount(self) -> None:
        super().on_mount()
        # Counts after the first paint: the service imports SQLAlchemy and the decks.
        self.call_after_refresh(self.load_overview)

    async def on_screen_resume(self) -> None:
        await super().on_screen_resume()
        if self.overview is not None:
            self.load_overview()

    def after_language_change(self) -> None:
        self.load_overview()

    @work(exclusive=True, group="overview", exit_on_error=False)
    async def load_overview(self) -> None:
        lang = self.lang
        overview, recovered = await self.study_app.backend.call(
            lambda service: service.overview_and_recovered(lang))
        for prompt in recovered:
            # the prompt's start names the card; a whole scenario would cover half the screen
            self.notify(self.tr("tui.home.recovered", prompt=fit(visible(prompt), 80)),
                        markup=False, timeout=12)
        from studyapp.study.regraded import take_regrade_notices

        regraded = await self.study_app.backend.call(
            lambda service: take_regrade_notices(service, lang))
        for line in regraded:  # told once: reading them clears them
            self.notify(line, markup=False, timeout=20)
        self.post_message(OverviewLoaded(overview))
        from studyapp.progress import mastered_per_place

        per_post, per_deck = await self.study_app.backend.call(mastered_per_place)
        for progress in overview.posts:
            for row in self.query(f"#post-{progress.slug}").results(PostRow):
                row.show_mastered(per_post.get(progress.slug, 0))
        for course in overview.courses:
            for row in self.query(f"#course-{course.deck_id}").results(PostRow):
                row.show_mastered(per_deck.get(course.deck_id, 0))
        from studyapp.tuning import saved_exam_plan

        plan = await self.study_app.backend.call(saved_exam_plan)
        self.show_exam_plan(plan)

    def show_exam_plan(self, plan: ExamPlan | None) -> None:
        """The exam countdown and plan, once `plan --apply` saved an exam date."""
        line = self.query_one("#exam-plan", Static)
        line.display = plan is not None
        if plan is None:
            return
        from studyapp.tuning import recall_text

        recall = recall_text(plan.predicted_recall, self.lang)
        line.update(Content(self.tr("tuning.plan.line", days=plan.days_left,
                                    exam=plan.exam.isoformat(), new=plan.new_per_day,
                                    reviews=f"{plan.reviews_per_day:.0f}", recall=recall))
                    + Content("\n") + self.kept_line(plan))

    def kept_line(self, plan: ExamPlan) -> Content:
        """Recall a month after the exam under the plan's line; the cramming warning in the
        warning colour when the plan lifts the day and not the month after."""
        from studyapp.tuning import cramming_text, recall_text

        if plan.cramming:
            return Content.styled(cramming_text(plan, self.lang, short=True), "$warning")
        return Content(self.tr("tuning.plan.kept_line",
                               kept=recall_text(plan.recall_month_after, self.lang)))

    def on_overview_loaded(self, message: OverviewLoaded) -> None:
        self.overview = message.overview
        for progress in message.overview.posts:
            for row in self.query(f"#post-{progress.slug}").results(PostRow):
                row.show_progress(progress)
        self.show_courses(message.overview.courses)
        self.show_topbar()
        notice = self.notice_text(message.overview)
        self.query_one("#notice", Static).update(notice)
        self.query_one("#notice").set_class(bool(notice), "-shown")
        self.refresh_bindings()

    def show_courses(self, courses: tuple[CourseProgress, ...]) -> None:
        """Course decks (no post) after the posts, under a heading per course: mounted
        once the decks are loaded, updated in place when only their counts change."""
        rows = {row.deck_id: row for row in self.query(CourseRow)}
        if [c.deck_id for c in courses] == list(rows) and all(
                rows[c.deck_id].post.section == c.course for c in courses):
            for course in courses:
                rows[course.deck_id].show_progress(course)
            return
        self.query(".course-part").remove()
        widgets: list[Widget] = []
        heading: str | None = None
        for course in courses:
            if course.course != heading:
                heading = course.course
                widgets.append(Label(self.tr("tui.home.course", course=heading),
                                     classes="section-title course-part", markup=False))
            widgets.append(CourseRow(course, self.lang).add_class("course-part"))
        if widgets:
            self.query_one("#posts", VerticalScroll).mount_all(widgets)

    def notice_text(self, overview: Overview) -> str:
        """The daily limit reached (with what to do next), and what comes back when."""
        from studyapp.study import coming_back_text

        lines = []
        if overview.new_limit_reached:
            lines.append(self.tr("tui.home.limit_reached", done=overview.new_done_today,
                                 more=MORE_NEW))
        text = coming_back_text(overview.coming_back, self.lang)
        if text:
            lines.append(self.tr("tui.home.comes_back", text=text))
        return "\n".join(lines)

    def topbar_texts(self, overview: Overview, width: int) -> tuple[str, str]:
        """The title and today's numbers that fit in ``width`` columns, whole words only.

        "Reviewed today" stays: the site's name goes first, then the longer
        labels, then the streak.
        """
        counts = {"due": overview.due_today, "new": overview.new_left,
                  "done": overview.reviews_done_today}
        streak = getattr(overview, "streak", None)
        streak_text = " · " + self.tr("tui.home.streak", days=streak) if streak else ""
        full = self.tr("tui.home.today", **counts)
        short = self.tr("tui.home.today_short", **counts)
        title, title_short = self.tr("tui.app.title"), self.tr("tui.home.title_short")
        room = width - 2 - 2  # the bar's padding, the gap after the title
        for name, line in ((title, full + streak_text), (title_short, full + streak_text),
                           (title_short, full), (title_short, short + streak_text)):
            if len(name) + len(line) <= room:
                return name, line
        return title_short, short

    def show_topbar(self) -> None:
        if self.overview is None:
            return
        title, line = self.topbar_texts(self.overview, self.app.size.width)
        self.query_one("#app-title", Label).update(title)
        self.query_one("#today", Label).update(line)

    def on_resize(self) -> None:
        self.show_topbar()
        self.show_preview()

    # -- selection ---------------------------------------------------------

    @property
    def rows(self) -> list[PostRow]:
        return list(self.query(PostRow))

    @property
    def selected(self) -> PostRow | None:
        focused = self.focused
        return focused if isinstance(focused, PostRow) else None

    def on_descendant_focus(self) -> None:
        self.show_preview()

    def show_preview(self) -> None:
        row = self.selected
        if row is not None:
            width = self.app.size.width - 2  # the preview's padding
            self.query_one("#preview", Static).update(
                Content(clamp_lines(row.post.tagline, width)))

    def action_move(self, step: int) -> None:
        rows = self.rows
        current = self.selected
        index = rows.index(current) if current in rows else -1
        rows[max(0, min(len(rows) - 1, index + step))].focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("open_post", "study_post"):
            return self.selected is not None
        if action == "review_due":
            return self.overview is None or self.overview.due_today > 0 or None
        if action in ("study_more", "practice"):
            return self.overview is not None and self.overview.new_limit_reached
        return True

    # -- actions -----------------------------------------------------------

    def action_open_post(self) -> None:
        row = self.selected
        if isinstance(row, CourseRow):
            self.study_app.open_screen("course", row.deck_id)
        elif row is not None:
            self.study_app.open_post(row.slug)

    def action_study_post(self) -> None:
        row = self.selected
        if isinstance(row, CourseRow):
            self.study_app.study_course(row.deck_id)
        elif row is not None:
            self.study_app.study_post(row.slug)

    def action_review_due(self) -> None:
        self.study_app.review_due()

    def action_continue(self) -> None:
        self.study_app.continue_studying(self.overview)

    def action_study_more(self) -> None:
        row = self.selected
        self.study_app.study_more(row.slug if row is not None
                                  and not isinstance(row, CourseRow) else None)

    def action_practice(self) -> None:
        row = self.selected
        if row is not None and not isinstance(row, CourseRow):
            self.study_app.study_post(row.slug, practice=True)
        else:
            self.study_app.start_session("practice")

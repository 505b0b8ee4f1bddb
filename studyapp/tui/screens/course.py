"""A course deck's summary: read before its first session, as a post's is.

A deck that names no post carries its own title, course and Markdown
summary. The summary is the instructor's text: it is rendered as Markdown,
never read as Textual markup, and its links open nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Label, Markdown

from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.widgets.footer import SteadyFooter


class CourseScreen(StudyScreen):
    """Read a course deck's summary; ``s`` (or Enter, before a first session) studies it."""

    CSS_PATH = Path(__file__).parent / "post.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "study", "tui.key.study_course", id="course.study"),
        Binding("enter", "start", "tui.key.start", id="course.start"),
        Binding("escape", "back", "tui.key.back", id="course.back"),
    ]

    def __init__(self, deck_id: str, *, then_study: bool = False,
                 from_question: bool = False, limit: int | None = None) -> None:
        super().__init__(id="post-screen")
        self.deck_id = deck_id
        self.then_study = then_study
        self.from_question = from_question
        self.limit = limit
        """Question limit of the session that follows the reading."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="post-head"):
            yield Label("", id="post-heading")
            yield Label("", id="post-section")
        if self.then_study:
            yield Label(self.tr("tui.post.read_first"), id="read-first")
        with VerticalScroll(id="post-body"):
            yield Markdown("", id="summary", open_links=False)
        yield SteadyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#post-body").focus()
        self.load_course()

    @work(exclusive=True, group="course", exit_on_error=False)
    async def load_course(self) -> None:
        deck_id, lang = self.deck_id, self.lang

        def read(service):  # type: ignore[no-untyped-def]
            view = service.course_view(deck_id, lang)
            service.read_course(deck_id)
            return view

        view = await self.study_app.backend.call(read)
        self.query_one("#post-heading", Label).update(Content(view.title))
        self.query_one("#post-section", Label).update(
            Content(view.course if view.course != view.title else ""))
        await self.query_one("#summary", Markdown).update(
            view.summary or self.tr("tui.course.no_summary"))

    def after_language_change(self) -> None:
        self.load_course()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "study":
            return not self.from_question
        if action == "start":
            return self.then_study and not self.from_question
        return True

    def action_start(self) -> None:
        self.action_study()

    def action_study(self) -> None:
        if not self.from_question:
            self.study_app.start_session("deck", deck=self.deck_id, limit=self.limit,
                                         replace=True)

    def action_back(self) -> None:
        self.dismiss(None)

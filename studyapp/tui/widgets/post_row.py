"""A post's line on the home screen: title, tagline, progress bar and counts.

One widget that renders its own line (rather than five nested ones, or
component classes): the home screen shows twelve of them and must paint at
once. Colours are theme variables, resolved when the line is drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widget import Widget

from studyapp.i18n import t
from studyapp.tui.text import fit

if TYPE_CHECKING:
    from studyapp.study import CourseProgress, PostProgress
    from studyapp.tui.post_index import PostHeading

BAR_WIDTH = 10
COUNTS_WIDTH = 23


class PostRow(Widget, can_focus=True):
    """One focusable line per post; counts arrive after the first paint."""

    # On the row itself, so that the scrolling list around it does not take the keys.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "screen.move(1)", "tui.key.next", show=False, id="home.down"),
        Binding("up", "screen.move(-1)", "tui.key.previous", show=False, id="home.up"),
    ]

    def __init__(self, post: PostHeading, lang: str, *, row_id: str | None = None) -> None:
        super().__init__(id=row_id or f"post-{post.slug}", classes="post-row")
        self.post = post
        self.slug = post.slug
        self.lang = lang
        self.progress: PostProgress | CourseProgress | None = None
        self.mastered: int | None = None
        """Mastered cards (``progress.mastered_per_place``), once counted."""

    def show_progress(self, progress: PostProgress | CourseProgress) -> None:
        """Fill in the bar and counts from the service's overview."""
        self.progress = progress
        self.set_class(progress.due > 0, "-due")
        self.refresh()

    def show_mastered(self, mastered: int) -> None:
        """The mastery figure the progress screen shows for this post, and what it means."""
        from studyapp.progress import MASTERY_DEFINITION

        self.mastered = mastered
        if self.progress is not None:
            self.tooltip = t("tui.home.mastery_tip", self.lang, mastery=self.mastery_text(),
                             days=round(MASTERY_DEFINITION["stability_days_at_least"]))
        self.refresh()

    def mastery_text(self) -> str:
        from studyapp.progress import mastery_share

        if self.progress is None or self.mastered is None:
            return ""
        return f"{mastery_share(self.mastered, self.progress.total):.0%}"

    def counts_text(self) -> str:
        progress = self.progress
        if progress is None:
            return ""
        if progress.total == 0:
            return t("tui.home.no_cards", self.lang)
        # new cards held back as siblings, or waiting for what they build on, are not
        # offered today: not counted as new
        new = progress.offered
        counts = t("tui.home.counts_one_new" if new == 1 else "tui.home.counts", self.lang,
                   new=new, due=progress.due)
        mastery = self.mastery_text()
        return f"{mastery} · {counts}" if mastery else counts

    def bar(self, width: int) -> Content:
        progress = self.progress
        rest = "$text-disabled"
        if progress is None or progress.total == 0:
            return Content("─" * width).stylize(rest)
        # green: mastered (once counted; the review cards until then); amber: seen, not yet
        mastered = progress.review if self.mastered is None else self.mastered
        done = min(width, round(mastered / progress.total * width))
        learning = max(0, min(width - done, round((progress.review + progress.learning)
                                                  / progress.total * width) - done))
        return Content.assemble(
            Content("█" * done).stylize("$success"),
            Content("█" * learning).stylize("$warning"),
            Content("─" * (width - done - learning)).stylize(rest),
        )

    def render(self) -> Content:
        width = self.content_size.width
        counts_width = COUNTS_WIDTH if width >= 50 else 0
        bar_width = BAR_WIDTH if width >= 40 else 0
        side = counts_width + bar_width + (2 if bar_width else 0)
        title = self.post.title
        room = width - side
        title_width = min(len(title), room if width < 70 else max(10, room * 3 // 5))
        tagline_width = max(0, width - side - title_width - 2)
        focused = self.has_focus
        line = Content(fit(title, title_width)).stylize("bold" if focused else "")
        if tagline_width > 4:
            tagline = fit(self.post.tagline, tagline_width)
            line = Content.assemble(
                line, "  ", Content(tagline.ljust(tagline_width)).stylize(
                    "dim" if focused else "$text-muted"))
        else:
            line = Content.assemble(line, " " * max(0, width - side - line.cell_length))
        if bar_width:
            line = Content.assemble(line, " ", self.bar(bar_width), " ")
        if counts_width:
            style = "$warning" if self.has_class("-due") and not focused else (
                "" if focused else "$text-muted")
            counts = fit(self.counts_text(), counts_width).rjust(counts_width)
            line = Content.assemble(line, Content(counts).stylize(style))
        return line


class CourseRow(PostRow):
    """A course deck (a deck with no post) on the home screen, under its course."""

    def __init__(self, progress: CourseProgress, lang: str) -> None:
        from studyapp.tui.post_index import PostHeading

        heading = PostHeading(progress.deck_id, progress.title, progress.course, 0,
                              progress.tagline)
        super().__init__(heading, lang, row_id=f"course-{progress.deck_id}")
        self.add_class("course-row")
        self.deck_id = progress.deck_id
        self.show_progress(progress)

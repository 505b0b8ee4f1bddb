"""A post's line on the home screen: title, tagline, progress and counts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Label

from studyapp.i18n import t
from studyapp.tui.widgets.share_bar import ShareBar

if TYPE_CHECKING:
    from studyapp.catalog.posts import Post
    from studyapp.study import PostProgress


class PostRow(Horizontal, can_focus=True):
    """One focusable line per post; counts arrive after the first paint."""

    def __init__(self, post: Post, lang: str) -> None:
        super().__init__(id=f"post-{post.slug}", classes="post-row")
        self.post = post
        self.slug = post.slug
        self.lang = lang
        self.progress: PostProgress | None = None

    def compose(self) -> ComposeResult:
        yield Label(Content(self.post.title), classes="post-title")
        yield Label(Content(self.post.tagline), classes="post-tagline")
        yield ShareBar(classes="post-bar")
        yield Label("", classes="post-counts")

    def show_progress(self, progress: PostProgress) -> None:
        """Fill in the bar and counts from the service's overview."""
        self.progress = progress
        seen = progress.learning + progress.review
        parts = [(float(progress.review), "done"), (float(progress.learning), "learning")]
        self.query_one(ShareBar).update(parts, float(progress.total))
        if progress.total == 0:
            counts = t("tui.home.no_cards", self.lang)
        else:
            counts = t("tui.home.counts", self.lang, new=progress.new, due=progress.due)
        self.query_one(".post-counts", Label).update(counts)
        self.set_class(progress.due > 0, "-due")
        self.set_class(seen == progress.total and progress.total > 0, "-complete")

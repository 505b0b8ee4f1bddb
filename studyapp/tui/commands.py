"""Command palette: open or study any post, study any deck, by name."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher

from studyapp.i18n import t
from studyapp.text import visible

if TYPE_CHECKING:
    from studyapp.tui.study_context import StudyContext


class StudyCommands(Provider):
    """"Open post …", "Study post …" and "Study deck …" for every post and deck."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._commands: list[tuple[str, str, object]] = []

    @property
    def study_app(self) -> StudyContext:
        return cast("StudyContext", self.app)  # only the study app registers this provider

    async def startup(self) -> None:
        from studyapp.catalog.posts import list_posts

        app = self.study_app
        lang = app.lang
        commands: list[tuple[str, str, object]] = []
        for post in list_posts(lang):
            commands.append((t("tui.cmd.open_post", lang, title=post.title),
                             t("tui.cmd.open_post_help", lang),
                             partial(app.open_post, post.slug)))
            commands.append((t("tui.cmd.study_post", lang, title=post.title),
                             t("tui.cmd.study_post_help", lang),
                             partial(app.study_post, post.slug)))
        try:
            decks = await app.backend.call(lambda service: service.deck_titles(lang))
        except Exception:  # a broken deck folder must not break the palette
            decks = []
        for deck_id, title in decks:
            commands.append((t("tui.cmd.study_deck", lang, title=visible(title)),
                             t("tui.cmd.study_deck_help", lang, id=visible(deck_id)),
                             partial(app.start_session, "deck", deck=deck_id)))
        self._commands = commands

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands:
            yield DiscoveryHit(Content(title), callback, help=help_text)  # type: ignore[arg-type]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, plain_highlight(matcher, title),
                          callback, text=title, help=help_text)  # type: ignore[arg-type]


def plain_highlight(matcher: Matcher, title: str) -> Content:
    """Like ``Matcher.highlight`` but never parses the title as markup (deck titles)."""
    content = Content(title)
    _, offsets = matcher.fuzzy_search.match(matcher.query, title)
    for offset in offsets:
        if not title[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


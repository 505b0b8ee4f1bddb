"""What a screen may ask of the app: the service, the language, preferences, navigation.

Screens and the palette provider see the app only through ``StudyContext``;
``tui.app.StudyApp`` implements it (mypy checks that in ``app.py``), and no
screen imports ``tui.app``, so no import of any kind goes in a circle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from textual.binding import BindingType

    from studyapp.study import Overview
    from studyapp.tui.backend import StudyBackend
    from studyapp.tui.preferences import Preferences

MORE_NEW = 10
"""How many more new cards "study more" allows today (Anki's custom study)."""


class StudyContext(Protocol):
    """The study app as its screens see it."""

    BINDINGS: ClassVar[list[BindingType]]
    """The app's own keys (those that work on every screen)."""
    backend: StudyBackend
    """The study service, on its own thread."""
    preferences: Preferences
    seed: int | None
    """Seed of the questions' draws (tests and ``study --seed``); None: random."""

    @property
    def lang(self) -> str:
        """Language of the interface, the posts and the questions."""

    def update_preferences(self, **changes: Any) -> None:
        """Apply and save preferences."""

    def set_language(self, lang: str) -> None:
        """Switch the interface language."""

    def show_error(self, error: BaseException | None) -> None:
        """A failure shown as a message, never a traceback."""

    def open_screen(self, screen_id: str, *args: Any, replace: bool = False,
                    **kwargs: Any) -> None:
        """Open a registered screen (``tui.registry``) built with these arguments;
        ``replace``: in place of the current screen."""

    def open_post(self, slug: str, *, then_study: bool = False, from_question: bool = False,
                  limit: int | None = None, practice: bool = False) -> None:
        """Show a post's summary."""

    def study_post(self, slug: str, *, limit: int | None = None,
                   practice: bool = False) -> None:
        """Study one post; the first time, its summary comes first."""

    def study_course(self, deck_id: str, *, limit: int | None = None) -> None:
        """Study a deck; the first time, its summary (if it has one) comes first."""

    def start_session(self, kind: str, *, post: str | None = None, deck: str | None = None,
                      limit: int | None = None, replace: bool = False) -> None:
        """Open the question screen; ``replace``: in place of the current screen."""

    def review_due(self) -> None:
        """Due reviews and learning cards only."""

    def drill(self, misconception: str) -> None:
        """A practice drill on the cards that set one misconception's trap."""

    def study_more(self, slug: str | None, count: int = MORE_NEW) -> None:
        """Raise today's new-card limit, then study on."""

    def continue_studying(self, overview: Overview | None) -> None:
        """Whatever is due first."""


__all__ = ["MORE_NEW", "StudyContext"]

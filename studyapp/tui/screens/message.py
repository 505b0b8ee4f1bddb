"""Problems shown as a message on screen: a database that cannot be used, a bad deck.

A failed worker ends here instead of printing a traceback; a database
problem is fatal (the only key left quits, and the message is printed on exit).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from studyapp.i18n import t
from studyapp.tui.screens.base import StudyModal
from studyapp.tui.text import plain


def describe_error(error: BaseException | None, lang: str) -> tuple[bool, str]:
    """(fatal, message) for an exception raised by the study service."""
    if error is None:
        return False, t("tui.error.unknown", lang)
    name = type(error).__name__
    module = type(error).__module__
    detail = str(error) or name
    if name == "PermissionRefused" or module.startswith("sqlalchemy"):
        from studyapp.study.roles import refusal  # the store: loaded on failure only

        refused = refusal(error, lang)  # what a class's roles do not allow this login
        if refused is not None:  # fatal when the profile itself is not this login's
            return getattr(error, "key", "") in ("profile", "no_profile"), refused
    if name == "StoreError" or module.startswith(("sqlalchemy", "sqlite3", "alembic")):
        return True, t("tui.error.database", lang, detail=detail)
    if name == "DeckError" and callable(render := getattr(error, "render", None)):
        return False, render(lang)  # each problem in the reader's language
    if name == "CatalogError" and isinstance(error, ValueError):
        from studyapp.catalog import CatalogError
        from studyapp.decks.catalog_check import catalog_error_text

        if isinstance(error, CatalogError):  # file:line:col, in the reader's language
            return False, catalog_error_text(error, lang)
    if name in ("UnknownIdError", "DeckError", "NoSuchItem", "PostError", "CatalogError"):
        return False, detail
    return False, t("tui.error.unexpected", lang, kind=name, detail=detail)


class ErrorScreen(StudyModal):
    """One problem, in words; dismissed with Enter/Escape unless it is fatal."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "tui.key.close", id="error.close"),
        Binding("q", "quit_app", "tui.key.quit", id="error.quit"),
    ]

    def __init__(self, text: str, *, fatal: bool = False) -> None:
        super().__init__(id="error-screen")
        self.text = text
        self.fatal = fatal

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box"):
            yield Label(self.tr("tui.error.title_fatal" if self.fatal else "tui.error.title"),
                        id="error-title")
            yield Static(plain(self.text), id="error-text")
            if self.fatal:
                yield Button(self.tr("tui.error.quit_button"), id="error-quit", variant="error")
            else:
                yield Button(self.tr("tui.error.close_button"), id="error-ok", variant="primary")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close":
            return not self.fatal
        return True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "error-quit":
            self.action_quit_app()
        else:
            self.action_close()

    def action_close(self) -> None:
        if not self.fatal:
            self.dismiss(None)

    def action_quit_app(self) -> None:
        self.app.exit(return_code=1 if self.fatal else 0)


class ConfirmScreen(StudyModal):
    """A yes/no question; dismissed with True only by the yes button or y/s."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,s", "answer(True)", "tui.key.yes", id="confirm.yes"),
        Binding("escape,n", "answer(False)", "tui.key.no", id="confirm.no"),
    ]
    AUTO_FOCUS = "#confirm-no"  # Enter keeps the typed answer (focused once the dialog shows)

    def __init__(self, text: str, yes: str, no: str) -> None:
        super().__init__(id="confirm-screen")
        self.text = text
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(plain(self.text), id="confirm-text")
            with Horizontal(id="confirm-buttons"):
                yield Button(self.no, id="confirm-no", variant="primary", compact=True)
                yield Button(self.yes, id="confirm-yes", variant="error", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

"""What every studyapp screen shares: its language and localised key labels."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from textual.binding import ActiveBinding
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState

from studyapp.tui.strings import t

if TYPE_CHECKING:
    from studyapp.tui.app import StudyApp

# Labels of Textual's own bindings, shown in the footer, by their description.
_BUILTIN_LABELS = {"palette": "tui.key.palette", "Quit": "tui.key.quit"}


def localise_bindings(bindings: dict[str, ActiveBinding], lang: str) -> dict[str, ActiveBinding]:
    """Binding descriptions are i18n keys (``tui.key.*``); show them translated."""
    shown: dict[str, ActiveBinding] = {}
    for key, active in bindings.items():
        binding = active.binding
        description = binding.description
        key_name = description if description.startswith("tui.") else _BUILTIN_LABELS.get(
            description)
        if key_name:
            binding = replace(binding, description=t(key_name, lang))
        shown[key] = ActiveBinding(active.node, binding, active.enabled, active.tooltip)
    return shown


class Localised:
    """What every screen and dialog shares: the app, its language and key labels."""

    @property
    def study_app(self) -> StudyApp:
        return cast("StudyApp", self.app)  # type: ignore[attr-defined]

    @property
    def lang(self) -> str:
        return self.study_app.lang

    def tr(self, key: str, **fields: Any) -> str:
        return t(key, self.lang, **fields)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return localise_bindings(super().active_bindings, self.lang)  # type: ignore[misc]


class StudyScreen(Localised, Screen[None]):
    """A full screen; recomposes itself when the language changed while hidden."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._composed_lang: str | None = None


    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Worker messages do not bubble: each screen hands failures to the app."""
        if event.state is WorkerState.ERROR:
            self.study_app.show_error(event.worker.error)

    def on_mount(self) -> None:
        self._composed_lang = self.lang

    async def on_screen_resume(self) -> None:
        if self._composed_lang is not None and self._composed_lang != self.lang:
            self._composed_lang = self.lang
            await self.recompose()
            self.after_language_change()

    def after_language_change(self) -> None:
        """Reload what the screen shows in the new language (override when needed)."""


class StudyModal(Localised, ModalScreen[Any]):
    """A dialog with localised key labels."""


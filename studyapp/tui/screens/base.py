"""What every studyapp screen shares: the app (as ``StudyContext``), its language and
localised key labels."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import events, on
from textual.binding import ActiveBinding, Binding, BindingType
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from studyapp.i18n import t
from studyapp.tui.screens.page_keys import PAGE_BINDINGS, PageKeys

if TYPE_CHECKING:
    from studyapp.tui.study_context import StudyContext

# Labels of Textual's own bindings, shown in the footer, by their description.
_BUILTIN_LABELS = {"palette": "tui.key.palette", "Quit": "tui.key.quit",
                   "Dismiss menu": "tui.key.dismiss_menu"}  # Select's open list


def localise_bindings(bindings: dict[str, ActiveBinding], lang: str,
                      label: Callable[[Binding], str] | None = None) -> dict[str, ActiveBinding]:
    """Binding descriptions are i18n keys (``tui.key.*``); show them translated.

    ``label(binding)`` gives the key to show where it depends on the screen's state."""
    shown: dict[str, ActiveBinding] = {}
    for key, active in bindings.items():
        binding = active.binding
        description = binding.description if label is None else label(binding)
        key_name = description if description.startswith("tui.") else _BUILTIN_LABELS.get(
            description)
        if key_name:
            binding = replace(binding, description=t(key_name, lang))
        elif description != binding.description:
            binding = replace(binding, description=description)
        shown[key] = ActiveBinding(active.node, binding, active.enabled, active.tooltip)
    return shown


def fit_footer(bindings: dict[str, ActiveBinding], width: int, key_display: Any,
               palette_key: str = "ctrl+p", *, compact: bool = False
               ) -> dict[str, ActiveBinding]:
    """Hide the lesser keys so the footer's shown keys fit ``width`` whole.

    Textual cuts a footer that is too long in the middle of a word. Keys go,
    in this order, until the rest fits: the app's own keys (Quit…; F1 Help
    stays, since it lists every key), then the screen's keys from the last
    one declared. The key itself still works; only its label is hidden.
    """
    shown: dict[str, tuple[str, ActiveBinding]] = {}  # footer items: one per action
    for key, active in bindings.items():
        binding = active.binding
        if binding.show and binding.action not in {b.binding.action for _, b in shown.values()}:
            shown[key] = (key, active)

    def cost(active: ActiveBinding) -> int:
        padding = 2 if compact else 3
        return len(key_display(active.binding)) + len(active.binding.description) + padding

    palette = bindings.get(palette_key)
    room = width - (cost(palette) + 1 if palette is not None else 0)
    order = [k for k, (_, a) in shown.items()
             if (a.binding.id or "").startswith("app.") and a.binding.id != "app.help"]
    order += [k for k, (_, a) in reversed(shown.items())
              if not (a.binding.id or "").startswith("app.")][:-1]  # the first one stays
    hidden: set[str] = set()
    total = sum(cost(a) for _, a in shown.values())
    for key in order:
        if total <= room:
            break
        hidden.add(key)
        total -= cost(shown[key][1])
    if not hidden:
        return bindings
    result: dict[str, ActiveBinding] = {}
    for key, active in bindings.items():
        if key in hidden:
            active = ActiveBinding(active.node, replace(active.binding, show=False),
                                   active.enabled, active.tooltip)
        result[key] = active
    return result


class Localised:
    """What every screen and dialog shares: the app, its language and key labels."""

    COMPACT_FOOTER: ClassVar[bool] = False
    """Screens with many keys draw their footer compact (one space between keys)."""

    @property
    def study_app(self) -> StudyContext:
        """The app, as far as a screen needs it (``tui.context``)."""
        return cast("StudyContext", self.app)  # type: ignore[attr-defined]

    @property
    def lang(self) -> str:
        return self.study_app.lang

    def tr(self, key: str, **fields: Any) -> str:
        return t(key, self.lang, **fields)

    def binding_label(self, binding: Binding) -> str:
        """The label of ``binding`` in the footer now: its description, an i18n key
        (a screen whose one key does two things by state says which)."""
        return binding.description

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        shown = localise_bindings(super().active_bindings,  # type: ignore[misc]
                                  self.lang, self.binding_label)
        app = self.app  # type: ignore[attr-defined]
        return fit_footer(shown, app.size.width, app.get_key_display,
                          app.COMMAND_PALETTE_BINDING, compact=self.COMPACT_FOOTER)


MIN_COLUMNS = 40
MIN_ROWS = 10
"""Below this size a screen shows one notice instead of its widgets, cut to pieces."""


class TooSmallNotice(Static, can_focus=True):
    """The notice over a screen too small to use; it takes the keys while it shows, so
    nothing is answered or opened blind (ctrl+q, a priority key, still quits)."""

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()


class StudyScreen(Localised, PageKeys, Screen[None]):
    """A full screen; recomposes itself when the language changed while hidden."""

    BINDINGS: ClassVar[list[BindingType]] = PAGE_BINDINGS

    DEFAULT_CSS = """
    StudyScreen { layers: default too-small; }
    StudyScreen > #too-small {
        layer: too-small; width: 100%; height: 100%; display: none;
        background: $background; color: $text; padding: 0 1;
    }
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._composed_lang: str | None = None
        self._focus_before_notice: Widget | None = None


    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Worker messages do not bubble: each screen hands failures to the app."""
        if event.state is WorkerState.ERROR:
            self.study_app.show_error(event.worker.error)

    def on_mount(self) -> None:
        self._composed_lang = self.lang

    @on(events.Resize)
    def fit_footer_to_width(self) -> None:
        self.refresh_bindings()  # the footer shows as many keys as fit
        self.say_when_too_small()

    def say_when_too_small(self) -> None:
        """Cover the screen with a notice while the terminal is smaller than it can use."""
        size = self.app.size
        small = size.width < MIN_COLUMNS or size.height < MIN_ROWS
        notices = self.query("#too-small")
        if not small and not notices:
            return
        if notices:
            notice = notices.first(TooSmallNotice)
        else:
            notice = TooSmallNotice(id="too-small", markup=False)
            self.mount(notice)
        notice.update(self.tr("tui.too_small", columns=MIN_COLUMNS, rows=MIN_ROWS,
                              width=size.width, height=size.height))
        if small and self.focused is not notice:
            self._focus_before_notice = self.focused
        notice.display = small
        if small:
            notice.focus()
        elif self.focused is notice:
            before, self._focus_before_notice = self._focus_before_notice, None
            if before is not None and before.is_attached:
                before.focus()
            else:
                self.focus_next()

    async def on_screen_resume(self) -> None:
        if self._composed_lang is not None and self._composed_lang != self.lang:
            self._composed_lang = self.lang
            await self.recompose()
            self.after_language_change()

    def after_language_change(self) -> None:
        """Reload what the screen shows in the new language (override when needed)."""


class StudyModal(Localised, PageKeys, ModalScreen[Any]):
    """A dialog with localised key labels."""

    BINDINGS: ClassVar[list[BindingType]] = PAGE_BINDINGS


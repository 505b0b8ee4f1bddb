"""Every screen of the app, in one list: how it is opened, its key, its help and palette.

The app's ``action_<id>`` methods, its app-wide keys, the command palette's
screen entries and the help screen's sections are all made from ``SCREENS``.
A screen's class is named by its import path and imported when first
opened, so start-up loads only the home screen. Adding a screen: its module
under ``tui/screens/``, its strings in ``content/i18n/tui.*.yaml``, its test,
and one ``ScreenEntry(...)`` line here (``tests/tui/test_registry.py`` fails when
a screen class is missing or listed twice).

This module imports nothing from the screens, so any of them may read it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.binding import Binding, BindingType
    from textual.screen import Screen as TextualScreen


@dataclass(frozen=True)
class AppKey:
    """A key that opens the screen from anywhere (an app binding)."""

    keys: str
    """Textual key names, comma-separated: ``"f1,question_mark"``."""
    label: str
    """i18n key of the footer and help label."""
    show: bool = True
    """Shown in the footer (F1 lists every key either way)."""
    after: str | None = None
    """Id of the app binding it follows in the footer and the help; None: last."""


@dataclass(frozen=True)
class ScreenEntry:
    """One screen of the app."""

    id: str
    """``app.action_<id>`` opens it; the binding id of its key is ``app.<id>``."""
    path: str
    """``module:Class``, imported when the screen is first opened."""
    help: str | None = None
    """i18n key of its section title in the help screen (None: no section)."""
    palette: str | None = None
    """i18n key of its palette title; ``<palette>_help`` is the line under it.
    A screen with a palette entry or a key gets an ``action_<id>``."""
    palette_rank: int = 0
    """Place among the palette's screen entries (lowest first). Below 100 they
    come before the current screen's own commands, from 100 after them."""
    key: AppKey | None = None
    single: bool = False
    """Not opened again over itself (pressing its key there does nothing)."""

    @property
    def opens_from_app(self) -> bool:
        return self.palette is not None or self.key is not None

    def load(self) -> type[TextualScreen[Any]]:
        """The screen's class (importing its module the first time)."""
        cls: type[TextualScreen[Any]] = load_path(self.path)
        return cls


@dataclass(frozen=True)
class KeyedWidget:
    """A widget whose keys the help screen lists in a section of its own."""

    help: str
    path: str
    after: str
    """Id of the screen whose help section it follows."""


_S = "studyapp.tui.screens."

SCREENS: tuple[ScreenEntry, ...] = (
    ScreenEntry("home", _S + "home:HomeScreen", help="tui.help.home"),
    ScreenEntry("post", _S + "post:PostScreen", help="tui.help.post"),
    ScreenEntry("course", _S + "course:CourseScreen", help="tui.help.course"),
    ScreenEntry("question", _S + "question:QuestionScreen", help="tui.help.question"),
    ScreenEntry("summary", _S + "summary:SummaryScreen", help="tui.help.summary"),
    ScreenEntry("calculator", _S + "calculator:CalculatorScreen", help="tui.help.calculator",
                palette="tui.cmd.calculator", palette_rank=10),
    ScreenEntry("calc_charts", _S + "calc_charts:CalcChartsScreen", help="tui.help.calc_charts"),
    ScreenEntry("decks", _S + "decks:DecksScreen", help="tui.help.decks",
                palette="tui.cmd.decks", palette_rank=20),
    ScreenEntry("browser", _S + "browser:BrowserScreen", help="tui.help.browser",
                palette="tui.cmd.browser", palette_rank=40, single=True,
                key=AppKey("b", "tui.key.browser", show=False)),
    ScreenEntry("progress", _S + "progress:ProgressScreen", help="tui.help.progress",
                palette="tui.cmd.progress", palette_rank=30),
    ScreenEntry("progress_charts", _S + "progress_charts:ProgressChartsScreen",
                help="tui.help.progress_charts"),
    ScreenEntry("exam", _S + "exam:ExamScreen", help="tui.help.exam",
                palette="tui.cmd.exam", palette_rank=35, single=True),
    ScreenEntry("post_cards", _S + "post_cards:PostCardsScreen", help="tui.help.post_cards"),
    ScreenEntry("card_detail", _S + "card_detail:CardDetailScreen", help="tui.help.card_detail"),
    ScreenEntry("class_report", _S + "class_report:ClassReportScreen", help="tui.help.class_report",
                palette="tui.cmd.class_report", palette_rank=50, single=True),
    ScreenEntry("glossary", _S + "glossary:GlossaryScreen", palette="tui.cmd.glossary",
                palette_rank=60, single=True),
    ScreenEntry("settings", _S + "settings:SettingsScreen", help="tui.help.settings",
                palette="tui.cmd.settings", palette_rank=100),
    ScreenEntry("help", _S + "help:HelpScreen", palette="tui.cmd.help", palette_rank=110,
                single=True, key=AppKey("f1,question_mark", "tui.key.help", after="app.quit")),
    ScreenEntry("error", _S + "message:ErrorScreen"),
    ScreenEntry("confirm", _S + "message:ConfirmScreen"),
)
"""In the order of the help screen's sections."""

KEYED_WIDGETS: tuple[KeyedWidget, ...] = (
    KeyedWidget("tui.help.post_list", "studyapp.tui.widgets.post_row:PostRow", after="home"),
)

EVERYWHERE = "tui.help.everywhere"
"""Title of the help section of the app's own keys."""


def screen(screen_id: str) -> ScreenEntry:
    """The entry of ``screen_id`` (KeyError for an unknown id)."""
    for entry in SCREENS:
        if entry.id == screen_id:
            return entry
    raise KeyError(screen_id)


def app_bindings(own: Sequence[Binding]) -> list[BindingType]:
    """The app's bindings: ``own`` with every screen's key placed where it asks."""
    from textual.binding import Binding

    result = list(own)
    for entry in SCREENS:
        if entry.key is None:
            continue
        key = entry.key
        binding = Binding(key.keys, entry.id, key.label, show=key.show, id=f"app.{entry.id}")
        ids = [b.id for b in result]
        at = ids.index(key.after) + 1 if key.after in ids else len(result)
        result.insert(at, binding)
    shown: list[BindingType] = []
    shown.extend(result)
    return shown


def palette_entries(*, after_screen_commands: bool) -> Iterator[ScreenEntry]:
    """Screens with a palette entry, in palette order, before or after the
    current screen's own commands."""
    entries = sorted((e for e in SCREENS if e.palette is not None), key=lambda e: e.palette_rank)
    for entry in entries:
        if (entry.palette_rank >= 100) == after_screen_commands:
            yield entry


def help_sections() -> list[tuple[str, str | None]]:
    """(section title key, ``module:Class`` path) in help order; None is the app itself."""
    sections: list[tuple[str, str | None]] = [(EVERYWHERE, None)]
    for entry in SCREENS:
        if entry.help is not None:
            sections.append((entry.help, entry.path))
        sections.extend((w.help, w.path) for w in KEYED_WIDGETS if w.after == entry.id)
    return sections


def load_path(path: str) -> type[Any]:
    """The class named by a ``module:Class`` path."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def install_actions(app_class: type[Any]) -> type[Any]:
    """Give ``app_class`` an ``action_<id>`` for every screen opened from the app.

    Each calls ``app.open_screen(id, *args)``; arguments of the action (the
    browser's query) go to the screen's constructor.
    """
    for entry in SCREENS:
        if not entry.opens_from_app:
            continue

        def action(self: Any, *args: Any, _id: str = entry.id) -> None:
            self.open_screen(_id, *args)

        action.__name__ = f"action_{entry.id}"
        if hasattr(app_class, action.__name__):
            raise TypeError(f"{app_class.__name__}.{action.__name__} exists: "
                            f"screen id {entry.id!r} would hide it")
        action.__doc__ = f"Open the {entry.id.replace('_', ' ')} screen."
        setattr(app_class, action.__name__, action)
    return app_class


__all__ = ["EVERYWHERE", "KEYED_WIDGETS", "SCREENS", "AppKey", "KeyedWidget", "ScreenEntry",
           "app_bindings", "help_sections", "install_actions", "load_path", "palette_entries",
           "screen"]

"""One registry of screens: every screen class listed once, with keys that do not clash,
and the app's actions, keys, palette and help made from it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.screen import Screen

import studyapp.tui.screens as screens_package
from studyapp.tui import registry
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.base import StudyModal, StudyScreen
from studyapp.tui.screens.help import screens_with_keys

AppFactory = Callable[..., StudyApp]

BASES = {StudyScreen, StudyModal}
"""What screens are built on; not screens themselves."""


def screen_classes() -> set[str]:
    """``module:Class`` of every Screen subclass defined in ``studyapp/tui/screens``."""
    found: set[str] = set()
    for info in pkgutil.iter_modules(screens_package.__path__):
        module = importlib.import_module(f"{screens_package.__name__}.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (issubclass(cls, Screen) and cls.__module__ == module.__name__
                    and cls not in BASES):
                found.add(f"{module.__name__}:{cls.__name__}")
    return found


def test_every_screen_class_is_registered_once() -> None:
    paths = [entry.path for entry in registry.SCREENS]
    assert sorted(set(paths)) == sorted(paths), "a screen registered twice"
    assert set(paths) == screen_classes()


def test_every_registered_path_names_a_screen() -> None:
    for entry in registry.SCREENS:
        assert issubclass(entry.load(), Screen), entry.path


def test_screen_ids_and_keys_are_unique() -> None:
    ids = [entry.id for entry in registry.SCREENS]
    assert len(set(ids)) == len(ids)
    keys: dict[str, str] = {}
    for binding in StudyApp.BINDINGS:
        assert isinstance(binding, Binding)
        for key in binding.key.split(","):
            assert key not in keys, f"{key!r} opens both {keys[key]} and {binding.action}"
            keys[key] = binding.action


def test_the_app_has_an_action_for_every_screen_it_opens() -> None:
    for entry in registry.SCREENS:
        assert hasattr(StudyApp, f"action_{entry.id}") == entry.opens_from_app, entry.id


def test_app_keys_keep_their_order() -> None:
    """The help screen and the footer list the app's keys in this order."""
    ids = [b.id for b in StudyApp.BINDINGS if isinstance(b, Binding)]
    assert ids == ["app.quit", "app.help", "app.screenshot", "app.theme", "app.browser"]


def test_every_palette_title_exists_in_both_languages() -> None:
    from studyapp.i18n import t

    for entry in registry.SCREENS:
        for key in filter(None, (entry.palette, entry.help)):
            for lang in ("en", "es"):
                assert t(key, lang) != key
                if key == entry.palette:
                    assert t(f"{key}_help", lang) != f"{key}_help"


def test_help_lists_every_screen_with_a_help_section() -> None:
    listed = [cls for _, cls in screens_with_keys()]
    assert listed[0] is None  # the app's own keys first
    for entry in registry.SCREENS:
        if entry.help is not None:
            assert entry.load() in listed


def test_the_registry_imports_no_screen() -> None:
    """Start-up loads only the home screen: the registry names the others by path."""
    source = Path(registry.__file__).read_text(encoding="utf-8")
    assert "from studyapp.tui.screens" not in source


@pytest.mark.parametrize("screen_id", [e.id for e in registry.SCREENS
                                       if e.palette is not None])
async def test_palette_entries_open_their_screen(app_factory: AppFactory,
                                                 screen_id: str) -> None:
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        entry = registry.screen(screen_id)
        assert entry.palette is not None
        title = app.tr(entry.palette)
        command = next(c for c in app.get_system_commands(app.screen) if c.title == title)
        command.callback()
        await pilot.pause()
        assert isinstance(app.screen, entry.load())
        if entry.single:  # opened again from there, it is not stacked twice
            depth = len(app.screen_stack)
            command.callback()
            await pilot.pause()
            assert len(app.screen_stack) == depth


def test_every_key_in_a_footer_has_a_label_in_both_languages() -> None:
    """A shown binding's description is a ``tui.key.*`` string (the footer translates those
    alone): any other text would reach the footer as a raw key such as ``anki.key.image``."""
    from studyapp.i18n import strings

    classes = [StudyApp, *(entry.load() for entry in registry.SCREENS)]
    for cls in classes:
        for binding in cls.BINDINGS:
            if not isinstance(binding, Binding) or not binding.show:
                continue
            where = f"{cls.__name__} {binding.key}"
            assert binding.description.startswith("tui.key."), where
            for lang in ("en", "es"):
                assert binding.description in strings(lang), f"{where} ({lang})"

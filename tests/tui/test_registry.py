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
from studyapp.tui.screens.question_leave import LeavingAQuestion

AppFactory = Callable[..., StudyApp]

BASES = {StudyScreen, StudyModal, LeavingAQuestion}
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
    """The help screen and the footer list the app's keys in this order: each screen's key,
    as its registry entry gives it, right after the binding it names (or last)."""
    bindings = [b for b in StudyApp.BINDINGS if isinstance(b, Binding)]
    ids = [b.id for b in bindings]
    keyed = [entry for entry in registry.SCREENS if entry.key is not None]
    assert keyed, "no screen has an app key: this test checks nothing"
    placed_last = [f"app.{entry.id}" for entry in keyed
                   if entry.key is not None and entry.key.after is None]
    for entry in keyed:
        key = entry.key
        assert key is not None
        binding_id = f"app.{entry.id}"
        assert ids.count(binding_id) == 1, binding_id
        binding = bindings[ids.index(binding_id)]
        assert (binding.key, binding.action, binding.description, binding.show) == (
            key.keys, entry.id, key.label, key.show)
        at = ids.index(binding_id)
        if key.after is None:
            assert ids[at:] == placed_last[placed_last.index(binding_id):]
        else:
            anchor = ids.index(key.after)
            between = ids[anchor + 1:at]
            assert all(registry.screen(i.removeprefix("app.")).key.after == key.after
                       for i in between), (binding_id, between)
    own = [i for i in ids if i not in {f"app.{entry.id}" for entry in keyed}]
    assert own and all(i and i.startswith("app.") for i in own)


def test_the_palette_offers_the_registered_screens_in_rank_order(
        app_factory: AppFactory) -> None:
    """The palette's screen entries are the registry's, ranked, those from 100 after the
    current screen's own commands (none here: the app's screen has no rows)."""
    app = app_factory()
    titles = [command.title for command in app.get_system_commands(Screen())]
    ranked = sorted((e for e in registry.SCREENS if e.palette is not None),
                    key=lambda e: e.palette_rank)
    assert ranked, "no screen has a palette entry: this test checks nothing"
    wanted = [app.tr(e.palette) for e in ranked if e.palette is not None]
    shown = [title for title in titles if title in wanted]
    assert shown == wanted
    before = [app.tr(e.palette) for e in ranked if e.palette and e.palette_rank < 100]
    after = [app.tr(e.palette) for e in ranked if e.palette and e.palette_rank >= 100]
    if before and after:
        assert titles.index(before[-1]) < titles.index(after[0])


def test_no_screen_binds_a_key_twice() -> None:
    """One key, one binding on each screen (and on the app): a second binding of the same
    key hides behind the first, or wins by state where nobody can see which."""
    classes = [StudyApp, *(entry.load() for entry in registry.SCREENS),
               *(registry.load_path(widget.path) for widget in registry.KEYED_WIDGETS)]
    for cls in classes:
        seen: dict[str, str] = {}
        for binding in cls.BINDINGS:
            if not isinstance(binding, Binding):
                continue
            for key in (k.strip() for k in binding.key.split(",")):
                assert key not in seen, (
                    f"{cls.__name__} binds {key!r} to {seen[key]} and to {binding.action}")
                seen[key] = binding.action


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

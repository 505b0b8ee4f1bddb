"""The studyapp Textual app: built by ``make_app`` from resolved ``Settings``.

Screens live in ``screens/`` and are listed in ``registry.py``, which makes
the app's screen actions, keys, palette entries and help; this module only
wires them to the study service (on its own thread) and to the learner's
preferences. Screens see the app through ``context.StudyContext``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from studyapp import locations
from studyapp.i18n import t
from studyapp.tui import (
    nobreak,  # noqa: F401  (no-break spaces keep numbers whole)
    registry,
)
from studyapp.tui.backend import StudyBackend
from studyapp.tui.preferences import Preferences, load_preferences, save_preferences
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.study_context import MORE_NEW

if TYPE_CHECKING:
    from textual.command import Provider

    from studyapp.config import Settings
    from studyapp.study import Overview, StudyService
    from studyapp.tui.study_context import StudyContext


def study_commands_provider() -> type[Provider]:
    """Imported when the palette first opens: textual.command is not needed to start.

    Every screen but home is likewise imported when first opened ("opened on
    demand" below), so the home screen paints before their code loads.
    """
    from studyapp.tui.commands import StudyCommands

    return StudyCommands


@registry.install_actions
class StudyApp(App[None]):
    """Posts, questions and reviews in the terminal.

    Each screen opened from the app has an ``action_<id>`` made from
    ``registry.SCREENS`` (``action_calculator``, ``action_browser(query)``…).
    """

    CSS_PATH = Path(__file__).parent / "app.tcss"
    TITLE = "studyapp"
    COMMANDS = App.COMMANDS | {study_commands_provider}
    BINDINGS: ClassVar[list[BindingType]] = registry.app_bindings([  # + the screens' keys
        Binding("ctrl+q", "quit", "tui.key.quit", priority=True, id="app.quit"),
        Binding("ctrl+s", "save_screenshot", "tui.key.screenshot", show=False,
                id="app.screenshot"),
        Binding("ctrl+t", "change_theme", "tui.key.theme", show=False, id="app.theme"),
    ])

    lang: reactive[str] = reactive("en", init=False)
    """Language of the interface, the posts and the questions."""

    def __init__(self, settings: Settings, *, preferences: Preferences | None = None,
                 preferences_path: Path | None = None, study: dict[str, Any] | None = None,
                 clock: Callable[[], datetime] | None = None, seed: int | None = None,
                 stopwatch: Callable[[], float] | None = None,
                 lang_from_command_line: bool = True) -> None:
        super().__init__()
        self.settings = settings
        self.preferences_path = preferences_path
        self.preferences = preferences if preferences is not None else load_preferences(
            preferences_path)
        lang = settings.lang
        if not lang_from_command_line and self.preferences.language:
            lang = self.preferences.language
        self.set_reactive(StudyApp.lang, lang)
        self.study_request = study
        self.seed = seed if seed is not None else (study or {}).get("seed")
        self.clock = clock
        self.stopwatch = stopwatch
        self.backend = StudyBackend(self._make_service)
        self.fatal_error: str | None = None
        if self.preferences.theme and self.preferences.theme in self.available_themes:
            self.theme = self.preferences.theme
        if self.preferences.keymap:
            self.set_keymap(self.preferences.keymap)

    def _make_service(self) -> StudyService:
        """Built on the service thread: importing it pulls in SQLAlchemy and fsrs."""
        from studyapp.study import StudyConfig, StudyService  # on the service thread

        config = StudyConfig(db_url=self.settings.db_url, profile=self.settings.profile,
                             lang=self.lang)
        if self.clock is not None:
            config = replace(config, clock=self.clock)
        if self.stopwatch is not None:
            config = replace(config, stopwatch=self.stopwatch)
        return StudyService(config)

    # -- lifecycle -----------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        return HomeScreen()

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        if self.is_web:
            self._end_with_the_server()
        elif not self.is_headless:
            # SIGTERM (a shutdown, `kill`) quits as ctrl+q does: the last answer is kept
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self.exit)
        if self.study_request is not None:
            request = self.study_request
            self.call_after_refresh(self._start_requested_session, request)

    def _start_requested_session(self, request: dict[str, Any]) -> None:
        """``studyapp study ...`` opens the question screen over the home screen
        (``studyapp exam`` the exam screen)."""
        if request.get("exam") is not None:
            self.open_screen("exam", **request["exam"])
        elif request.get("misconception"):
            self.drill(request["misconception"])
        elif request.get("deck"):
            self.study_course(request["deck"], limit=request.get("limit"))
        elif request.get("post"):
            self.study_post(request["post"], limit=request.get("limit"),
                            practice=bool(request.get("practice")))
        else:
            kind = "practice" if request.get("practice") else "due"
            self.start_session(kind, limit=request.get("limit"))

    def on_unmount(self) -> None:
        self.backend.close()

    def _end_with_the_server(self, poll_s: float = 1.0) -> None:
        """Served to a browser, quit (saving as usual) if the server is killed rather than
        stopped, instead of running on with no tab to show."""

        server = os.getppid()

        def watch() -> None:
            while self.is_running:
                time.sleep(poll_s)
                if os.getppid() != server:
                    with contextlib.suppress(RuntimeError):  # already exiting
                        self.call_from_thread(self.exit)
                    return

        threading.Thread(target=watch, name="studyapp-server-watch", daemon=True).start()

    def on_app_focus(self) -> None:
        """In a browser the app starts unfocused, and a screen shown then skips its
        AUTO_FOCUS; give the screen its first widget once the page has focus."""
        screen = self.screen
        if screen.focused is not None:
            return
        selector = screen.AUTO_FOCUS if screen.AUTO_FOCUS is not None else self.AUTO_FOCUS
        if selector:
            for widget in screen.query(selector):
                if widget.focusable:
                    screen.set_focus(widget, scroll_visible=False)
                    break

    def _remember_theme(self, theme: object) -> None:
        self.update_preferences(theme=self.theme)

    def update_preferences(self, **changes: Any) -> None:
        """Apply and save at once; the file is written only when something changed."""
        new = self.preferences.with_changes(**changes)
        if new == self.preferences:
            return
        self.preferences = new
        try:
            save_preferences(new, self.preferences_path)
        except OSError as exc:
            self.notify(self.tr("tui.error.save_settings", detail=str(exc)), severity="error")

    def tr(self, key: str, **fields: Any) -> str:
        return t(key, self.lang, **fields)

    def set_language(self, lang: str) -> None:
        """Switch the interface language; screens recompose when shown again."""
        self.update_preferences(language=lang)
        self.lang = lang

    # -- errors ---------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A failed worker becomes a message on screen, never a traceback."""
        if event.state is not WorkerState.ERROR:
            return
        self.show_error(event.worker.error)

    def show_error(self, error: BaseException | None) -> None:
        from studyapp.tui.screens.message import describe_error  # opened on demand

        fatal, text = describe_error(error, self.lang)
        if fatal:
            self.fatal_error = text
        if isinstance(self.screen, registry.screen("error").load()):
            return
        self.open_screen("error", text, fatal=fatal)

    # -- navigation -------------------------------------------------------------

    def open_screen(self, screen_id: str, *args: Any, replace: bool = False,
                    **kwargs: Any) -> None:
        """Open the registered screen ``screen_id`` (imported on demand), built with
        these arguments; ``replace``: in place of the current screen."""
        entry = registry.screen(screen_id)
        screen_class = entry.load()
        if entry.single and isinstance(self.screen, screen_class):
            return
        new = screen_class(*args, **kwargs)
        if replace:
            self.switch_screen(new)
        else:
            self.push_screen(new)

    def open_post(self, slug: str, *, then_study: bool = False, from_question: bool = False,
                  limit: int | None = None, practice: bool = False) -> None:
        self.open_screen("post", slug, then_study=then_study, from_question=from_question,
                         limit=limit, practice=practice)

    def study_post(self, slug: str, *, limit: int | None = None, practice: bool = False) -> None:
        """Study one post; the first time, its summary comes first."""
        self.update_preferences(last_post=slug)
        self.run_worker(self._study_post(slug, limit, practice), group="start",
                        exclusive=True, exit_on_error=False)

    async def _study_post(self, slug: str, limit: int | None, practice: bool) -> None:
        read = await self.backend.call(lambda service: service.has_read(slug))
        if not read:
            self.open_post(slug, then_study=True, limit=limit, practice=practice)
            return
        self.start_session("practice" if practice else "post", post=slug, limit=limit)

    def study_course(self, deck_id: str, *, limit: int | None = None) -> None:
        """Study a deck; the first time, its summary (if it has one) comes first."""
        self.run_worker(self._study_course(deck_id, limit), group="start", exclusive=True,
                        exit_on_error=False)

    async def _study_course(self, deck_id: str, limit: int | None) -> None:
        if await self.backend.call(lambda service: service.summary_first(deck_id)):
            self.open_screen("course", deck_id, then_study=True, limit=limit)
            return
        self.start_session("deck", deck=deck_id, limit=limit)

    def drill(self, misconception: str) -> None:
        """A practice drill on the cards that set one misconception's trap."""
        self.open_screen("question", "practice", seed=self.seed, misconception=misconception)

    def start_session(self, kind: str, *, post: str | None = None, deck: str | None = None,
                      limit: int | None = None, replace: bool = False) -> None:
        """The question screen; ``replace``: in place of the current screen (a post's
        summary opens its session so, and Escape then goes back past it)."""
        self.open_screen("question", kind, post=post, deck=deck, limit=limit, seed=self.seed,
                         replace=replace)

    async def action_quit(self) -> None:
        """ctrl+q quits, unless the screen asks first (an answer typed and not sent)."""
        ask = getattr(self.screen, "confirm_quit", None)
        if callable(ask) and ask():
            return
        self.exit()

    def review_due(self) -> None:
        """Due reviews and learning cards only; new cards belong to study sessions."""
        self.start_session("review")

    def study_more(self, slug: str | None, count: int = MORE_NEW) -> None:
        """Raise today's new-card limit (Anki's custom study), then study on."""

        async def more() -> None:
            await self.backend.call(lambda service: service.study_more_new(count))
            self.notify(self.tr("tui.home.more_added", count=count))
            if slug is not None:
                self.study_post(slug)
            else:
                self.start_session("due")

        self.run_worker(more(), group="study-more", exit_on_error=False)

    def continue_studying(self, overview: Overview | None) -> None:
        """Whatever is due first: the last post's due cards, then any due card; then new
        cards of the last post, or of the first post that has some."""
        self.run_worker(self._continue_studying(overview), group="start", exclusive=True,
                        exit_on_error=False)

    async def _continue_studying(self, overview: Overview | None) -> None:
        last = self.preferences.last_post
        posts = [] if overview is None else [p.slug for p in overview.posts]
        choice = await self.backend.call(lambda service: service.continue_choice(last, posts))
        if choice is None:
            self.notify(self.tr("tui.home.nothing_left"))
        elif choice[0] == "wait":
            when = datetime.fromisoformat(choice[1]).astimezone().strftime("%H:%M")
            self.notify(self.tr("tui.home.next_due", time=when))
        elif choice[0] == "review":
            self.review_due()
        else:
            self.study_post(choice[1])

    def action_save_screenshot(self, filename: str | None = None) -> None:
        """An SVG of the screen in the user's data folder; the notice says where."""

        folder = locations.data_dir() / "screenshots"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = self.save_screenshot(filename, path=str(folder))
        except OSError as exc:
            self.notify(self.tr("tui.app.screenshot_failed", detail=str(exc)),
                        severity="error", markup=False)
            return
        self.notify(self.tr("tui.app.screenshot_saved", path=path), markup=False)

    # -- command palette -----------------------------------------------------------

    def action_command_palette(self) -> None:
        from textual.command import CommandPalette  # only when the palette opens

        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(CommandPalette(id="--command-palette",
                                            placeholder=self.tr("tui.palette.placeholder")))

    def search_themes(self) -> None:
        from textual.command import CommandPalette  # only when the palette opens
        from textual.theme import ThemeProvider

        self.push_screen(CommandPalette(providers=[ThemeProvider],
                                        placeholder=self.tr("tui.palette.themes")))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every app action, titled in the interface language."""
        tr = self.tr
        yield SystemCommand(tr("tui.cmd.home"), tr("tui.cmd.home_help"), self.go_home)
        yield SystemCommand(tr("tui.cmd.review"), tr("tui.cmd.review_help"), self.review_due)
        yield SystemCommand(tr("tui.cmd.continue"), tr("tui.cmd.continue_help"),
                            self._continue_from_palette)
        yield from self._screen_commands(after_screen_commands=False)
        palette_commands = getattr(screen, "palette_commands", None)
        if callable(palette_commands):  # the screen's own actions on its highlighted row
            yield from palette_commands()
        yield from self._screen_commands(after_screen_commands=True)
        yield SystemCommand(tr("tui.cmd.theme"), tr("tui.cmd.theme_help"),
                            self.action_change_theme)
        other = "en" if self.lang == "es" else "es"
        yield SystemCommand(tr("tui.cmd.language", language=tr(f"tui.language.{other}")),
                            tr("tui.cmd.language_help"), lambda: self.set_language(other))
        yield SystemCommand(tr("tui.cmd.screenshot"), tr("tui.cmd.screenshot_help"),
                            self.action_save_screenshot)
        yield SystemCommand(tr("tui.cmd.quit"), tr("tui.cmd.quit_help"), self.exit)

    def _screen_commands(self, *, after_screen_commands: bool) -> Iterable[SystemCommand]:
        """The registered screens' palette entries (``registry.SCREENS``)."""
        for entry in registry.palette_entries(after_screen_commands=after_screen_commands):
            assert entry.palette is not None
            yield SystemCommand(self.tr(entry.palette), self.tr(f"{entry.palette}_help"),
                                partial(self.open_screen, entry.id))

    def go_home(self) -> None:
        while len(self.screen_stack) > 1:
            self.pop_screen()

    def _continue_from_palette(self) -> None:
        home = self.screen_stack[0] if self.screen_stack else None
        self.continue_studying(home.overview if isinstance(home, HomeScreen) else None)


def as_context(app: StudyApp) -> StudyContext:
    """The app as its screens see it (mypy checks here that it implements the Protocol)."""
    return app


def make_app(settings: Settings, *, study: dict[str, Any] | None = None,
             clock: Callable[[], datetime] | None = None, seed: int | None = None,
             stopwatch: Callable[[], float] | None = None,
             preferences_path: Path | None = None,
             lang_from_command_line: bool = True) -> StudyApp:
    """The app for these settings (the command line and the tests use this)."""
    return StudyApp(settings, study=study, clock=clock, seed=seed, stopwatch=stopwatch,
                    preferences_path=preferences_path,
                    lang_from_command_line=lang_from_command_line)


def run_app(settings: Settings, study: dict[str, Any] | None = None) -> None:
    """Run the app; a database that cannot be used ends with a clear message.

    Without a terminal (stdin or stdout a pipe or /dev/null) the app would
    wait forever writing escape codes: it says to use the plain loop instead.
    textual-serve runs the app over pipes with its own driver, which is fine.
    """

    if not (sys.stdin.isatty() and sys.stdout.isatty()) and not os.environ.get(
            "TEXTUAL_DRIVER"):

        print(t("tui.no_terminal", settings.lang), file=sys.stderr)
        sys.exit(2)
    app = make_app(settings, study=study, lang_from_command_line=settings.lang_chosen)
    app.run()
    if app.fatal_error:
        print(f"studyapp: {app.fatal_error}", file=sys.stderr)
        sys.exit(1)
    if app.return_code:  # the app stopped on an error it could not show: say so in the status
        sys.exit(app.return_code)


__all__ = ["StudyApp", "make_app", "run_app"]

"""Settings: language, theme, daily limits, retention and new-card order, applied at once;
below them each deck's own options (from Anki), shown.

Language and theme live in the app's settings file (with key remaps);
limits and retention belong to the learner's profile in the database,
saved through the study service. Nothing is written unless it changed.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Label,
    ProgressBar,
    Select,
    Static,
)

from studyapp.progress.options_text import options_lines
from studyapp.srs.deck_options import shown_options
from studyapp.srs.queue import DEFAULT_NEW_CARD_ORDER, NEW_CARD_ORDERS
from studyapp.tui.preferences import preferences_path
from studyapp.tui.screens.base import StudyScreen
from studyapp.tui.widgets.footer import SteadyFooter

if TYPE_CHECKING:
    from studyapp.srs.scheduler import SchedulerSettings

LIMITS = {"new_per_day": (0, 1000), "reviews_per_day": (0, 10000), "learn_ahead_min": (0, 120)}
RETENTION = (0.7, 0.99)


EASY_DAY_LETTERS = {"n": "normal", "r": "reduced", "m": "minimum"}
"""One letter a weekday in the easy-days field (the same initials in Spanish)."""


def parse_easy_days(text: str) -> tuple[str, ...]:
    """'nnnnnrn' (Monday to Sunday, spaces allowed) as the easy_days setting."""
    letters = text.replace(" ", "").lower()
    if len(letters) != 7 or any(c not in EASY_DAY_LETTERS for c in letters):
        raise ValueError(text)
    return tuple(EASY_DAY_LETTERS[c] for c in letters)


def parse_retention(text: str) -> float:
    """``0.9``, ``90%`` or ``0,9``, between 0.70 and 0.99."""
    cleaned = text.strip().replace(",", ".")
    value = float(cleaned.rstrip("% ")) / (100 if cleaned.endswith("%") else 1)
    if not RETENTION[0] <= value <= RETENTION[1]:
        raise ValueError(text)
    return round(value, 3)


class SettingsScreen(StudyScreen):
    """One field per line; every valid change is applied and saved immediately."""

    CSS_PATH = Path(__file__).parent / "pages.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "tui.key.back", id="settings.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="settings-screen")
        self.scheduler_settings: SchedulerSettings | None = None

    def compose(self) -> ComposeResult:
        app = self.study_app
        yield Label(self.tr("tui.settings.title"), classes="screen-title")
        with VerticalScroll(id="settings-body"):
            languages = [(self.tr(f"tui.language.{code}"), code) for code in ("es", "en")]
            yield from self.field("language", Select(languages, id="language", value=app.lang,
                                                     prompt=self.tr("tui.select.prompt"),
                                                     allow_blank=False, compact=True))
            themes = [(name, name) for name in sorted(self.app.available_themes)]
            yield from self.field("theme", Select(themes, id="theme", value=self.app.theme,
                                                  prompt=self.tr("tui.select.prompt"),
                                                  allow_blank=False, compact=True))
            yield from self.field("new_per_day", Input("", id="new_per_day", compact=True,
                                                       disabled=True))
            yield from self.field("reviews_per_day", Input("", id="reviews_per_day",
                                                           compact=True, disabled=True))
            yield from self.field("retention", Input("", id="retention", compact=True,
                                                     disabled=True))
            yield from self.field("learn_ahead_min", Input("", id="learn_ahead_min",
                                                           compact=True, disabled=True))
            orders = [(self.tr(f"tui.settings.new_card_order.{name}"), name)
                      for name in NEW_CARD_ORDERS]
            yield from self.field("new_card_order", Select(
                orders, id="new_card_order", value=DEFAULT_NEW_CARD_ORDER,
                prompt=self.tr("tui.select.prompt"), allow_blank=False, compact=True,
                disabled=True))
            for name in ("fuzz", "load_balancing"):
                yield from self.field(name, Checkbox(self.tr("tui.settings.switch_on"), id=name,
                                                     compact=True, disabled=True))
            yield from self.field("easy_days", Input("", id="easy_days", compact=True,
                                                     disabled=True))
            yield Static("", id="settings-status")
            yield from self.field("ignore_before", Input(
                "", id="ignore_before", placeholder="YYYY-MM-DD", compact=True, disabled=True))
            with Horizontal(classes="settings-field"):
                yield Label(self.tr("tuning.settings.optimize"), classes="settings-label")
                yield Button(self.tr("tuning.settings.optimize_button"), id="optimize",
                             compact=True)
                yield Checkbox(self.tr("tuning.settings.reschedule"), id="reschedule",
                               compact=True)
                yield Button(self.tr("tuning.settings.undo_button"), id="optimize-undo",
                             compact=True, disabled=True)
            yield Label(self.tr("tuning.settings.optimize_help"), classes="hint settings-help")
            yield ProgressBar(total=1.0, show_eta=False, id="optimize-progress")
            yield Static("", id="optimize-status")
            yield Label(self.tr("tui.settings.deck_options"), classes="settings-label")
            yield Static("", id="deck-options", classes="hint")
            yield Static(Content(self.tr("tui.settings.keymap", path=str(preferences_path()))),
                         id="settings-keymap", classes="hint")
        yield SteadyFooter()

    def field(self, name: str, widget: Any) -> ComposeResult:
        with Horizontal(classes="settings-field"):
            yield Label(self.tr(f"tui.settings.{name}"), classes="settings-label")
            yield widget
        yield Label(self.tr(f"tui.settings.{name}_help"), classes="hint settings-help")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#language", Select).focus()
        self.load()

    def after_language_change(self) -> None:
        self.load()

    @work(exclusive=True, group="settings", exit_on_error=False)
    async def load(self) -> None:
        settings = await self.study_app.backend.call(lambda service: service.settings)
        self.show_scheduler_settings(settings)

    def show_scheduler_settings(self, settings: SchedulerSettings) -> None:
        self.scheduler_settings = settings
        values = {"new_per_day": str(settings.new_per_day),
                  "reviews_per_day": str(settings.reviews_per_day),
                  "retention": self.format_retention(settings.desired_retention),
                  "learn_ahead_min": str(settings.learn_ahead_min)}
        for name, value in values.items():
            field = self.query_one(f"#{name}", Input)
            with self.prevent(Input.Changed):
                field.value = value
            field.disabled = False
        ignore = self.query_one("#ignore_before", Input)
        with self.prevent(Input.Changed):
            ignore.value = settings.ignore_reviews_before or ""
        ignore.disabled = False
        order = self.query_one("#new_card_order", Select)
        with self.prevent(Select.Changed):
            order.value = (settings.new_card_order if settings.new_card_order in NEW_CARD_ORDERS
                           else DEFAULT_NEW_CARD_ORDER)
        order.disabled = False
        for name in ("fuzz", "load_balancing"):
            box = self.query_one(f"#{name}", Checkbox)
            with self.prevent(Checkbox.Changed):
                box.value = bool(getattr(settings, name))
            box.disabled = False
        easy = self.query_one("#easy_days", Input)
        with self.prevent(Input.Changed):
            easy.value = "".join(day[0] for day in settings.easy_days)
        easy.disabled = False
        # each deck with options of its own (from Anki), as the deck uses them; text from a
        # package is shown as text, never as markup
        lines = options_lines(shown_options(settings), self.lang)
        self.query_one("#deck-options", Static).update(
            Content("\n".join(lines) or self.tr("tui.settings.deck_options_none")))
        # undo puts back the parameters the last optimize replaced, when it replaced some
        self.query_one("#optimize-undo", Button).disabled = settings.previous_parameters is None

    def format_retention(self, value: float) -> str:
        text = f"{value:.2f}"
        return text.replace(".", ",") if self.lang == "es" else text

    @on(Select.Changed, "#language")
    async def on_language(self, event: Select.Changed) -> None:
        lang = event.value
        if isinstance(lang, str) and lang != self.lang:
            self.study_app.set_language(lang)
            self._composed_lang = lang
            await self.recompose()
            self.query_one("#language", Select).focus()
            self.load()

    @on(Select.Changed, "#theme")
    def on_theme(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self.app.theme:
            self.app.theme = event.value  # the app saves it (theme_changed_signal)

    @on(Select.Changed, "#new_card_order")
    def on_new_card_order(self, event: Select.Changed) -> None:
        current = self.scheduler_settings
        if (current is not None and isinstance(event.value, str)
                and event.value != current.new_card_order):
            self.save({"new_card_order": event.value})

    @on(Checkbox.Changed, "#fuzz, #load_balancing")
    def on_scheduler_switch(self, event: Checkbox.Changed) -> None:
        current, name = self.scheduler_settings, event.checkbox.id
        if current is not None and name and event.value != getattr(current, name):
            self.save({name: event.value})

    @on(Input.Changed, "#new_per_day, #reviews_per_day, #retention, #learn_ahead_min, "
                       "#easy_days")
    def on_scheduler_field(self, event: Input.Changed) -> None:
        current = self.scheduler_settings
        field = event.input
        if current is None or field.id is None:
            return
        changes: dict[str, Any] = {}
        try:
            if field.id == "retention":
                value: float | int = parse_retention(field.value)
                if value != current.desired_retention:
                    changes["desired_retention"] = value
            elif field.id == "easy_days":
                week = parse_easy_days(field.value)
                if week != current.easy_days:
                    changes["easy_days"] = week
            else:
                low, high = LIMITS[field.id]
                value = int(field.value.strip())
                if not low <= value <= high:
                    raise ValueError(field.value)
                if value != getattr(current, field.id):
                    changes[field.id] = value
        except ValueError:
            field.add_class("-invalid")
            self.query_one("#settings-status", Static).update(
                self.tr("tui.settings.invalid", field=self.tr(f"tui.settings.{field.id}")))
            return
        field.remove_class("-invalid")
        self.query_one("#settings-status", Static).update("")
        if changes:
            self.save(changes)

    @on(Input.Changed, "#ignore_before")
    def on_ignore_before(self, event: Input.Changed) -> None:
        """Anki's "Ignore cards reviewed before": a past date, or empty for none."""
        current = self.scheduler_settings
        if current is None:
            return
        text = event.value.strip()
        try:
            day = date.fromisoformat(text) if text else None
            if day is not None and day > date.today():
                raise ValueError(text)
        except ValueError:
            event.input.add_class("-invalid")
            self.query_one("#settings-status", Static).update(
                self.tr("tui.settings.invalid", field=self.tr("tui.settings.ignore_before")))
            return
        event.input.remove_class("-invalid")
        self.query_one("#settings-status", Static).update("")
        value = day.isoformat() if day is not None else None
        if value != current.ignore_reviews_before:
            self.save({"ignore_reviews_before": value})

    @work(exclusive=True, group="save-settings", exit_on_error=False)
    async def save(self, changes: dict[str, Any]) -> None:
        self.scheduler_settings = await self.study_app.backend.call(
            lambda service: service.update_settings(**changes))
        self.query_one("#settings-status", Static).update(self.tr("tui.settings.saved"))

    # -- FSRS optimizer ------------------------------------------------------

    @on(Button.Pressed, "#optimize")
    def on_optimize(self) -> None:
        self.run_optimizer()

    def show_stage(self, stage: str, fraction: float) -> None:
        """Progress from the optimizer, called on the event loop."""
        self.query_one("#optimize-progress", ProgressBar).update(progress=fraction)
        self.query_one("#optimize-status", Static).update(
            Content(self.tr(f"tuning.stage.{stage}")))

    @work(exclusive=True, group="optimize", exit_on_error=False)
    async def run_optimizer(self) -> None:
        from studyapp.tuning import optimize_profile, optimize_summary

        button = self.query_one("#optimize", Button)
        bar = self.query_one("#optimize-progress", ProgressBar)
        button.disabled = True
        bar.update(progress=0)
        bar.display = True

        def report(stage: str, fraction: float) -> None:  # on the service thread
            self.app.call_from_thread(self.show_stage, stage, fraction)

        status = self.query_one("#optimize-status", Static)
        reschedule = self.query_one("#reschedule", Checkbox).value
        try:
            outcome = await self.study_app.backend.call(
                lambda service: optimize_profile(service, progress=report, reschedule=reschedule))
        except Exception as exc:  # shown, never swallowed: fsrs-rs or the database failed
            status.update(Content(self.tr("tuning.optimize.failed", detail=str(exc))))
            return
        finally:
            button.disabled = False
            bar.display = False
        status.update(Content(optimize_summary(outcome, self.lang)))
        if outcome.saved:
            self.load()

    @on(Button.Pressed, "#optimize-undo")
    def on_undo_optimize(self) -> None:
        self.undo_optimizer()

    @work(exclusive=True, group="optimize", exit_on_error=False)
    async def undo_optimizer(self) -> None:
        """The parameters before the last optimize, and the memory states they give."""
        from studyapp.tuning import undo_optimize

        button = self.query_one("#optimize-undo", Button)
        button.disabled = True
        reschedule = self.query_one("#reschedule", Checkbox).value
        status = self.query_one("#optimize-status", Static)
        try:
            cards = await self.study_app.backend.call(
                lambda service: undo_optimize(service, reschedule=reschedule))
        except Exception as exc:  # shown, never swallowed: the database failed
            status.update(Content(self.tr("tuning.optimize.failed", detail=str(exc))))
            self.load()
            return
        status.update(Content(self.tr("tuning.optimize.nothing_to_undo") if cards is None
                              else self.tr("tuning.optimize.undone", cards=cards)))
        self.load()

    def action_back(self) -> None:
        self.dismiss(None)


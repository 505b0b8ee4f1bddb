"""Deck options: a deck's own scheduling, over the profile's, as Anki's presets give it.

A learner coming from Anki had options per deck (a preset): FSRS parameters,
desired retention, learning and relearning steps, daily limits, maximum
interval, the leech threshold and action, and whether siblings are buried.
Each deck of a profile may keep its own (stored in the profile's settings,
``SchedulerSettings.deck_options``, by deck id); every field a deck leaves
unset is the profile's. ``deck_settings`` gives the ``SchedulerSettings`` a
card of that deck is scheduled with; ``deck_rules`` what the scheduler itself
does not hold (burying, the leech action).

Everything here is validated: options come from packages anyone can write.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from datetime import tzinfo
from typing import Any

from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from studyapp.srs.scheduler import (
    DEFAULT_PARAMETERS,
    Scheduler,
    SchedulerSettings,
    clamp_parameters,
)

LEECH_ACTIONS = ("suspend", "tag")
"""Anki's leech actions: suspend the card, or only mark it (studyapp's ``leech`` flag)."""
RETENTION_RANGE = (0.70, 0.99)
"""What the settings screen accepts (``tui/screens/settings.py``); Anki's slider too."""
LIMIT_RANGE = (0, 10_000)
MAX_INTERVAL_RANGE = (1, 36_500)
LEECH_RANGE = (1, 1_000)
MAX_STEPS = 20
MAX_STEP_S = 365 * 86_400
PARAMETER_SLACK = 0.01
"""Fitted parameters may sit a hair outside fsrs's bounds (float32); further out is refused."""
MAX_NAME = 100

SCHEDULING = ("parameters", "desired_retention", "learning_steps_s", "relearning_steps_s",
              "new_per_day", "reviews_per_day", "maximum_interval_days", "leech_lapses")
"""The options that are ``SchedulerSettings`` fields of the same name."""


LABELS = {"learning_steps_s": "learning steps (s)", "relearning_steps_s": "relearning steps (s)",
          "maximum_interval_days": "maximum interval (days)", "leech_lapses": "leech threshold",
          "new_per_day": "new per day", "reviews_per_day": "reviews per day",
          "desired_retention": "desired retention", "leech_action": "leech action",
          "bury_new": "bury new", "bury_reviews": "bury reviews",
          "bury_interday": "bury interday learning"}
"""How a message names each option."""


class DeckOptionsError(ValueError):
    """Options out of range or of the wrong type: the message names the field and why."""


@dataclass(frozen=True)
class DeckRules:
    """What a deck does around the scheduler: which siblings of an answered card wait for
    the next day, and what happens to a leech."""

    bury_new: bool = True
    bury_reviews: bool = True
    bury_interday: bool = False
    leech_action: str = "tag"


PROFILE_RULES = DeckRules()
"""Without options of its own a deck buries new and review siblings (one card per fact
a day), leaves learning cards be, and only marks a leech: studyapp's behaviour."""


@dataclass(frozen=True)
class DeckOptions:
    """One deck's own options; None is "the profile's"."""

    preset: str = ""
    """The Anki preset they came from (shown; empty when set here)."""
    parameters: tuple[float, ...] | None = None
    desired_retention: float | None = None
    learning_steps_s: tuple[int, ...] | None = None
    relearning_steps_s: tuple[int, ...] | None = None
    new_per_day: int | None = None
    reviews_per_day: int | None = None
    maximum_interval_days: int | None = None
    leech_lapses: int | None = None
    leech_action: str | None = None
    bury_new: bool | None = None
    bury_reviews: bool | None = None
    bury_interday: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """The fields set, JSON-ready (tuples as lists)."""
        data: dict[str, Any] = {}
        for spec in fields(self):
            value = getattr(self, spec.name)
            if value is None or (spec.name == "preset" and not value):
                continue
            data[spec.name] = list(value) if isinstance(value, tuple) else value
        return data

    @classmethod
    def from_dict(cls, data: object, where: str = "deck options") -> DeckOptions:
        """Options checked field by field; ``DeckOptionsError`` names the first bad one."""
        if not isinstance(data, Mapping):
            raise DeckOptionsError(f"{where}: not a set of options")
        known = {spec.name for spec in fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise DeckOptionsError(f"{where}: unknown option {unknown[0][:40]!r}")
        values: dict[str, Any] = {}
        for name, raw in data.items():
            if raw is not None:
                values[name] = _CHECKS[name](raw, f"{where}: {LABELS.get(name, name)}")
        return cls(**values)

    def applied(self, settings: SchedulerSettings) -> SchedulerSettings:
        """The profile's settings with this deck's own in their place."""
        changes = {name: getattr(self, name) for name in SCHEDULING
                   if getattr(self, name) is not None}
        return replace(settings, **changes) if changes else settings

    def rules(self) -> DeckRules:
        changes = {name: getattr(self, name)
                   for name in ("bury_new", "bury_reviews", "bury_interday", "leech_action")
                   if getattr(self, name) is not None}
        return replace(PROFILE_RULES, **changes)

    def full(self, settings: SchedulerSettings) -> dict[str, Any]:
        """Every option as the deck uses it (its own or the profile's), for display."""
        applied = self.applied(settings)
        data: dict[str, Any] = {"preset": self.preset, "own": sorted(self.to_dict())}
        for name in SCHEDULING:
            value = getattr(applied, name)
            data[name] = list(value) if isinstance(value, tuple) else value
        rules = self.rules()
        data.update(bury_new=rules.bury_new, bury_reviews=rules.bury_reviews,
                    bury_interday=rules.bury_interday, leech_action=rules.leech_action)
        return data


# -- checks ---------------------------------------------------------------------


def _number(raw: object, where: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise DeckOptionsError(f"{where}: {_shown(raw)} is not a number")
    value = float(raw)
    if not math.isfinite(value):
        raise DeckOptionsError(f"{where}: {_shown(raw)} is not a finite number")
    return value


def _within(value: float, bounds: tuple[float, float], where: str) -> None:
    if not bounds[0] <= value <= bounds[1]:
        raise DeckOptionsError(f"{where}: {value:g} is outside {bounds[0]:g}–{bounds[1]:g}")


def _whole(bounds: tuple[int, int]) -> Any:
    def check(raw: object, where: str) -> int:
        value = _number(raw, where)
        if value != int(value):
            raise DeckOptionsError(f"{where}: {value:g} is not a whole number")
        _within(value, bounds, where)
        return int(value)
    return check


def _retention(raw: object, where: str) -> float:
    value = _number(raw, where)
    _within(value, RETENTION_RANGE, where)
    return round(value, 3)


def _steps(raw: object, where: str) -> tuple[int, ...]:
    if not isinstance(raw, list | tuple):
        raise DeckOptionsError(f"{where}: {_shown(raw)} is not a list of steps")
    if len(raw) > MAX_STEPS:
        raise DeckOptionsError(f"{where}: {len(raw)} steps; at most {MAX_STEPS}")
    steps = []
    for step in raw:
        seconds = _number(step, where)
        _within(seconds, (1, MAX_STEP_S), where)
        steps.append(round(seconds))
    return tuple(steps)


def _parameters(raw: object, where: str) -> tuple[float, ...]:
    if not isinstance(raw, list | tuple):
        raise DeckOptionsError(f"{where}: {_shown(raw)} is not a list of numbers")
    if len(raw) != len(DEFAULT_PARAMETERS):
        raise DeckOptionsError(f"{where}: {len(raw)} numbers; FSRS-6 has "
                               f"{len(DEFAULT_PARAMETERS)}")
    values = [_number(v, where) for v in raw]
    for index, (value, low, high) in enumerate(
            zip(values, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True)):
        if not low - PARAMETER_SLACK <= value <= high + PARAMETER_SLACK:
            raise DeckOptionsError(f"{where}: w{index} = {value:g} is outside "
                                   f"{low:g}–{high:g}")
    return clamp_parameters(values)


def _leech_action(raw: object, where: str) -> str:
    if raw not in LEECH_ACTIONS:
        raise DeckOptionsError(f"{where}: {_shown(raw)} is not one of "
                               f"{', '.join(LEECH_ACTIONS)}")
    return str(raw)


def _flag(raw: object, where: str) -> bool:
    if not isinstance(raw, bool):
        raise DeckOptionsError(f"{where}: {_shown(raw)} is not true or false")
    return raw


def _name(raw: object, where: str) -> str:
    if not isinstance(raw, str):
        raise DeckOptionsError(f"{where}: {_shown(raw)} is not text")
    return preset_name(raw)


def preset_name(text: str) -> str:
    """A preset's name as shown: printable characters only, one line, at most 100."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())[:MAX_NAME]


def _shown(raw: object) -> str:
    """A bad value in a message: its repr, short and on one line."""
    return preset_name(repr(raw))[:40]


_CHECKS: dict[str, Any] = {
    "preset": _name, "parameters": _parameters, "desired_retention": _retention,
    "learning_steps_s": _steps, "relearning_steps_s": _steps,
    "new_per_day": _whole(LIMIT_RANGE), "reviews_per_day": _whole(LIMIT_RANGE),
    "maximum_interval_days": _whole(MAX_INTERVAL_RANGE), "leech_lapses": _whole(LEECH_RANGE),
    "leech_action": _leech_action, "bury_new": _flag, "bury_reviews": _flag,
    "bury_interday": _flag,
}


# -- a profile's decks ------------------------------------------------------------


def stored_options(settings: SchedulerSettings) -> dict[str, DeckOptions]:
    """Every deck's own options the profile keeps (an entry that no longer validates is
    left out: its deck follows the profile)."""
    kept: dict[str, DeckOptions] = {}
    for deck_id, data in _stored(settings).items():
        try:
            kept[str(deck_id)] = DeckOptions.from_dict(data)
        except DeckOptionsError:
            continue
    return kept


def _stored(settings: SchedulerSettings) -> Mapping[str, Any]:
    """The stored map, or none when what is stored is not one (a hand-edited profile)."""
    stored = settings.deck_options
    return stored if isinstance(stored, Mapping) else {}


def shown_options(settings: SchedulerSettings) -> dict[str, dict[str, Any]]:
    """Every deck with options of its own: each option as that deck uses it (``full``)."""
    return {deck_id: options.full(settings)
            for deck_id, options in sorted(stored_options(settings).items())}


def options_of(settings: SchedulerSettings, deck_id: str) -> DeckOptions | None:
    data = _stored(settings).get(deck_id)
    if data is None:
        return None
    try:
        return DeckOptions.from_dict(data)
    except DeckOptionsError:
        return None


def deck_settings(settings: SchedulerSettings, deck_id: str) -> SchedulerSettings:
    """The settings a card of ``deck_id`` is scheduled with."""
    options = options_of(settings, deck_id)
    return settings if options is None else options.applied(settings)


def deck_rules(settings: SchedulerSettings, deck_id: str) -> DeckRules:
    options = options_of(settings, deck_id)
    return PROFILE_RULES if options is None else options.rules()


def with_deck_options(settings: SchedulerSettings, deck_id: str,
                      options: DeckOptions | None) -> SchedulerSettings:
    """The profile's settings with ``deck_id``'s own options set (None: removed)."""
    kept = {k: dict(v) for k, v in _stored(settings).items()
            if k != deck_id and isinstance(v, Mapping)}
    if options is not None and options.to_dict():
        kept[deck_id] = options.to_dict()
    return replace(settings, deck_options=kept)


class DeckSchedulers:
    """A scheduler per deck, each built once: the profile's for decks without options."""

    def __init__(self, settings: SchedulerSettings, zone: tzinfo | None = None) -> None:
        self.settings = settings
        self.profile = Scheduler(settings, zone)
        self._zone = self.profile.zone
        self._built: dict[str, Scheduler] = {}
        self._rules: dict[str, DeckRules] = {}
        self._own = stored_options(settings)
        """Checked once: the queue asks for thousands of cards' rules."""

    def __call__(self, deck_id: str) -> Scheduler:
        found = self._built.get(deck_id)
        if found is None:
            options = self._own.get(deck_id)
            own = self.settings if options is None else options.applied(self.settings)
            found = self.profile if own is self.settings else Scheduler(own, self._zone)
            self._built[deck_id] = found
        return found

    @property
    def own(self) -> Mapping[str, DeckOptions]:
        """Every deck's own options, as checked once."""
        return self._own

    def rules(self, deck_id: str) -> DeckRules:
        found = self._rules.get(deck_id)
        if found is None:
            options = self._own.get(deck_id)
            found = self._rules[deck_id] = PROFILE_RULES if options is None else options.rules()
        return found


__all__ = [
    "LEECH_ACTIONS", "PROFILE_RULES", "DeckOptions", "DeckOptionsError", "DeckRules",
    "DeckSchedulers", "deck_rules", "deck_settings", "options_of", "preset_name", "shown_options",
    "stored_options", "with_deck_options",
]

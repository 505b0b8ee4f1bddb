"""Anki's deck options (presets) and day rollover, read from a package and checked.

Schema 11 keeps each preset as JSON in ``col.dconf`` (``new.delays`` in
minutes, ``new.perDay``, ``rev.perDay``, ``rev.maxIvl``, ``lapse.delays``,
``lapse.leechFails``, ``lapse.leechAction``, ``new.bury``, ``rev.bury``,
``buryInterdayLearning``, ``desiredRetention``, ``fsrsParams6`` /
``fsrsParams5`` / ``fsrsWeights``) and the rollover hour in ``col.conf``.
Schema 18 keeps a preset as a ``DeckConfig.Config`` protobuf in the
``deck_config`` table and the rollover in the ``config`` table; ``legacy_preset``
turns the protobuf into the JSON shape, so both are checked alike.

Each preset becomes ``DeckOptions`` for the studyapp decks made from the
Anki decks that use it. A preset that does not validate is left out with a
line saying why (its decks follow the profile); nothing from it is used.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from studyapp.anki.anki21b import FormatError, read_message
from studyapp.srs.deck_options import DeckOptions, DeckOptionsError, preset_name

FSRS5_DECAY = 0.5
"""FSRS-5's fixed decay: 19 parameters become FSRS-6's 21 with w19 = 0 and w20 = 0.5, as
ts-fsrs migrates them (``migrateParameters``: ``concat([0, FSRS5_DEFAULT_DECAY])``,
https://github.com/open-spaced-repetition/ts-fsrs)."""

LEECH_ACTION = {0: "suspend", 1: "tag"}
"""``DeckConfig.Config.LeechAction``: 0 suspend, 1 tag only (Anki's ``deck_config.proto``)."""

# DeckConfig.Config field numbers (proto/anki/deck_config.proto, Anki 26.9)
_LEARN_STEPS, _RELEARN_STEPS, _FSRS4, _FSRS5, _FSRS6 = 1, 2, 3, 5, 6
_NEW_PER_DAY, _REVIEWS_PER_DAY, _MAX_IVL = 9, 10, 16
_LEECH_ACTION, _LEECH_THRESHOLD = 21, 22
_BURY_NEW, _BURY_REVIEWS, _BURY_INTERDAY = 27, 28, 29
_DESIRED_RETENTION = 37


def _floats(message: Any, number: int) -> list[float]:
    """A ``repeated float``: packed (one bytes value) or one fixed32 per value."""
    values: list[float] = []
    for value in message.fields.get(number, []):
        if isinstance(value, bytes):
            if len(value) % 4:
                raise FormatError(f"{message.what}: field {number} is not a list of floats")
            values.extend(struct.unpack(f"<{len(value) // 4}f", value))
        else:
            values.append(struct.unpack("<f", int(value).to_bytes(4, "little"))[0])
    return [round(v, 6) for v in values]


def _float(message: Any, number: int) -> float | None:
    found = _floats(message, number)
    return found[-1] if found else None


def legacy_preset(config_id: int, name: object, blob: object) -> dict[str, Any]:
    """A schema 18 preset (``deck_config.config``) in the shape schema 11 keeps it; one
    whose protobuf is malformed keeps only why (``unreadable``), and is left out."""
    try:
        return _legacy_preset(config_id, str(name), blob)
    except FormatError as exc:
        return {"id": config_id, "name": str(name), "unreadable": str(exc)}


def _legacy_preset(config_id: int, name: str, blob: object) -> dict[str, Any]:
    if isinstance(blob, str) and not blob:
        blob = b""
    if not isinstance(blob, bytes):
        raise FormatError("its settings blob is text, not a protobuf")
    message = read_message(blob, "its settings blob")
    preset: dict[str, Any] = {
        "id": config_id, "name": name,
        "new": {"delays": _floats(message, _LEARN_STEPS),
                "perDay": message.integer(_NEW_PER_DAY),
                "bury": bool(message.integer(_BURY_NEW))},
        "rev": {"perDay": message.integer(_REVIEWS_PER_DAY),
                "maxIvl": message.integer(_MAX_IVL),
                "bury": bool(message.integer(_BURY_REVIEWS))},
        "lapse": {"delays": _floats(message, _RELEARN_STEPS),
                  "leechFails": message.integer(_LEECH_THRESHOLD),
                  "leechAction": message.integer(_LEECH_ACTION)},
        "buryInterdayLearning": bool(message.integer(_BURY_INTERDAY)),
        "fsrsWeights": _floats(message, _FSRS4),
        "fsrsParams5": _floats(message, _FSRS5),
        "fsrsParams6": _floats(message, _FSRS6),
    }
    retention = _float(message, _DESIRED_RETENTION)
    if retention:  # proto3 leaves a zero out: no retention set
        preset["desiredRetention"] = round(retention, 4)
    return preset


def _part(preset: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    part = preset.get(key, {})
    if not isinstance(part, Mapping):
        raise DeckOptionsError(f"{where}: {key!r} is not a group of options")
    return part


def _minutes(steps: object) -> object:
    """Anki's steps in minutes, in seconds (what is not a list of numbers is passed on to
    be refused by the check)."""
    if not isinstance(steps, list) or not all(
            isinstance(s, int | float) and not isinstance(s, bool) for s in steps):
        return steps
    return [s * 60 for s in steps]


def _parameters(preset: Mapping[str, Any], where: str) -> object:
    """FSRS-6's 21 parameters from the newest list the preset has (None: FSRS unset)."""
    for key in ("fsrsParams6", "fsrsParams5", "fsrsWeights"):
        values = preset.get(key)
        if not values:
            continue
        if not isinstance(values, list):
            raise DeckOptionsError(f"{where}: {key} is not a list of numbers")
        if len(values) == 19:
            return [*values, 0.0, FSRS5_DECAY]
        if len(values) == 17:
            raise DeckOptionsError(f"{where}: {key} holds FSRS-4.5 parameters (17); "
                                   f"optimize them again in Anki 23.10 or later")
        return values
    return None


def preset_options(preset: object, where: str) -> DeckOptions:
    """A schema 11 preset as studyapp deck options, every field checked."""
    if not isinstance(preset, Mapping):
        raise DeckOptionsError(f"{where}: not a group of options")
    if "unreadable" in preset:
        raise DeckOptionsError(f"{where}: {preset['unreadable']}")
    new, review, lapse = (_part(preset, key, where) for key in ("new", "rev", "lapse"))
    action = lapse.get("leechAction")
    data = {
        "preset": preset.get("name", ""),
        "parameters": _parameters(preset, where),
        "desired_retention": preset.get("desiredRetention"),
        "learning_steps_s": _minutes(new.get("delays")),
        "relearning_steps_s": _minutes(lapse.get("delays")),
        "new_per_day": new.get("perDay"),
        "reviews_per_day": review.get("perDay"),
        "maximum_interval_days": review.get("maxIvl"),
        "leech_lapses": lapse.get("leechFails"),
        "leech_action": LEECH_ACTION.get(action, action) if isinstance(action, int) else action,
        "bury_new": new.get("bury"),
        "bury_reviews": review.get("bury"),
        "bury_interday": preset.get("buryInterdayLearning"),
    }
    return DeckOptions.from_dict(data, where)


@dataclass
class PackageOptions:
    """The options a package brings: per studyapp deck id, its rollover, and what was left out."""

    decks: dict[str, DeckOptions] = field(default_factory=dict)
    rollover: int | None = None
    refused: list[str] = field(default_factory=list)
    """One line per preset (or rollover) left out, saying why."""


def rollover_hour(raw: object) -> int | None:
    """Anki's ``rollover`` (0–23), or None when it is not one."""
    if isinstance(raw, bytes | str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw <= 23:
        return raw
    return None


def package_options(deck_configs: Mapping[int, Mapping[str, Any]],
                    deck_names: Mapping[int, str], studyapp_decks: Mapping[str, str],
                    rollover: object = None) -> PackageOptions:
    """Options for each studyapp deck (``studyapp_decks``: deck id → the Anki deck name it
    was made from), from the preset that Anki deck uses."""
    found = PackageOptions()
    by_name = {name: deck_configs.get(did) for did, name in deck_names.items()}
    checked: dict[int, DeckOptions | None] = {}
    for deck_id, anki_name in studyapp_decks.items():
        preset = by_name.get(anki_name)
        if not preset:
            continue
        key = id(preset)
        if key not in checked:
            name = preset_name(str(preset.get("name", ""))) if isinstance(preset, Mapping) else ""
            try:
                checked[key] = preset_options(preset, f"Anki preset {name!r}")
            except DeckOptionsError as exc:
                checked[key] = None
                found.refused.append(str(exc))
        options = checked[key]
        if options is not None:
            found.decks[deck_id] = options
    if rollover is not None:
        found.rollover = rollover_hour(rollover)
        if found.rollover is None:
            found.refused.append(f"Anki's rollover {preset_name(repr(rollover))[:40]} "
                                 f"is not an hour 0–23")
    return found


__all__ = ["PackageOptions", "legacy_preset", "package_options", "preset_options",
           "rollover_hour"]

"""Deck options between Anki and a profile: presets in on import, presets out on export.

In: each studyapp deck made from an Anki deck takes the options of that deck's
preset (``anki_options.package_options``, every value checked) as its own;
the package's rollover hour becomes the profile's when the profile has no
answers yet (its days would otherwise move under its history), else one line
says they differ. Out: each exported deck gets a preset of its own with the
options the deck is studied with here, and with burying of new and review
siblings on for a deck holding generated cards, whose draws are siblings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from studyapp.anki.anki_cards import Conversion
from studyapp.anki.anki_history import import_history
from studyapp.anki.anki_options import LEECH_ACTION, package_options
from studyapp.i18n import t
from studyapp.progress.profile_files import answer_replay
from studyapp.srs.deck_options import (
    DeckOptions,
    DeckRules,
    deck_rules,
    deck_settings,
    options_of,
    preset_name,
)
from studyapp.srs.deck_options import with_deck_options as _with
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store.card_reads import review_count
from studyapp.store.progress_files import ImportResult

if TYPE_CHECKING:
    from studyapp.study.service import StudyService

_ACTION_CODE = {name: code for code, name in LEECH_ACTION.items()}


def apply_presets(service: StudyService, conversion: Conversion) -> list[str]:
    """Save the package's presets as the options of the decks made from it, and its rollover
    hour when the profile is new; the lines to show (what was set, left out, or differs)."""
    collection = conversion.collection
    lang = service.config.lang
    if collection is None:
        return []
    found = package_options(collection.deck_configs, collection.deck_names,
                            conversion.anki_decks, collection.rollover)
    lines = [t("anki.options.refused", lang, problem=problem) for problem in found.refused]
    settings = service.settings
    changes: dict[str, Any] = {}
    hour = found.rollover
    if hour is not None and hour != settings.day_rollover_hour:
        if review_count(service.store, service.profile.id) == 0:
            changes["day_rollover_hour"] = hour
            lines.append(t("anki.options.rollover_set", lang, hour=hour))
        else:
            lines.append(t("anki.options.rollover_differs", lang, anki=hour,
                           here=settings.day_rollover_hour))
    updated = settings
    for deck_id, options in found.decks.items():
        before = options_of(settings, deck_id)
        if before is not None:  # a newer package of the same collection: what it changes
            changed = option_changes(before, options, settings, lang)
            if changed:
                lines.append(t("anki.options.changed", lang, deck=deck_id,
                               preset=options.preset or "-", changes="; ".join(changed)))
        updated = _with(updated, deck_id, options)
    if found.decks:
        changes["deck_options"] = updated.deck_options
    if changes:
        service.update_settings(**changes)
    if found.decks:
        presets = sorted({o.preset for o in found.decks.values() if o.preset})
        lines.append(t("anki.options.done", lang, decks=len(found.decks),
                       presets=", ".join(presets[:5]) or "-"))
    return lines


_COMPARED = ("desired_retention", "learning_steps_s", "relearning_steps_s", "new_per_day",
             "reviews_per_day", "maximum_interval_days", "leech_lapses", "leech_action",
             "bury_new", "bury_reviews", "bury_interday")


def _value(name: str, value: Any, lang: str) -> str:
    """One option's value as a line shows it (steps as a list, flags as yes or no)."""
    if isinstance(value, bool):
        return t("anki.options.yes" if value else "anki.options.no", lang)
    if name == "leech_action":
        return t(f"stats.deck_options.leech_{value}", lang)
    if isinstance(value, list):
        return ", ".join(f"{v:g}" for v in value) or "-"
    return f"{value:g}" if isinstance(value, float) else str(value)


def option_changes(before: DeckOptions, after: DeckOptions, settings: SchedulerSettings,
                   lang: str) -> list[str]:
    """What a deck's options become, each as "option old → new", as the deck uses them
    (a field a preset leaves unset is the profile's); the FSRS parameters only named."""
    old, new = before.full(settings), after.full(settings)
    changes = [f"{t(f'anki.options.label.{name}', lang)} {_value(name, old[name], lang)} → "
               f"{_value(name, new[name], lang)}"
               for name in _COMPARED if old[name] != new[name]]
    if old["parameters"] != new["parameters"]:
        changes.append(t("anki.options.parameters_changed", lang))
    return changes


def import_into_profile(service: StudyService, conversion: Conversion
                        ) -> tuple[list[str], ImportResult]:
    """The package's deck options, then its history, into the service's profile: the lines
    to show and what the history import did. Options first: a new profile's rollover hour
    places the imported due days."""
    lines = apply_presets(service, conversion)
    result = import_history(conversion, service.store, service.profile.id,
                            rollover_hour=service.settings.day_rollover_hour,
                            replay=answer_replay(service.settings),
                            parameters=service.settings.parameters)
    return lines, result


def anki_preset(preset_id: int, name: str, settings: SchedulerSettings, rules: DeckRules,
                *, bury_siblings: bool) -> dict[str, Any]:
    """A preset in the shape an Anki collection of schema 11 keeps it (``col.dconf``).

    ``bury_siblings`` turns burying of new and review siblings on whatever the
    deck's rules say: the draws of a generated card are siblings of one note.
    """
    return {
        "id": preset_id, "name": name, "mod": 0, "usn": 0, "maxTaken": 60, "autoplay": True,
        "timer": 0, "replayq": True, "dyn": False,
        "new": {"bury": rules.bury_new or bury_siblings,
                "delays": [s / 60 for s in settings.learning_steps_s],
                "initialFactor": 2500, "ints": [1, 4, 0], "order": 1,
                "perDay": settings.new_per_day},
        "rev": {"bury": rules.bury_reviews or bury_siblings, "ease4": 1.3, "ivlFct": 1.0,
                "maxIvl": settings.maximum_interval_days, "perDay": settings.reviews_per_day,
                "hardFactor": 1.2},
        "lapse": {"delays": [s / 60 for s in settings.relearning_steps_s],
                  "leechAction": _ACTION_CODE[rules.leech_action],
                  "leechFails": settings.leech_lapses, "minInt": 1, "mult": 0.0},
        "buryInterdayLearning": rules.bury_interday,
        "desiredRetention": settings.desired_retention,
        "fsrsParams6": list(settings.parameters), "fsrsParams5": [], "fsrsWeights": [],
    }


def export_options(settings: SchedulerSettings, deck_ids: list[str]
                   ) -> dict[str, tuple[str, SchedulerSettings, DeckRules]]:
    """Each deck's preset name and the options it is studied with, for ``write_apkg``."""
    chosen = {}
    for deck_id in deck_ids:
        own = options_of(settings, deck_id)
        name = preset_name(own.preset if own is not None and own.preset
                           else f"studyapp {deck_id}")
        chosen[deck_id] = (name, deck_settings(settings, deck_id), deck_rules(settings, deck_id))
    return chosen


def preset_fields(preset: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a schema 11 preset studyapp carries, for comparing one read back."""
    new, review, lapse = preset["new"], preset["rev"], preset["lapse"]
    return {"parameters": list(preset.get("fsrsParams6") or []),
            "desired_retention": preset.get("desiredRetention"),
            "learning_steps_min": list(new["delays"]),
            "relearning_steps_min": list(lapse["delays"]),
            "new_per_day": new["perDay"], "reviews_per_day": review["perDay"],
            "maximum_interval_days": review["maxIvl"], "leech_lapses": lapse["leechFails"],
            "leech_action": lapse["leechAction"], "bury_new": new["bury"],
            "bury_reviews": review["bury"], "bury_interday": preset["buryInterdayLearning"]}


__all__ = ["anki_preset", "apply_presets", "export_options", "import_into_profile",
           "option_changes", "preset_fields"]

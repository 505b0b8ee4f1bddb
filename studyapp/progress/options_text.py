"""Each deck's own options in one line per deck, for ``stats`` and the settings screen.

The options are those ``srs.deck_options.shown_options`` gives (what the deck
is studied with: its own where it has them, the profile's elsewhere); every
text that came from a package (a preset's name, a deck id) is made printable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from studyapp.i18n import t
from studyapp.text import visible


def _minutes(seconds: list[int]) -> str:
    """Steps as Anki writes them: 1m 10m, 1h, 1d."""
    shown = []
    for s in seconds:
        if s % 86400 == 0:
            shown.append(f"{s // 86400}d")
        elif s % 3600 == 0:
            shown.append(f"{s // 3600}h")
        elif s % 60 == 0:
            shown.append(f"{s // 60}m")
        else:
            shown.append(f"{s}s")
    return " ".join(shown) or "—"


def options_line(deck: str, options: Mapping[str, Any], lang: str) -> str:
    """One deck's options in one line, in ``lang``."""
    buried = [t(f"stats.deck_options.bury_{kind}", lang)
              for kind in ("new", "reviews", "interday") if options.get(f"bury_{kind}")]
    retention = f"{options['desired_retention']:.2f}"
    own = "parameters" in options.get("own", ())
    return visible(t(
        "stats.deck_options.line", lang, deck=deck,
        preset=options.get("preset") or t("stats.deck_options.no_preset", lang),
        retention=retention.replace(".", ",") if lang == "es" else retention,
        steps=_minutes(options["learning_steps_s"]),
        relearning=_minutes(options["relearning_steps_s"]),
        new=options["new_per_day"], reviews=options["reviews_per_day"],
        longest=options["maximum_interval_days"], leech=options["leech_lapses"],
        action=t(f"stats.deck_options.leech_{options['leech_action']}", lang),
        bury=", ".join(buried) or t("stats.none", lang),
        parameters=t("stats.deck_options.own" if own else "stats.deck_options.profile", lang)))


def options_lines(decks: Mapping[str, Mapping[str, Any]], lang: str) -> list[str]:
    """Every deck with options of its own, by deck id."""
    return [options_line(deck, options, lang) for deck, options in sorted(decks.items())]


__all__ = ["options_line", "options_lines"]

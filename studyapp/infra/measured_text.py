"""The measured figure set beside the theory, in words: one text for every face.

``calc`` prints these lines under its report and the app's calculator shows them in
its result panes, so a learner reads the same value, source, date and efficiency
wherever the calculation is made. The figures come from
:func:`studyapp.infra.measured.measured_entry`; this module only words them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from studyapp.i18n import t
from studyapp.numbers import format_figure, format_number

PUBLISHED_DIGITS = 6
"""A measured figure is written as its source gives it (52.85 tokens/s, 3,353.3 TFLOPS),
not rounded to the three figures of a computed one."""

_GITHUB = re.compile(r"https://github\.com/[^/]+/([^/]+)(?:/(issues|pull)/(\d+))?")


def source_name(url: str) -> str:
    """A source short enough for a narrow pane: ``nccl-tests#290`` for a GitHub issue or
    pull request, ``ml-engineering`` for a file in a repository, else the site's host
    (``docs.nvidia.com``). The same in every language."""
    found = _GITHUB.match(url)
    if found:
        return f"{found[1]}#{found[3]}" if found[3] else found[1]
    return re.sub(r"^https?://", "", url).split("/")[0]


def measured_lines(entry: Mapping[str, Any], lang: str, *, used: bool = False,
                   short: bool = False) -> list[str]:
    """What a measurement of the same setup says next to the calculation.

    The measured value with its source and date; the share of the datasheet figure
    it reached (``theory``) and of this calculation's own figure; with ``used``, that
    its efficiency replaced the default one. ``short`` names the source by
    :func:`source_name` and leaves the measurement's long name out (a result pane);
    otherwise the name and the whole URL (``calc`` on a terminal)."""

    def fig(value: float) -> str:
        return format_figure(value, lang)

    unit = entry["unit"]
    value = format_number(entry["value"], lang, PUBLISHED_DIGITS)  # as published: 52.85
    if short:
        lines = [t("calc.measured.line_short", lang, value=value, unit=unit,
                   source=source_name(entry["source"]), date=entry["date"])]
    else:
        lines = [t("calc.measured.line", lang, value=value, unit=unit,
                   name=entry["name"], date=entry["date"], source=entry["source"])]
    if entry["theory"] is not None:
        lines.append(t("calc.measured.of_theory", lang, share=fig(100 * entry["efficiency"]),
                       theory=fig(entry["theory"]), unit=unit))
    if entry["calculated"]:
        lines.append(t("calc.measured.of_calculated", lang,
                       share=fig(100 * entry["value"] / entry["calculated"]),
                       calculated=fig(entry["calculated"]), unit=unit))
    if used and entry["efficiency"] is not None:
        lines.append(t("calc.measured.used", lang, share=fig(100 * entry["efficiency"]),
                       id=entry["id"]))
    return lines

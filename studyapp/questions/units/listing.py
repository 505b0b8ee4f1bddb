"""The unit table as ``studyapp deck validate --units`` prints it, in the reader's language."""

from __future__ import annotations

from studyapp.i18n import t
from studyapp.questions.units.table import unit_entries


def unit_listing(lang: str) -> list[str]:
    """A header, one line per unit (symbol, dimension, other names) and a note on rates."""
    entries = unit_entries()
    dimensions = {entry.dimension: t(f"units.dim.{entry.dimension}", lang) for entry in entries}
    heads = (t("units.col.symbol", lang), t("units.col.dimension", lang),
             t("units.col.aliases", lang))
    symbol_width = max(len(heads[0]), *(len(entry.symbol) for entry in entries))
    dimension_width = max(len(heads[1]), *(len(name) for name in dimensions.values()))
    lines = [t("units.header", lang), "",
             f"{heads[0]:<{symbol_width}}  {heads[1]:<{dimension_width}}  {heads[2]}"]
    for entry in entries:
        lines.append(f"{entry.symbol:<{symbol_width}}  "
                     f"{dimensions[entry.dimension]:<{dimension_width}}  "
                     f"{', '.join(entry.aliases)}".rstrip())
    lines += ["", t("units.footer", lang)]
    return lines


__all__ = ["unit_listing"]

"""Errors of catalog look-ups, importable without pydantic."""

from __future__ import annotations

import difflib


class UnknownIdError(LookupError):
    """An id that is not in the catalog, with the closest ids to suggest."""

    def __init__(self, kind: str, wanted: str, known: list[str]) -> None:
        self.kind = kind
        self.wanted = wanted
        self.close = difflib.get_close_matches(wanted, known, n=4, cutoff=0.4)
        self.known = known
        hint = f"; did you mean {', '.join(self.close)}?" if self.close else ""
        super().__init__(f"unknown {kind} id {wanted!r}{hint} (known: {', '.join(known)})")

    def render(self, lang: str) -> str:
        """The message in ``lang``; English is exactly ``str(self)``."""
        if lang == "en":
            return str(self)
        from studyapp.i18n import strings, t  # only when a failure is shown

        kind_key = f"catalog.kind.{self.kind}"
        kind = t(kind_key, lang) if kind_key in strings(lang) else self.kind
        hint = t("catalog.unknown_id_hint", lang, close=", ".join(self.close)) if self.close else ""
        return t("catalog.unknown_id", lang, kind=kind, wanted=repr(self.wanted), hint=hint,
                 known=", ".join(self.known))

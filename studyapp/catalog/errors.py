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

"""The part every catalog entry shares: an id, a display name, a note, its sources, and
the status of each figure (published, measured, announced or estimated)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, field_validator, model_validator

FigureStatus = Literal["published", "measured", "announced", "estimated"]
"""Where a figure stands: ``published`` by the vendor in a datasheet or its docs (the
default), ``measured`` on a real part (a driver total, a benchmark), ``announced`` (a
launch, a keynote, a talk's coverage; not in a document re-read here) or ``estimated``
(derived or third-party). Only published and measured figures are asked as facts."""
FACT_STATUSES: tuple[FigureStatus, ...] = ("published", "measured")
MEASURED_FIELDS = frozenset({"driver_memory_mib"})
"""Fields that are measurements by nature: their status defaults to ``measured``."""
_NOT_FIGURES = frozenset({"id", "name", "sources", "note", "status"})


class Entry(BaseModel):
    """Every catalog entry has an id, a display name and sources."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    name: str
    sources: list[HttpUrl] = Field(min_length=1)
    note: str | None = None
    status: dict[str, FigureStatus] = {}
    """The status of each figure that is not simply published, by field name
    (``{memory_bandwidth_tb_s: announced}``); every other figure is published."""

    @model_validator(mode="after")
    def _status_names_figures(self) -> Entry:
        """A status names a figure this entry has: a typo or a missing figure is an error."""
        for field in self.status:
            if field in _NOT_FIGURES or field not in type(self).model_fields:
                raise ValueError(f"status names {field!r}, which is not a figure of this entry")
            if getattr(self, field) is None:
                raise ValueError(f"status names {field!r}, but the entry gives no {field}")
        return self

    def figure_status(self, field: str) -> FigureStatus:
        """The status of ``field``: as the entry states it, else measured for a driver
        total and published for the rest."""
        if field in self.status:
            return self.status[field]
        return "measured" if field in MEASURED_FIELDS else "published"

    def is_fact(self, field: str) -> bool:
        """``field`` may be asked as a fact: its figure is published or measured."""
        return self.figure_status(field) in FACT_STATUSES

    @field_validator("sources")
    @classmethod
    def _http_only(cls, value: list[HttpUrl]) -> list[HttpUrl]:
        for url in value:
            if url.scheme not in ("http", "https"):
                raise ValueError(f"source {url} is not an http(s) URL")
        return value


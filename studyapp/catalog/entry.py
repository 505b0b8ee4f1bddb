"""The part every catalog entry shares: an id, a display name, a note and its sources."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, field_validator


class Entry(BaseModel):
    """Every catalog entry has an id, a display name and sources."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    name: str
    sources: list[HttpUrl] = Field(min_length=1)
    note: str | None = None

    @field_validator("sources")
    @classmethod
    def _http_only(cls, value: list[HttpUrl]) -> list[HttpUrl]:
        for url in value:
            if url.scheme not in ("http", "https"):
                raise ValueError(f"source {url} is not an http(s) URL")
        return value

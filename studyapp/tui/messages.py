"""App-level messages: small dataclasses that carry plain data, never ORM rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from studyapp.study import Overview


@dataclass
class OverviewLoaded(Message):
    """Fresh per-post counts and today's numbers, read on the service thread."""

    overview: Overview


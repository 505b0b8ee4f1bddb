"""Seeded draws shared by the families: options, redraws, choices.

Every draw goes through one ``random.Random`` seeded with the instance seed,
so the same seed gives the same question in any process. Nothing here uses
``hash()`` of strings or set order, which change between runs.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from studyapp.catalog import Table
from studyapp.catalog.models import Entry

T = TypeVar("T")
E = TypeVar("E", bound=Entry)

MARGIN = 0.10
"""Yes/no answers and comparisons stay at least this far from the line."""

ATTEMPTS = 200


def instance_seed(seed: int, index: int) -> int:
    """Seed of instance ``index`` in a run of ``seed``: stable, and unrelated between neighbours."""
    digest = hashlib.sha256(f"studyapp:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def option_list(options: Mapping[str, Any], key: str) -> list[Any] | None:
    """An option given as one value or a list; ``None`` when absent or empty."""
    value = options.get(key)
    if value is None:
        return None
    items = list(value) if isinstance(value, list | tuple) else [value]
    return items or None


def entries(table: Table[E], options: Mapping[str, Any], key: str,
            keep: Callable[[E], bool] | None = None) -> list[E]:
    """Catalog entries named by option ``key`` (unknown ids raise), else all that ``keep``."""
    ids = option_list(options, key)
    if ids is not None:
        return [table[str(entry_id)] for entry_id in ids]
    found = [entry for entry in table if keep is None or keep(entry)]
    if not found:
        raise LookupError(f"no {table.kind} in the catalog fits this question")
    return found


def values(options: Mapping[str, Any], key: str, default: Sequence[T]) -> list[Any]:
    """Option ``key`` as a list, else ``default``."""
    given = option_list(options, key)
    return given if given is not None else list(default)


def redraw(rng: random.Random, draw: Callable[[random.Random], T],
           keep: Callable[[T], bool], attempts: int = ATTEMPTS) -> tuple[T, bool]:
    """Draw until ``keep`` holds (bounded); returns the draw and whether it held."""
    last = draw(rng)
    if keep(last):
        return last, True
    for _ in range(attempts - 1):
        last = draw(rng)
        if keep(last):
            return last, True
    return last, False


def apart(a: float, b: float, margin: float = MARGIN) -> bool:
    """``a`` and ``b`` differ by at least ``margin`` of the smaller one."""
    low = min(abs(a), abs(b))
    return abs(a - b) >= margin * low if low > 0 else a != b


def shuffled_choices(rng: random.Random, correct: str, distractors: Iterable[str],
                     count: int = 4) -> tuple[str, ...]:
    """``correct`` plus up to ``count - 1`` distinct distractors, in seeded order."""
    seen = {correct.strip().casefold()}
    pool: list[str] = []
    for text in distractors:
        key = text.strip().casefold()
        if key not in seen:
            seen.add(key)
            pool.append(text)
    picked = rng.sample(pool, min(count - 1, len(pool)))
    choices = [correct, *picked]
    rng.shuffle(choices)
    return tuple(choices)

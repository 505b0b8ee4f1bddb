"""Seeded draws shared by the families: options, redraws, choices.

Every draw goes through one ``random.Random`` seeded with the instance seed,
so the same seed gives the same question in any process. Nothing here uses
``hash()`` of strings or set order, which change between runs.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any, TypeVar

from studyapp.catalog import Table
from studyapp.catalog.entry import Entry
from studyapp.catalog.loader import one_catalog
from studyapp.questions.generators.context import GenerateFn, revised
from studyapp.questions.model import Kind, Question

T = TypeVar("T")
E = TypeVar("E", bound=Entry)

MARGIN = 0.10
"""Yes/no answers and comparisons stay at least this far from the line."""

ATTEMPTS = 200


def instance_seed(seed: int, index: int) -> int:
    """Seed of instance ``index`` in a run of ``seed``: stable, and unrelated between neighbours."""
    digest = hashlib.sha256(f"studyapp:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


_DEFAULTS: ContextVar[dict[str, list[Any]] | None] = ContextVar("option_defaults", default=None)


def _note_default(key: str, items: Iterable[Any]) -> None:
    """While :func:`reading_defaults` is on: option ``key`` was read and drew from ``items``."""
    seen = _DEFAULTS.get()
    if seen is None:
        return
    pool = seen.setdefault(key, [])
    pool.extend(item for item in items if item not in pool)


@contextmanager
def reading_defaults() -> Iterator[dict[str, list[Any]]]:
    """Collect, by option name, what the draws made inside this block drew from.

    Draws made with no options read every option's default, so this is how
    ``generate FAMILY --options`` learns a family's defaults from its own code."""
    seen: dict[str, list[Any]] = {}
    token = _DEFAULTS.set(seen)
    try:
        yield seen
    finally:
        _DEFAULTS.reset(token)


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
        _note_default(key, (str(entry_id) for entry_id in ids))
        return [table[str(entry_id)] for entry_id in ids]
    found = [entry for entry in table if keep is None or keep(entry)]
    if not found:
        raise LookupError(f"no {table.kind} in the catalog fits this question")
    _note_default(key, (entry.id for entry in found))
    return found


def factual(entry: Entry, *fields: str) -> bool:
    """Every figure in ``fields`` of ``entry`` may be the answer of a fact question: it is
    published or measured, never only announced or estimated (docs/architecture.md)."""
    return all(entry.is_fact(field) for field in fields)


def values(options: Mapping[str, Any], key: str, default: Sequence[T]) -> list[Any]:
    """Option ``key`` as a list, else ``default``."""
    given = option_list(options, key)
    _note_default(key, given if given is not None else default)
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


class DrawError(ValueError):
    """No draw met a family's conditions: with these options there is no sound question.

    Raised instead of handing back the last, unfit draw, whose answer would be wrong."""


def draw_until(rng: random.Random, draw: Callable[[random.Random], T],
               keep: Callable[[T], bool], what: str, attempts: int = ATTEMPTS) -> T:
    """Draw until ``keep`` holds; raise :class:`DrawError` (naming ``what``) when it never does."""
    value, ok = redraw(rng, draw, keep, attempts)
    if not ok:
        raise DrawError(f"{what}: no draw in {attempts} meets the question's conditions "
                        "with these options (widen the pools)")
    return value


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


_NUMBER = {
    "en": re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"),
    "es": re.compile(r"\d{1,3}(?:[\u00a0\u202f]\d{3})+(?:,\d+)?|\d+(?:,\d+)?"),
}


def number_spans(text: str, lang: str) -> list[tuple[int, int, float]]:
    """Each number written in a text, read the way ``lang`` writes them: (start, end, value)."""
    return list(_number_spans(text, lang))


@lru_cache(maxsize=4096)
def _number_spans(text: str, lang: str) -> tuple[tuple[int, int, float], ...]:
    """:func:`number_spans`, read once per text: drawing, labelling and auditing a card
    each read the same Given block and prompt again."""
    found = []
    spanish = lang == "es"
    for match in _NUMBER["es" if spanish else "en"].finditer(text):
        raw = match.group(0)
        if spanish:  # grouped by (no-break) spaces, decimal comma
            raw = raw.replace("\u00a0", "").replace("\u202f", "").replace(",", ".")
        else:  # grouped by commas
            raw = raw.replace(",", "")
        try:
            found.append((match.start(), match.end(), float(raw)))
        except ValueError:
            continue
    return tuple(found)


def prompt_numbers(text: str, lang: str) -> list[float]:
    """Numbers written in a text, read the way ``lang`` writes them."""
    return [value for _, _, value in number_spans(text, lang)]


def echoes(question: Question, before: Iterable[str] = ()) -> bool:
    """A numeric answer that the card already writes before asking (its Given block, its
    prompt, and ``before``: a scenario's Given block, for a step): typing it back would
    score."""
    if question.kind is not Kind.NUMERIC or not isinstance(question.answer, int | float):
        return False
    answer = float(question.answer)
    text = "\n".join([*question.given, *before, question.prompt])
    return any(math.isclose(n, answer, rel_tol=1e-9)
               for n in prompt_numbers(text, question.lang))


def echoing_parts(question: Question) -> list[str]:
    """A scenario's numeric steps whose answer the step's own prompt or the card's Given
    block writes, by name; a card's own echo counts as ``""``. (The setup may state what
    an earlier step computes from, as "70.55B parameters" before the FP8 weights: that
    step asks the method, one byte a parameter, not a figure to copy.)"""
    if question.kind is not Kind.SCENARIO:
        return [""] if echoes(question) else []
    return [part.name for part in question.parts if echoes(part.question, question.given)]


ECHO_REDRAWS = 40


def without_echo(generate: GenerateFn) -> GenerateFn:
    """Redraw (deterministically) while the answer is a number the prompt gives away.

    The question keeps the seed it was asked for, so the same seed always
    gives the same question.
    """

    def wrapped(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
        # decided on the English text, so both languages ask the same question
        with one_catalog():
            chosen = seed
            question = generate(seed, "en", options)
            for attempt in range(1, ECHO_REDRAWS):
                if not echoing_parts(question):
                    break
                chosen = instance_seed(seed, -attempt)
                question = generate(chosen, "en", options)
            if lang != "en":
                question = generate(chosen, lang, options)
        return revised(question, seed=seed)

    return wrapped

"""Interval fuzz as Anki applies it, so cards learned together spread over nearby days.

After Anki's ``rslib/src/scheduler/states/fuzz.rs`` and
``rslib/src/scheduler/answering/mod.rs`` (github.com/ankitects/anki, AGPL-3.0;
the facts and the algorithm, not the code): no fuzz below 2.5 days; above, a
card may move 1 day plus 15% of its days between 2.5 and 7, 10% of those
between 7 and 20 and 5% of those beyond 20, either way, inside the minimum and
the maximum interval. Where it lands is a number in [0, 1) drawn from the
card's id plus its number of answers, so the same card answered the same way
lands on the same day, and the interval the button shows is the one applied.

Anki draws that number with Rust's ``rand`` 0.9 (``StdRng::seed_from_u64``:
PCG32 spreads the seed into a ChaCha12 key; the first 32-bit word, its top 23
bits, gives a float32 in [0, 1)). This module computes the same draw, so a
collection moved from Anki keeps Anki's days; ``tests/srs/test_anki_fuzz.py``
replays answers recorded with the ``anki`` package to prove it.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from functools import lru_cache

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF

FUZZ_BANDS: tuple[tuple[float, float, float], ...] = (
    (2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, math.inf, 0.05))
"""(from, to, share of those days) per band: Anki's ``FUZZ_RANGES``."""


_FLOAT32 = struct.Struct("<f")
_PACK32 = _FLOAT32.pack
_UNPACK32 = _FLOAT32.unpack


def f32(value: float) -> float:
    """``value`` rounded to float32, as Rust's f32 arithmetic keeps it."""
    result: float = _UNPACK32(_PACK32(value))[0]  # a float already: "f" unpacks to one
    return result


_FUZZ_BANDS_F32 = tuple((start, end, f32(share)) for start, end, share in FUZZ_BANDS)
"""``FUZZ_BANDS`` with each share as the float32 Anki multiplies by."""


def round_half_away(value: float) -> int:
    """Rust's ``f32::round``: halves away from zero (Python's round goes to even)."""
    return math.floor(value + 0.5) if value >= 0 else -math.floor(-value + 0.5)


def _pcg32_words(state: int, count: int) -> list[int]:
    """``rand_core``'s ``seed_from_u64``: PCG32 outputs that fill a seed."""
    words = []
    for _ in range(count):
        state = (state * 6364136223846793005 + 11634580027462260723) & _MASK64
        xorshifted = (((state >> 18) ^ state) >> 27) & _MASK32
        rot = state >> 59
        words.append(((xorshifted >> rot) | (xorshifted << ((32 - rot) & 31))) & _MASK32)
    return words


def _quarter(a: int, b: int, c: int, d: int) -> tuple[int, int, int, int]:
    """One ChaCha quarter round, the rotations written out (a call per rotation was
    most of the time of a draw)."""
    a = (a + b) & _MASK32
    d ^= a
    d = ((d << 16) | (d >> 16)) & _MASK32
    c = (c + d) & _MASK32
    b ^= c
    b = ((b << 12) | (b >> 20)) & _MASK32
    a = (a + b) & _MASK32
    d ^= a
    d = ((d << 8) | (d >> 24)) & _MASK32
    c = (c + d) & _MASK32
    b ^= c
    b = ((b << 7) | (b >> 25)) & _MASK32
    return a, b, c, d


def _chacha12_first(x: list[int]) -> int:
    """Six ChaCha double rounds (ChaCha12) over the state ``x``; its first word."""
    x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15 = x
    for _ in range(6):
        x0, x4, x8, x12 = _quarter(x0, x4, x8, x12)
        x1, x5, x9, x13 = _quarter(x1, x5, x9, x13)
        x2, x6, x10, x14 = _quarter(x2, x6, x10, x14)
        x3, x7, x11, x15 = _quarter(x3, x7, x11, x15)
        x0, x5, x10, x15 = _quarter(x0, x5, x10, x15)
        x1, x6, x11, x12 = _quarter(x1, x6, x11, x12)
        x2, x7, x8, x13 = _quarter(x2, x7, x8, x13)
        x3, x4, x9, x14 = _quarter(x3, x4, x9, x14)
    return x0


@lru_cache(maxsize=1 << 16)
def first_word(seed: int) -> int:
    """The first 32-bit output of Rust's ``StdRng::seed_from_u64(seed)`` (ChaCha12,
    counter and stream 0). Cached: a card's seed is its id plus its answers, so the
    same few seeds come back in every preview, review and exam-plan walk."""
    start = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574,
             *_pcg32_words(seed & _MASK64, 8), 0, 0, 0, 0]
    return (_chacha12_first(start) + start[0]) & _MASK32


def unit_draw(seed: int) -> float:
    """``StdRng::seed_from_u64(seed).random_range(0.0..1.0)`` as float32."""
    return (first_word(seed) >> 9) / float(1 << 23)


def fuzz_seed(card_id: int, reps: int) -> int:
    """Anki's seed: the card's id plus the answers it had before this one."""
    return (card_id + reps) & _MASK64


def fuzz_delta(interval: float) -> float:
    """Days the interval may move either way (0 below 2.5 days)."""
    if interval < 2.5:
        return 0.0
    delta = 1.0
    for start, end, share in _FUZZ_BANDS_F32:
        span = max(0.0, f32(min(interval, end) - start))
        delta = f32(delta + f32(share * span))
    return delta


@lru_cache(maxsize=1 << 16)
def fuzz_bounds(interval: float, minimum: int, maximum: int) -> tuple[int, int]:
    """The first and last day the interval may land on, inside ``minimum``-``maximum``.

    A range of one day grows to two when the bounds allow and it is over 2 days
    (Anki's ``constrained_fuzz_bounds``). Cached: an exam plan asks the same few
    thousand intervals tens of thousands of times.
    """
    minimum = min(minimum, maximum)
    interval = min(max(interval, float(minimum)), float(maximum))
    delta = fuzz_delta(interval)
    lower = min(max(round_half_away(f32(interval - delta)), minimum), maximum)
    upper = min(max(round_half_away(f32(interval + delta)), minimum), maximum)
    if upper == lower and 2 < upper < maximum:
        upper = lower + 1
    return lower, upper


def fuzzed_interval(factor: float | None, interval: float, minimum: int, maximum: int) -> int:
    """The interval after fuzz ``factor`` in [0, 1) (None: rounded, no fuzz)."""
    if factor is None:
        return min(max(round_half_away(interval), minimum), maximum)
    lower, upper = fuzz_bounds(interval, minimum, maximum)
    return math.floor(f32(lower + f32(factor * (1 + upper - lower))))


def minimum_after_fuzz(interval: float, previous: int, maximum: int) -> int:
    """A passing review's floor from the interval it had: one day more when it grows,
    the same when it barely changed, no floor when it shrank (Anki's
    ``minimum_review_fuzz_interval``)."""
    _lower, upper = fuzz_bounds(interval, 1, maximum)
    if round_half_away(interval) > previous:
        return previous + 1
    if previous <= upper:
        return previous
    return 0


def weighted_pick(weights: Sequence[float], seed: int) -> int | None:
    """``WeightedIndex::new(weights).sample(StdRng::seed_from_u64(seed))`` in float32:
    the index whose share of the total the card's draw falls in (None without weight)."""
    if not weights:
        return None
    cumulative: list[float] = []
    total = f32(weights[0])
    for weight in weights[1:]:
        cumulative.append(total)
        total = f32(total + f32(weight))
    if total <= 0:
        return None
    scale = total
    top = f32(1.0 - 2.0 ** -23)
    while f32(f32(scale * top)) > total:  # rand's UniformFloat keeps draws below the total
        scale = struct.unpack("<f", struct.pack("<I", struct.unpack(
            "<I", struct.pack("<f", scale))[0] - 1))[0]
    chosen = f32(unit_draw(seed) * scale)
    return sum(1 for c in cumulative if c <= chosen)

"""What an operation changed, and the caches each change makes stale.

As Anki's ``OpChanges``: an operation of the study service reports what it
changed (``Changes``), and every cache declares, where it is defined, the
changes that make it stale (``cached_until``). ``forget`` then drops exactly
those caches: no list of cache names is kept by hand, so a new cache cannot be
missed when the decks or the settings change.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Flag, auto
from functools import cached_property
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Changes(Flag):
    """What an operation changed (combine with ``|``)."""

    NONE = 0
    DECKS = auto()
    """The decks loaded: a deck replaced while the app runs, or a deck file loaded."""
    STUDY_SET = auto()
    """Which decks the profile studies (a deck switched on or off)."""
    SCHEDULE = auto()
    """Cards' stored states: answers recorded or taken back, cards buried or suspended."""
    CONFIG = auto()
    """The profile's scheduler settings (limits, retention, new-card order)."""


class CachedUntil(cached_property[T], Generic[T]):
    """A ``cached_property`` that says which changes make its value stale."""

    def __init__(self, func: Callable[[Any], T], stale_on: Changes) -> None:
        super().__init__(func)
        self.stale_on = stale_on


def cached_until(stale_on: Changes) -> Callable[[Callable[[Any], T]], CachedUntil[T]]:
    """Cache a property until an operation reports one of ``stale_on``."""

    def wrap(func: Callable[[Any], T]) -> CachedUntil[T]:
        return CachedUntil(func, stale_on)

    return wrap


_DECLARED: dict[type, dict[str, Changes]] = {}
"""Each class's caches, worked out once (classes are made once)."""


def caches_of(cls: type) -> dict[str, Changes]:
    """Every cache ``cls`` declares (its bases' too), by name, with what makes it stale."""
    found = _DECLARED.get(cls)
    if found is None:
        found = {}
        for klass in reversed(cls.__mro__):
            for name, attr in vars(klass).items():
                if isinstance(attr, CachedUntil):
                    found[name] = attr.stale_on
        _DECLARED[cls] = found
    return found


def stale_caches(cls: type, changes: Changes) -> tuple[str, ...]:
    """The caches of ``cls`` that ``changes`` make stale."""
    return tuple(name for name, stale_on in caches_of(cls).items() if stale_on & changes)


def forget(owner: object, changes: Changes) -> tuple[str, ...]:
    """Drop ``owner``'s cached values that ``changes`` make stale; their names."""
    if not changes:
        return ()
    dropped = stale_caches(type(owner), changes)
    for name in dropped:
        owner.__dict__.pop(name, None)
    return dropped

"""What a test module caches for itself is let go when the module ends.

Draws and decks a module keeps alive would be scanned at every full garbage collection
for the rest of the test process. A module at the top of ``tests`` (as ``deck_cache``),
so any test module uses it by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

import pytest


class Cached(Protocol):
    def cache_clear(self) -> None: ...


def let_go_at_module_end(*cached: Cached) -> Callable[..., Any]:
    """A module-scoped autouse fixture that empties ``cached`` when its module ends;
    assign it to a module-level name so pytest finds it."""

    @pytest.fixture(scope="module", autouse=True)
    def _let_go() -> Iterator[None]:
        yield
        for function in cached:
            function.cache_clear()

    return _let_go

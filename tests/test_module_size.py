"""No module of studyapp grows past 500 lines.

A module that long holds more than one idea: split it along a real seam
(one part per module, its own tests), not by packing lines.
"""

from __future__ import annotations

from pathlib import Path

import studyapp

LIMIT = 500

BEING_SPLIT = {
    # Modules being split now, each with its size today as a ceiling: the test fails
    # if one grows, and an entry goes when its module is under the limit. The list
    # is meant to end empty.
}

PACKAGE = Path(studyapp.__file__).parent


def lines_of(path: Path) -> int:
    with path.open(encoding="utf-8") as text:
        return sum(1 for _ in text)


def module_sizes() -> dict[str, int]:
    return {path.relative_to(PACKAGE.parent).as_posix(): lines_of(path)
            for path in sorted(PACKAGE.rglob("*.py"))}


def test_no_module_is_over_the_limit() -> None:
    over = {name: size for name, size in module_sizes().items()
            if size > BEING_SPLIT.get(name, LIMIT)}
    assert not over, "modules over their limit (lines): " + ", ".join(
        f"{name} {size} > {BEING_SPLIT.get(name, LIMIT)}"
        for name, size in sorted(over.items()))


def test_the_modules_being_split_are_still_there_and_still_over() -> None:
    """An entry whose module was split (or removed) goes from the list, so it shrinks."""
    sizes = module_sizes()
    done = sorted(name for name in BEING_SPLIT if sizes.get(name, 0) <= LIMIT)
    assert not done, f"no longer over {LIMIT} lines, drop from BEING_SPLIT: {done}"

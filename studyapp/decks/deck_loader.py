"""Read a deck file and check everything, reporting each problem at its position.

Order of work: size limit → decode → safe YAML composition with positions
(``yaml_source``) → pydantic shape checks, errors mapped back to ``line:col``
(``schema_errors``) → checks that need the catalog, the generator registry or
formula evaluation (``field_checks``, ``deck_check``). Every stage reports all
it finds; a deck is returned only when nothing was found.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from studyapp.decks.deck_check import DeckCheck
from studyapp.decks.deck_model import Deck, DeckSource
from studyapp.decks.problems import DeckError, Problem, problem_message, sorted_unique
from studyapp.decks.yaml_source import parse_yaml, position_of
from studyapp.files import FileRefused, read_regular

MAX_DECK_BYTES = 5_000_000
"""5 MB (10^6 bytes, as everywhere in studyapp): larger files are refused unread."""
DECK_SUFFIXES = (".yaml", ".yml")


def refusal_problem(path: Path, refused: FileRefused) -> Problem:
    """A deck file that was not read, as the problem a deck's reader is shown."""
    if refused.reason == "not_regular":
        message = problem_message("not_regular_file")
    elif refused.reason == "too_large" and refused.size > refused.limit:
        message = problem_message("file_too_large", size=refused.size, limit=MAX_DECK_BYTES)
    elif refused.reason == "too_large":
        message = problem_message("too_large", limit=MAX_DECK_BYTES)
    else:
        message = problem_message("unreadable", reason=refused.detail)
    return Problem.at(path, 1, 1, message)


def read_deck_bytes(path: Path) -> bytes:
    """A deck file's bytes, read as ``check_deck_file`` reads them (``DeckError`` if refused)."""
    try:
        return read_regular(path, MAX_DECK_BYTES, what="deck")
    except FileRefused as exc:
        raise DeckError([refusal_problem(path, exc)]) from None


def _read_text(path: Path) -> tuple[str | None, list[Problem]]:
    """The file's text, refusing it unread when it is too large or not a regular file.

    A named pipe or a device would block or never end: it is refused on the
    opened descriptor, before a byte is read (``read_regular``).
    """
    try:
        raw = read_regular(path, MAX_DECK_BYTES, what="deck")
    except FileRefused as exc:
        return None, [refusal_problem(path, exc)]
    try:
        return raw.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8-sig", errors="replace")
        prefix = raw[: exc.start].decode("utf-8-sig", errors="replace")
        line, col = position_of(prefix + "\0", len(prefix))
        problem = Problem.at(path, line, col, problem_message("not_utf8"))
        return text, [problem]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a deck's objects are made.

    A 5,000-card deck is some 100,000 YAML nodes, then as many values and
    card objects, all kept until the check ends: collections triggered while
    they appear find nothing to free and took two thirds of a check's time.
    The work is bounded (5 MB, ``MAX_NODES`` values), so so is the memory.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def check_deck_file(path: Path, source: DeckSource = "file") -> tuple[Deck | None, list[Problem]]:
    """Everything wrong with ``path`` (empty if nothing), and the deck when it is usable."""
    with collector_paused():
        return _check_deck_file(path, source)


def _check_deck_file(path: Path, source: DeckSource) -> tuple[Deck | None, list[Problem]]:
    text, problems = _read_text(path)
    if text is None:
        return None, problems
    parsed = parse_yaml(text)
    problems += [Problem.at(path, line, col, message) for line, col, message in parsed.problems]
    if parsed.data is None:
        return None, sorted_unique(problems)
    check = DeckCheck(path, parsed.data, parsed.source_map, source)
    deck = check.run()
    problems = sorted_unique([*problems, *check.problems])
    return (None if problems else deck), problems


def load_deck_skipping_cards(path: Path, source: DeckSource = "user"
                             ) -> tuple[Deck, list[tuple[str, Problem]]]:
    """The deck in ``path`` without its failing cards, and each card left out (its id and
    first problem); ``DeckError`` when the file, the deck's header or every card fails.

    For a deck read back from a database: one bad card must not take the
    others out of every student's study.
    """
    with collector_paused():
        text, problems = _read_text(path)
        parsed = parse_yaml(text) if text is not None else None
        if parsed is None or parsed.data is None or problems or parsed.problems:
            return load_deck(path, source), []  # raises, with every problem
        check = DeckCheck(path, parsed.data, parsed.source_map, source)
        deck = check.run(skip_failing_cards=True)
    if deck is None:
        raise DeckError(sorted_unique(check.problems)
                        or [Problem.at(path, 1, 1, problem_message("invalid"))])
    return deck, check.skipped


def load_deck(path: Path | str, source: DeckSource = "file") -> Deck:
    """The deck in ``path``; ``DeckError`` lists every problem if it has any."""
    deck, problems = check_deck_file(Path(path), source)
    if problems or deck is None:
        raise DeckError(problems or [Problem.at(Path(path), 1, 1, problem_message("invalid"))])
    return deck


def deck_files(paths: Sequence[Path]) -> Iterator[Path]:
    """Deck files named directly, or found recursively in folders (*.yaml, *.yml)."""
    for path in paths:
        if path.is_dir():
            found = (p for p in path.rglob("*") if p.suffix.lower() in DECK_SUFFIXES)
            yield from sorted(p for p in found if p.is_file())
        else:
            yield path


def validate_paths(paths: Sequence[Path]) -> list[Problem]:
    """Every problem in every deck under ``paths``; ``[]`` when all are clean."""
    problems: list[Problem] = []
    for path in deck_files([Path(p) for p in paths]):
        if not path.exists():
            problems.append(Problem.at(path, 1, 1, problem_message("no_such_path")))
            continue
        problems += check_deck_file(path)[1]
    return problems

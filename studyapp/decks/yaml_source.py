"""Parse deck YAML safely into plain data plus the position of every node.

The node graph is composed with PyYAML's safe loader (C version when
available) and turned into dicts, lists and scalars by hand, so that tags
which construct objects are refused by name, duplicate keys are reported
instead of silently overwritten, alias bombs stop at a node budget, and every
key and value keeps its 1-based ``line:col`` for problem reports.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from studyapp.decks.text import REPLACEMENT, plain_text

try:  # the C loader is much faster; both are safe loaders
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - pure-Python PyYAML
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

PathKey = tuple[str | int, ...]
Position = tuple[int, int]

MAX_DEPTH = 64
MAX_NODES = 200_000
MAX_REPORTED_CHARACTERS = 20

_STD = "tag:yaml.org,2002:"
_SCALAR_TAGS = {f"{_STD}{name}" for name in ("str", "int", "float", "bool", "null")}
_AS_TEXT_TAGS = {f"{_STD}timestamp"}  # a date is kept as the text written
# What YAML forbids in a stream, as PyYAML's reader checks it.
_NOT_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


@dataclass
class SourceMap:
    """Where each value (and each mapping key) starts, by its path in the data."""

    values: dict[PathKey, Position] = field(default_factory=dict)
    keys: dict[PathKey, Position] = field(default_factory=dict)
    refused: set[PathKey] = field(default_factory=set)

    def is_refused(self, path: PathKey) -> bool:
        """True inside a value already reported (a refused tag): no second problem there."""
        return any(path[: len(r)] == r for r in self.refused)

    def value(self, path: PathKey) -> Position:
        """Position of the value at ``path``, or of its closest existing parent."""
        for end in range(len(path), -1, -1):
            found = self.values.get(path[:end])
            if found is not None:
                return found
        return (1, 1)

    def key(self, path: PathKey) -> Position:
        """Position of the key that introduces ``path`` (falls back to the value)."""
        found = self.keys.get(path)
        return found if found is not None else self.value(path)


@dataclass
class ParsedYaml:
    """Plain data (``None`` if nothing usable), its positions, and what went wrong."""

    data: Any
    source_map: SourceMap
    problems: list[tuple[int, int, str]]


def short_tag(tag: str) -> str:
    return "!!" + tag[len(_STD):] if tag.startswith(_STD) else tag


def position_of(text: str, index: int) -> Position:
    """1-based line and column of character ``index`` in ``text``."""
    line = text.count("\n", 0, index) + 1
    start = text.rfind("\n", 0, index) + 1
    return line, index - start + 1


def _mark(node: Node) -> Position:
    return node.start_mark.line + 1, node.start_mark.column + 1


class _Builder:
    """Turns a composed node graph into plain data, recording positions."""

    def __init__(self, report: Callable[[Position, str], None]) -> None:
        self.report = report
        self.map = SourceMap()
        self.nodes = 0
        self.constructor = SafeConstructor()

    def build(self, node: Node, path: PathKey, depth: int) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _TooLarge
        pos = _mark(node)
        self.map.values.setdefault(path, pos)
        if depth > MAX_DEPTH:
            self.report(pos, f"nested deeper than {MAX_DEPTH} levels")
            return None
        if isinstance(node, ScalarNode):
            return self._scalar(node, path, pos)
        if isinstance(node, SequenceNode):
            if not self._tag_ok(node, f"{_STD}seq", path, pos):
                return None
            return [self.build(child, (*path, i), depth + 1) for i, child in enumerate(node.value)]
        if isinstance(node, MappingNode):
            if not self._tag_ok(node, f"{_STD}map", path, pos):
                return None
            return self._mapping(node, path, depth)
        return None  # pragma: no cover - PyYAML has only three node kinds

    def _tag_ok(self, node: Node, expected: str, path: PathKey, pos: Position) -> bool:
        if node.tag == expected:
            return True
        self._refuse_tag(node.tag, path, pos)
        return False

    def _refuse_tag(self, tag: str, path: PathKey, pos: Position) -> None:
        self.map.refused.add(path)
        shown = short_tag(tag)
        if "python/" in tag:
            self.report(pos, f"tag {shown} refused: it would construct a Python object; "
                             "decks hold plain data only")
        else:
            self.report(pos, f"tag {shown} is not allowed; decks hold plain data only "
                             "(text, numbers, true/false, lists and mappings)")

    def _scalar(self, node: ScalarNode, path: PathKey, pos: Position) -> Any:
        if node.tag in _AS_TEXT_TAGS:
            return plain_text(node.value)
        if node.tag not in _SCALAR_TAGS:
            self._refuse_tag(node.tag, path, pos)
            return None
        if node.tag == f"{_STD}str":
            return plain_text(node.value)
        try:
            return self.constructor.yaml_constructors[node.tag](self.constructor, node)
        except (ValueError, ArithmeticError, yaml.YAMLError):
            self.map.refused.add(path)
            self.report(pos, f"cannot read {node.value[:40]!r} as {short_tag(node.tag)[2:]}")
            return None

    def _mapping(self, node: MappingNode, path: PathKey, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first_seen: dict[str, Position] = {}
        for key_node, value_node in node.value:
            key_pos = _mark(key_node)
            if not isinstance(key_node, ScalarNode):
                self.report(key_pos, "a mapping key must be plain text, not a list or mapping")
                continue
            if key_node.tag == f"{_STD}merge":
                self.report(key_pos, "merge keys (<<) are not supported; write the keys out")
                continue
            if key_node.tag not in _SCALAR_TAGS | _AS_TEXT_TAGS:
                self._refuse_tag(key_node.tag, (*path, key_node.value), key_pos)
                continue
            key = plain_text(key_node.value)
            if key in first_seen:
                line, col = first_seen[key]
                self.report(key_pos, f"duplicate key {key!r} (first at line {line}, column {col})")
                continue
            first_seen[key] = key_pos
            self.map.keys[(*path, key)] = key_pos
            result[key] = self.build(value_node, (*path, key), depth + 1)
        return result


class _TooLarge(Exception):
    """The node budget ran out (usually aliases expanding exponentially)."""


def _unprintable(text: str) -> tuple[str, list[tuple[int, int, str]]]:
    """Characters YAML forbids, reported (a few) and replaced so parsing can go on."""
    problems: list[tuple[int, int, str]] = []
    for match in _NOT_PRINTABLE.finditer(text):
        if len(problems) < MAX_REPORTED_CHARACTERS:
            line, col = position_of(text, match.start())
            code = f"U+{ord(match.group()):04X}"
            problems.append((line, col, f"control character {code} is not allowed in a deck"))
    if problems:
        text = _NOT_PRINTABLE.sub(REPLACEMENT, text)
    return text, problems


def parse_yaml(text: str) -> ParsedYaml:
    """Compose ``text`` with a safe loader; never raises for bad input."""
    text, problems = _unprintable(text)

    def report(pos: Position, message: str) -> None:
        problems.append((pos[0], pos[1], message))

    builder = _Builder(report)
    loader = _Loader(text)
    try:
        try:
            root = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        message = " ".join(part for part in (exc.context, exc.problem) if part)
        report((line, col), f"malformed YAML: {message or exc}")
        return ParsedYaml(None, builder.map, problems)
    except yaml.reader.ReaderError as exc:
        report(position_of(text, exc.position), f"malformed YAML: {exc.reason}")
        return ParsedYaml(None, builder.map, problems)
    except (yaml.YAMLError, RecursionError) as exc:
        report((1, 1), f"malformed YAML: {exc}")
        return ParsedYaml(None, builder.map, problems)
    if root is None:
        report((1, 1), "the file is empty")
        return ParsedYaml(None, builder.map, problems)
    try:
        data = builder.build(root, (), 0)
    except _TooLarge:
        report(_mark(root), f"more than {MAX_NODES} values (aliases counted expanded); a "
                            f"deck may hold at most {MAX_NODES} values and 5 MB")
        return ParsedYaml(None, builder.map, problems)
    return ParsedYaml(data, builder.map, problems)

"""Parse deck YAML safely into plain data plus the position of every node.

The node graph is composed with PyYAML's safe loader (C version when
available) and turned into dicts, lists and scalars by hand, so that tags
which construct objects are refused by name, duplicate keys are reported
instead of silently overwritten, alias bombs stop at a node budget, and every
key and value can be placed at its 1-based ``line:col`` for problem reports
(looked up in the node graph by path, only when a problem is reported).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from studyapp.decks.problems import ProblemMessage, problem_message
from studyapp.decks.text import REPLACEMENT, plain_text
from studyapp.decks.yaml_errors import explain

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


Link = tuple[Any, str | int] | None
"""A path kept as (parent link, segment) while building: a tuple only for containers."""

_STR = f"{_STD}str"
_SEQ = f"{_STD}seq"
_MAP = f"{_STD}map"
_MERGE = f"{_STD}merge"
_KEY_TAGS = _SCALAR_TAGS | _AS_TEXT_TAGS


def _unlink(link: Link) -> PathKey:
    parts: list[str | int] = []
    while link is not None:
        link, segment = link
        parts.append(segment)
    return tuple(reversed(parts))


def _accepted_key(key_node: Node) -> str | None:
    """A mapping key's text as the data holds it; None for a key the builder refused."""
    if not isinstance(key_node, ScalarNode) or key_node.tag not in _KEY_TAGS:
        return None
    return plain_text(key_node.value)


def _child(node: Node, segment: str | int, depth: int) -> tuple[Node, Node | None] | None:
    """The (value node, key node) the builder read for ``segment`` of ``node``, if any."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(node, SequenceNode) and node.tag == _SEQ:
        if isinstance(segment, int) and 0 <= segment < len(node.value):
            return node.value[segment], None
    elif isinstance(node, MappingNode) and node.tag == _MAP and isinstance(segment, str):
        for key_node, value_node in node.value:  # the first accepted key wins, as built
            if _accepted_key(key_node) == segment:
                return value_node, key_node
    return None


class SourceMap:
    """Where each value (and each mapping key) starts, by its path in the data.

    Positions are looked up in the composed node graph when a problem is
    reported, following the builder's own rules, so a clean deck records none.
    """

    def __init__(self, root: Node | None = None) -> None:
        self.root = root
        self.refused: set[PathKey] = set()

    def is_refused(self, path: PathKey) -> bool:
        """True inside a value already reported (a refused tag): no second problem there."""
        return any(path[: len(r)] == r for r in self.refused)

    def _walk(self, path: PathKey) -> tuple[list[Node], Node | None]:
        """Nodes along ``path`` as far as it exists, and the key node of its last step."""
        if self.root is None:
            return [], None
        nodes: list[Node] = [self.root]
        key_node: Node | None = None
        for depth, segment in enumerate(path):
            found = _child(nodes[-1], segment, depth)
            if found is None:
                return nodes, None
            nodes.append(found[0])
            key_node = found[1]
        return nodes, key_node

    def value(self, path: PathKey) -> Position:
        """Position of the value at ``path``, or of its closest existing parent."""
        nodes, _ = self._walk(path)
        return _mark(nodes[-1]) if nodes else (1, 1)

    def key(self, path: PathKey) -> Position:
        """Position of the key that introduces ``path`` (falls back to the value)."""
        nodes, key_node = self._walk(path)
        if key_node is not None and len(nodes) == len(path) + 1:
            return _mark(key_node)
        return self.value(path)


@dataclass
class ParsedYaml:
    """Plain data (``None`` if nothing usable), its positions, and what went wrong."""

    data: Any
    source_map: SourceMap
    problems: list[tuple[int, int, ProblemMessage]]


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
    """Turns a composed node graph into plain data.

    Hot paths (text scalars, plain mappings and lists) stay inline and keep no
    positions: those are found in the node graph when a problem is reported.
    """

    def __init__(self, report: Callable[[Position, ProblemMessage], None], root: Node) -> None:
        self.report = report
        self.map = SourceMap(root)
        self.nodes = 0
        self.constructor = SafeConstructor()

    def build(self, node: Node, link: Link, segment: str | int, depth: int) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _TooLarge
        if depth > MAX_DEPTH:
            self.report(_mark(node), problem_message("too_deep", limit=MAX_DEPTH))
            return None
        cls = node.__class__
        if cls is ScalarNode:
            if node.tag == _STR:
                value = node.value
                return value if value.isprintable() else plain_text(value)
            return self._scalar(node, (link, segment))
        if cls is SequenceNode:
            if node.tag != _SEQ:
                return self._refuse_tag(node.tag, (link, segment), _mark(node))
            here = (link, segment)
            build = self.build
            return [build(child, here, i, depth + 1) for i, child in enumerate(node.value)]
        if cls is MappingNode:
            if node.tag != _MAP:
                return self._refuse_tag(node.tag, (link, segment), _mark(node))
            return self._mapping(node, (link, segment), depth)
        return None  # pragma: no cover - PyYAML has only three node kinds

    def _refuse_tag(self, tag: str, link: Link, pos: Position) -> None:
        self.map.refused.add(_unlink(link)[1:])
        shown = short_tag(tag)
        if "python/" in tag:
            self.report(pos, problem_message("python_tag", tag=shown))
        else:
            self.report(pos, problem_message("tag_refused", tag=shown))

    def _scalar(self, node: Node, link: Link) -> Any:
        if node.tag in _AS_TEXT_TAGS:
            return plain_text(node.value)
        if node.tag not in _SCALAR_TAGS:
            return self._refuse_tag(node.tag, link, _mark(node))
        try:
            return self.constructor.yaml_constructors[node.tag](self.constructor, node)
        except (ValueError, ArithmeticError, yaml.YAMLError):
            self.map.refused.add(_unlink(link)[1:])
            self.report(_mark(node), problem_message(
                "unreadable_scalar", value=node.value[:40], type=short_tag(node.tag)[2:]))
            return None

    def _mapping(self, node: Node, here: Link, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        build = self.build
        child_depth = depth + 1
        for key_node, value_node in node.value:
            if key_node.__class__ is ScalarNode and key_node.tag == _STR:
                key = key_node.value
                if not key.isprintable():
                    key = plain_text(key)
            else:
                key = self._odd_key(key_node, here)
                if key is None:
                    continue
            if key in result:
                self._duplicate(node, key, key_node)
                continue
            if (value_node.__class__ is ScalarNode and value_node.tag == _STR
                    and child_depth <= MAX_DEPTH):  # inline: most values are text
                self.nodes += 1
                if self.nodes > MAX_NODES:
                    raise _TooLarge
                value = value_node.value
                result[key] = value if value.isprintable() else plain_text(value)
            else:
                result[key] = build(value_node, here, key, child_depth)
        return result

    def _odd_key(self, key_node: Node, here: Link) -> str | None:
        """The text of a key that is not plain text, or None after reporting it."""
        key_pos = _mark(key_node)
        if not isinstance(key_node, ScalarNode):
            self.report(key_pos, problem_message("key_not_text"))
            return None
        if key_node.tag == _MERGE:
            self.report(key_pos, problem_message("merge_key"))
            return None
        if key_node.tag not in _KEY_TAGS:
            self._refuse_tag(key_node.tag, (here, key_node.value), key_pos)
            return None
        return plain_text(key_node.value)

    def _duplicate(self, node: Node, key: str, key_node: Node) -> None:
        first = next(k for k, _ in node.value if _accepted_key(k) == key)
        line, col = _mark(first)
        self.report(_mark(key_node), problem_message("duplicate_key", name=key,
                                                     line=line, col=col))


class _TooLarge(Exception):
    """The node budget ran out (usually aliases expanding exponentially)."""


def _unprintable(text: str) -> tuple[str, list[tuple[int, int, ProblemMessage]]]:
    """Characters YAML forbids, reported (a few) and replaced so parsing can go on."""
    problems: list[tuple[int, int, ProblemMessage]] = []
    for match in _NOT_PRINTABLE.finditer(text):
        if len(problems) < MAX_REPORTED_CHARACTERS:
            line, col = position_of(text, match.start())
            code = f"U+{ord(match.group()):04X}"
            problems.append((line, col, problem_message("control_character", code=code)))
    if problems:
        text = _NOT_PRINTABLE.sub(REPLACEMENT, text)
    return text, problems


def parse_yaml(text: str) -> ParsedYaml:
    """Compose ``text`` with a safe loader; never raises for bad input."""
    text, problems = _unprintable(text)

    def report(pos: Position, message: ProblemMessage) -> None:
        problems.append((pos[0], pos[1], message))

    loader = _Loader(text)
    try:
        try:
            root = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        opened = exc.context_mark
        context_at = None if opened is None else (opened.line + 1, opened.column + 1)
        line, col, words = explain(text, exc.context, context_at,
                                   exc.problem or (None if exc.context else str(exc)),
                                   (line, col))
        report((line, col), words)
        return ParsedYaml(None, SourceMap(), problems)
    except yaml.reader.ReaderError as exc:
        report(position_of(text, exc.position),
               problem_message("malformed_yaml", detail=str(exc.reason)))
        return ParsedYaml(None, SourceMap(), problems)
    except (yaml.YAMLError, RecursionError) as exc:
        report((1, 1), problem_message("malformed_yaml", detail=str(exc)))
        return ParsedYaml(None, SourceMap(), problems)
    if root is None:
        report((1, 1), problem_message("empty_file"))
        return ParsedYaml(None, SourceMap(), problems)
    builder = _Builder(report, root)
    try:
        data = builder.build(root, None, "", 0)  # the root's "" is dropped from every path
    except _TooLarge:
        report(_mark(root), problem_message("too_many_values", limit=MAX_NODES))
        return ParsedYaml(None, builder.map, problems)
    return ParsedYaml(data, builder.map, problems)

"""Anki-like card search: parse a query once, then test it against each card.

``post:h200 -is:suspended (lapses>2 or accuracy<60) memoria`` — terms
separated by spaces must all hold, ``or`` joins alternatives, ``-`` negates,
parentheses group. Free words match the question text with accents and case
ignored. A query that cannot be read raises ``QueryError`` with the column
where it went wrong, so both faces can point at it. Pure: no storage, no UI.
"""

from __future__ import annotations

import fnmatch
import math
import re
import unicodedata
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

FIELDS = ("post", "deck", "card", "family", "tag", "is", "flag", "lapses", "reps", "accuracy",
          "due")
STATES = ("new", "learning", "review", "due", "suspended", "buried", "leech", "flagged")
NUMERIC = ("lapses", "reps", "accuracy", "due", "flag")
_COMPARISON = re.compile(r"^(lapses|reps|accuracy|due|flag)(<=|>=|<|>|=|:)(.*)$", re.IGNORECASE)


def fold(text: str) -> str:
    """Text for matching: accents dropped, case folded, spaces collapsed."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())


@dataclass(frozen=True)
class CardFacts:
    """What a query can ask of one card (stage 0 new, 1 learning, 2 review, 3 relearning)."""

    deck: str
    card: str
    post: str
    family: str | None
    stage: int
    due: datetime | None
    reps: int
    lapses: int
    accuracy: float | None  # 0..1, None before any answer
    flag: int
    suspended: bool
    buried: bool
    leech: bool
    text: str  # folded question text
    tags: tuple[str, ...] = ()


class QueryError(ValueError):
    """A query that cannot be read: ``column`` (1-based) says where."""

    def __init__(self, message: str, query: str, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.query = query
        self.column = column

    def pointer(self) -> str:
        """The query and a caret under the place it went wrong (two lines)."""
        return f"{self.query}\n{' ' * (self.column - 1)}^"

    def __str__(self) -> str:
        return f"column {self.column}: {self.message}"


@dataclass(frozen=True)
class SearchContext:
    """What terms are checked against and the clock they are read with."""

    now: datetime
    day_end: datetime  # the end of today's study day: due before it is due today
    posts: Collection[str] = ()
    decks: Collection[str] = ()
    families: Collection[str] = ()


Test = Callable[[CardFacts, SearchContext], bool]


@dataclass(frozen=True)
class _Token:
    kind: str  # "(", ")", "or", "and", "term"
    text: str
    column: int
    negated: bool = False
    quoted: bool = False


def _tokens(query: str) -> list[_Token]:
    found: list[_Token] = []
    i, n = 0, len(query)
    while i < n:
        ch = query[i]
        if ch.isspace():
            i += 1
            continue
        if ch in "()":
            found.append(_Token(ch, ch, i + 1))
            i += 1
            continue
        start = i
        negated = False
        if ch == "-" and i + 1 < n and not query[i + 1].isspace():
            negated = True
            i += 1
            if query[i] == "(":
                found.append(_Token("-", "-", start + 1))
                continue
        if i < n and query[i] == '"':
            end = query.find('"', i + 1)
            if end < 0:
                raise QueryError("this quote is never closed", query, i + 1)
            found.append(_Token("term", query[i + 1:end], start + 1, negated, quoted=True))
            i = end + 1
            continue
        j = i
        while j < n and not query[j].isspace() and query[j] not in "()":
            if query[j] == '"':  # field:"two words"
                end = query.find('"', j + 1)
                if end < 0:
                    raise QueryError("this quote is never closed", query, j + 1)
                j = end + 1
                continue
            j += 1
        word = query[i:j]
        lowered = word.casefold()
        if not negated and lowered in ("or", "and"):
            found.append(_Token(lowered, word, start + 1))
        else:
            found.append(_Token("term", word.replace('"', ""), start + 1, negated))
        i = j
    return found


MAX_QUERY_DEPTH = 32
"""Nested groups a query may have: deeper ones are refused, never a RecursionError."""


class _Parser:
    def __init__(self, query: str, context: SearchContext) -> None:
        self.query = query
        self.context = context
        self.tokens = _tokens(query)
        self.at = 0
        self.depth = 0

    def error(self, message: str, column: int | None = None) -> QueryError:
        if column is None:
            column = self.tokens[self.at].column if self.at < len(self.tokens) else \
                len(self.query) + 1
        return QueryError(message, self.query, column)

    def peek(self) -> _Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def parse(self) -> Test:
        if not self.tokens:
            return lambda card, ctx: True
        test = self.alternatives()
        token = self.peek()
        if token is not None:  # only a stray ")" stops the alternatives early
            raise self.error("this ')' has no '(' to close", token.column)
        return test

    def alternatives(self) -> Test:
        options = [self.conjunction()]
        while (token := self.peek()) is not None and token.kind == "or":
            self.at += 1
            options.append(self.conjunction())
        if len(options) == 1:
            return options[0]
        return lambda card, ctx: any(t(card, ctx) for t in options)

    def conjunction(self) -> Test:
        parts: list[Test] = []
        while (token := self.peek()) is not None and token.kind not in ("or", ")"):
            if token.kind == "and":
                if not parts:
                    raise self.error("'and' needs a term before it")
                self.at += 1
                continue
            parts.append(self.unary())
        if not parts:
            word = self.peek()
            if word is None:
                raise self.error("a term is missing at the end")
            raise self.error(f"a term is missing before '{word.text}'")
        if self.tokens[self.at - 1].kind == "and":
            raise self.error("'and' needs a term after it")
        if len(parts) == 1:
            return parts[0]
        return lambda card, ctx: all(t(card, ctx) for t in parts)

    def unary(self) -> Test:
        token = self.tokens[self.at]
        if token.kind == "-":
            self.at += 1
            inner = self.group()
            return lambda card, ctx: not inner(card, ctx)
        if token.kind == "(":
            return self.group()
        self.at += 1
        test = self.term(token)
        if token.negated:
            return lambda card, ctx: not test(card, ctx)
        return test

    def group(self) -> Test:
        token = self.peek()
        if token is None or token.kind != "(":
            raise self.error("'-(' expected")
        self.depth += 1
        if self.depth > MAX_QUERY_DEPTH:
            raise self.error(f"more than {MAX_QUERY_DEPTH} nested '(' — write the query flatter",
                             token.column)
        self.at += 1
        inner = self.alternatives()
        self.depth -= 1
        closing = self.peek()
        if closing is None or closing.kind != ")":
            raise self.error("this '(' is never closed", token.column)
        self.at += 1
        return inner

    # -- terms ------------------------------------------------------------------------

    def term(self, token: _Token) -> Test:
        text = token.text
        column = token.column + (1 if token.negated else 0)
        if token.quoted:
            return _words(text)
        comparison = _COMPARISON.match(text)
        if comparison and not (comparison.group(2) == ":" and
                               comparison.group(1).casefold() == "flag"):
            return self.comparison(comparison.group(1).casefold(), comparison.group(2),
                                   comparison.group(3), column)
        field, sep, value = text.partition(":")
        if sep and re.fullmatch(r"[A-Za-z_]+", field):
            name = field.casefold()
            value_column = column + len(field) + 1
            if not value:
                raise QueryError(f"'{field}:' needs a value", self.query, value_column)
            if name == "is":
                return self.state(value, value_column)
            if name == "flag":
                return self.flag(value, value_column)
            if name in ("post", "deck", "family", "card"):
                return self.name(name, value, value_column)
            if name == "tag":
                return _tag(value)
            raise QueryError(f"unknown field '{field}' (fields: {', '.join(FIELDS)})",
                             self.query, column)
        return _words(text)

    def name(self, field: str, value: str, column: int) -> Test:
        pattern = value.casefold()
        wild = any(ch in pattern for ch in "*?[")
        known = {"post": self.context.posts, "deck": self.context.decks,
                 "family": self.context.families}.get(field, ())
        if known and not wild and pattern not in {k.casefold() for k in known}:
            close = [k for k in sorted(known) if pattern in k.casefold()][:6]
            hint = f" (did you mean {', '.join(close)}?)" if close else \
                f" (known: {', '.join(sorted(known)[:12])}{'…' if len(known) > 12 else ''})"
            raise QueryError(f"no {field} '{value}'{hint}", self.query, column)

        def matches(card: CardFacts, ctx: SearchContext) -> bool:
            actual = {"post": card.post, "deck": card.deck, "family": card.family,
                      "card": card.card}[field]
            if actual is None:
                return False
            return fnmatch.fnmatchcase(actual.casefold(), pattern)

        return matches

    def state(self, value: str, column: int) -> Test:
        word = value.casefold()
        tests: dict[str, Test] = {
            "new": lambda c, ctx: c.stage == 0,
            "learning": lambda c, ctx: c.stage in (1, 3),
            "review": lambda c, ctx: c.stage == 2,
            "due": lambda c, ctx: (c.stage > 0 and not c.suspended and not c.buried
                                   and c.due is not None and c.due < ctx.day_end),
            "suspended": lambda c, ctx: c.suspended,
            "buried": lambda c, ctx: c.buried,
            "leech": lambda c, ctx: c.leech,
            "flagged": lambda c, ctx: c.flag > 0,
        }
        if word not in tests:
            raise QueryError(f"unknown state 'is:{value}' (is: {', '.join(STATES)})",
                             self.query, column)
        return tests[word]

    def flag(self, value: str, column: int) -> Test:
        if not re.fullmatch(r"[0-4]", value):
            raise QueryError(f"flag:{value} — flags are 0 (none) to 4", self.query, column)
        wanted = int(value)
        return lambda card, ctx: card.flag == wanted

    def comparison(self, field: str, op: str, value: str, column: int) -> Test:
        value_column = column + len(field) + len(op)
        if op == ":":
            op = "="
        raw = value.casefold()
        if field == "due":
            match = re.fullmatch(r"(-?\d+)d?", raw)
            if not match:
                raise QueryError(f"due{op}{value} — write a number of days, like due<3d",
                                 self.query, value_column)
            days = int(match.group(1))

            def due(card: CardFacts, ctx: SearchContext) -> bool:
                if card.stage == 0 or card.due is None:
                    return False
                # in study days from today: 0 today (or overdue), 1 tomorrow…; due<3d is
                # due within today and the next two days
                ahead = max(0, math.floor((card.due - ctx.day_end) / timedelta(days=1)) + 1)
                return _compare(ahead, op, days)

            return due
        match = re.fullmatch(r"\d+(\.\d+)?%?", raw)
        if not match:
            example = "accuracy<60" if field == "accuracy" else f"{field}>2"
            raise QueryError(f"{field}{op}{value} — write a number, like {example}",
                             self.query, value_column)
        number = float(raw.rstrip("%"))
        if field == "accuracy":
            def accuracy(card: CardFacts, ctx: SearchContext) -> bool:
                return card.accuracy is not None and _compare(card.accuracy * 100, op, number)

            return accuracy
        if field == "flag":
            return lambda card, ctx: _compare(card.flag, op, number)
        attribute = field

        def counted(card: CardFacts, ctx: SearchContext) -> bool:
            return _compare(getattr(card, attribute), op, number)

        return counted


def _compare(left: float, op: str, right: float) -> bool:
    if op == "<":
        return left < right
    if op == ">":
        return left > right
    if op == "<=":
        return left <= right
    if op == ">=":
        return left >= right
    return left == right


def _tag(value: str) -> Test:
    """``tag:gpu`` matches the tags gpu and gpu::h100 (Anki's nesting); ``*`` wildcards."""
    pattern = value.casefold()

    def matches(card: CardFacts, ctx: SearchContext) -> bool:
        return any(fnmatch.fnmatchcase(tag.casefold(), pattern)
                   or fnmatch.fnmatchcase(tag.casefold(), pattern + "::*") for tag in card.tags)

    return matches


def _words(text: str) -> Test:
    needle = fold(text)
    return lambda card, ctx: needle in card.text


@dataclass(frozen=True)
class Search:
    """A parsed query, ready to test cards with."""

    query: str
    test: Test
    context: SearchContext

    def matches(self, card: CardFacts) -> bool:
        return self.test(card, self.context)


def parse_query(query: str, context: SearchContext) -> Search:
    """The query as a test over cards; ``QueryError`` if it cannot be read."""
    return Search(query, _Parser(query, context).parse(), context)


__all__ = ["FIELDS", "STATES", "CardFacts", "QueryError", "Search", "SearchContext", "fold",
           "parse_query"]

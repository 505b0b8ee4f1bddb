"""PyYAML's syntax errors said in the project's words, at the line that needs the fix.

PyYAML reports where it gave up, in its own terms ("while scanning a quoted scalar
found unexpected end of stream", "expected <block end>, but found '<scalar>'"). An
instructor needs where the mistake is: a quote left open is reported where it
opens, not lines later where the next quote happened to close it; a line indented
too far or too little, a tab, a ``: `` inside a value and a bracket left open are
each said in one sentence that names the fix, in English and Spanish. Anything
else keeps the parser's words.
"""

from __future__ import annotations

import re

from studyapp.decks.problems import ProblemMessage, problem_message

_UNQUOTED_COLON = re.compile(
    r"\s*(?:-\s+)?(?P<key>[\w-]+):\s+(?P<value>[^\s\"'{\[|>].*?:\s.*?)\s*$")
_KEY_LINE = re.compile(r"^\s*(?:-\s+)?[\w-]+:(?:\s|$)")
_BLOCK_START = re.compile(r":\s+[|>][-+0-9]*\s*(?:#.*)?$")
_QUOTED_VALUE = re.compile(r"^\s*(?:-\s+)?(?:[\w-]+:\s+)?(?P<open>[\"'])")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def open_quote(lines: list[str], last: int) -> tuple[int, int, str] | None:
    """The first value up to line ``last`` (1-based) whose quote is not closed on its line
    and is followed by a line that reads as a key: a quote left open, which the next quote
    in the file then closes (the line, column and quote character)."""
    block: int | None = None  # the indentation of the key a literal block (| or >) opens
    for number in range(1, min(last, len(lines)) + 1):
        line = lines[number - 1]
        if block is not None and (not line.strip() or _indent(line) > block):
            continue  # text of a block: its quotes are words
        block = _indent(line) if _BLOCK_START.search(line) else None
        match = _QUOTED_VALUE.match(line)
        if match is None or line.lstrip().startswith("#"):
            continue
        start = match.start("open")
        if _closing_at(line, start, match["open"]) is not None:
            continue
        following = lines[number:last]
        if any(_KEY_LINE.match(after) for after in following) or number == last:
            return number, start + 1, match["open"]
    return None


def _closing_at(line: str, start: int, quote: str) -> int | None:
    """The index where the quoted text opened at ``line[start]`` closes, if it does."""
    i = start + 1
    while i < len(line):
        if quote == '"' and line[i] == "\\":
            i += 2
            continue
        if line[i] == quote:
            if quote == "'" and line[i + 1:i + 2] == "'":
                i += 2
                continue
            return i
        i += 1
    return None


def _text_after_quote(source: str) -> tuple[int, str] | None:
    """A quoted value the line goes on after (``'It's HBM'``, ``"The "H100" chip"``):
    the column of the quote that closed it early, and the quote."""
    match = _QUOTED_VALUE.match(source)
    if match is None:
        return None
    quote = match["open"]
    end = _closing_at(source, match.start("open"), quote)
    if end is None:
        return None
    rest = source[end + 1:].strip()
    if not rest or rest.startswith("#") or rest[0] in ",]}":
        return None
    return end + 1, quote


def _indented(lines: list[str], line: int, col: int,
              detail: str) -> tuple[int, int, ProblemMessage] | None:
    """A line indented more, or less, than the keys of its mapping or list."""
    if not 0 < line <= len(lines):
        return None
    source = lines[line - 1]
    above_at = next((n for n in range(line - 2, -1, -1)
                     if lines[n].strip() and not lines[n].lstrip().startswith("#")), None)
    if above_at is None:
        return None
    here, there = _indent(source), _indent(lines[above_at])
    block = "expected <block end>" in detail or "did not find expected" in detail
    if here > there and ("mapping values are not allowed" in detail or block):
        return line, here + 1, problem_message("yaml_indented_more", column=here + 1,
                                               above=there + 1, line=above_at + 1)
    if here < there and block:
        return line, here + 1, problem_message("yaml_indented_less", column=here + 1,
                                                           above=there + 1)
    return None


def explain(text: str, context: str | None, context_at: tuple[int, int] | None,
            problem: str | None, problem_at: tuple[int, int]) -> tuple[int, int, ProblemMessage]:
    """A YAML error at the line and column to fix, in words that name the fix."""
    lines = text.splitlines()
    line, col = problem_at
    detail = " ".join(part for part in (context, problem) if part)
    found = open_quote(lines, line)
    if found is not None and "tab" not in detail:
        at_line, at_col, quote = found
        return at_line, at_col, problem_message("yaml_open_quote", quote=quote)
    if context is not None and "quoted scalar" in context and context_at is not None:
        if problem is not None and "unknown escape" in problem:
            return line, col, problem_message("yaml_escape")
        quote = lines[context_at[0] - 1][context_at[1] - 1:context_at[1]] or '"'
        return context_at[0], context_at[1], problem_message("yaml_open_quote", quote=quote)
    at = lines[line - 1][col - 1:col] if 0 < line <= len(lines) and col > 0 else ""
    # PyYAML: "found character '\t' ...", or no word of it ("cannot start any token") with
    # the tab at the position it gives
    about_tab = "tab" in detail or "'\\t'" in detail or at == "\t"
    for number in (line, line - 1) if about_tab else ():  # it may stop at the next line
        source = lines[number - 1] if 0 < number <= len(lines) else ""
        if "\t" in source:
            return number, source.index("\t") + 1, problem_message("yaml_tab")
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    early = _text_after_quote(source) if "expected" in detail else None
    if early is not None:
        inside = "''" if early[1] == "'" else '\\"'
        return line, early[0], problem_message("yaml_quote_inside", quote=early[1],
                                               inside=inside)
    if "could not find expected ':'" in detail and context_at is not None:
        return context_at[0], context_at[1], problem_message("yaml_no_colon")
    match = _UNQUOTED_COLON.fullmatch(source)
    if "mapping values are not allowed" in detail and match is not None:
        value = match["value"].replace("\\", "\\\\").replace('"', '\\"')
        return line, match.start("value") + 1, problem_message(
            "yaml_quote_colon", key=match["key"], value=value)
    indented = _indented(lines, line, col, detail)
    if indented is not None:
        return indented
    if context is not None and context_at is not None and (
            "flow sequence" in context or "flow mapping" in context):
        close = "]" if "sequence" in context else "}"
        return context_at[0], context_at[1], problem_message("yaml_flow_open", close=close)
    if "mapping values are not allowed" in detail:
        return line, col, problem_message("yaml_colon_here")
    return line, col, problem_message("malformed_yaml", detail=detail)


__all__ = ["explain", "open_quote"]

"""Untrusted text from deck files, made safe to keep and show.

Decks are other people's files. Their prompts, choices and explanations are
plain text: renderers must show them as plain ``Text`` and never interpret
them as Rich/Textual markup (``[@click=app.quit]`` stays literal). What this
module removes is what no renderer can make harmless by escaping: ANSI escape
sequences and control characters that would move the cursor, recolour or
retitle a terminal, and the characters no one sees (``studyapp.text.INVISIBLE``:
tag characters, bidi controls, zero-width spaces, the BOM), which would
reorder a line or carry text the learner cannot read. Every deck text (YAML
decks, decks made from Anki packages, published decks, formula output) passes
through ``plain_text`` when it is loaded, so the terminal and the browser show
the same cleaned text.
"""

from __future__ import annotations

import re

from studyapp.text import without_invisible

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other two-byte ESC forms,
# and their 8-bit C1 equivalents.
_ANSI = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[@-Z\\-_]"
)
# C0 except tab and newline, DEL, C1, and the bidi embedding/override/isolate marks.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

REPLACEMENT = "\ufffd"


def plain_text(value: str) -> str:
    """``value`` with ANSI sequences and invisible characters removed, and other control
    characters made visible.

    ``\\r\\n`` becomes ``\\n``; remaining control characters become U+FFFD so a
    reader sees that something was there.
    """
    if value.isprintable():
        return value
    value = value.replace("\r\n", "\n")
    value = without_invisible(_ANSI.sub("", value))
    return _CONTROL.sub(REPLACEMENT, value)


def has_unsafe_characters(value: str) -> bool:
    """True if ``plain_text`` would change ``value``."""
    return plain_text(value) != value


def markdown_line(markdown: str) -> str:
    """The first paragraph or heading of a Markdown text as one plain line.

    A course deck's summary is Markdown; the home screen shows its first
    line as the course's tagline, where ``**HBM**`` must read as ``HBM``.
    Parsed with markdown-it (CommonMark), never by pattern.
    """
    from markdown_it import MarkdownIt

    for token in MarkdownIt("commonmark").parse(markdown):
        if token.type != "inline" or not token.children:
            continue
        pieces = [" " if child.type in ("softbreak", "hardbreak") else child.content
                  for child in token.children
                  if child.type in ("text", "code_inline", "softbreak", "hardbreak")]
        line = " ".join("".join(pieces).split())
        if line:
            return line
    return ""


__all__ = ["REPLACEMENT", "has_unsafe_characters", "markdown_line", "plain_text"]

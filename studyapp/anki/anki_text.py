"""Anki field HTML and card templates as readable plain text.

Field HTML is read with the standard library's HTML parser: block elements
become line breaks, list items lines of their own ("- item"), table rows
lines with their cells joined by " | ", sub- and superscripts Unicode
sub/superscript characters where they exist (H₂O, mc²) and ``_(...)`` /
``^(...)`` where they do not, and images the line ``[image: NAME]`` (their
names are collected so the files can be copied). Sounds are named the same
way, ``[audio: NAME]``, and their files kept beside the deck. Cloze text is
parsed with nesting, so ``{{c1::a {{c2::b}} c}}`` gives two cards.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import PurePosixPath

_BLOCK_TAGS = frozenset({"br", "div", "p", "tr", "h1", "h2", "h3", "h4", "h5", "h6",
                         "ul", "ol", "table", "hr", "blockquote", "pre", "dl", "dt", "dd"})
_SKIP_TAGS = frozenset({"script", "style", "head", "title"})
_OTHER_MEDIA = frozenset({"audio", "video", "object", "embed"})
_SOUND = re.compile(r"\[sound:[^\]]*\]")

FIELD_MARK = "\x1e"
"""Put around every field value a template shows, so two inline fields keep a space."""

_SUB = str.maketrans("0123456789+-=()aeohklmnpstx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₕₖₗₘₙₚₛₜₓ")
_SUP = str.maketrans("0123456789+-=()in", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿ")
_SUB_CHARS = frozenset("0123456789+-=()aeohklmnpstx")
_SUP_CHARS = frozenset("0123456789+-=()in")


def _script(text: str, sup: bool) -> str:
    """``2`` → ``²``/``₂``; text without Unicode forms → ``^(...)``/``_(...)``."""
    chars = _SUP_CHARS if sup else _SUB_CHARS
    if text and all(c in chars for c in text):
        return text.translate(_SUP if sup else _SUB)
    if not text.strip():
        return text
    mark = "^" if sup else "_"
    return f"{mark}{text}" if len(text) == 1 else f"{mark}({text})"


@dataclass
class TextResult:
    """A field as text, the images it names and the sounds it dropped."""

    text: str
    images: list[str] = field(default_factory=list)
    dropped: int = 0
    sounds: list[str] = field(default_factory=list)
    """Audio files the field plays (``[sound:NAME]``, ``<audio src>``), named on the card."""


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.images: list[str] = []
        self.sounds: list[str] = []
        self.dropped = 0
        self._skipping = 0
        self._scripts: list[tuple[bool, int]] = []  # (superscript, where its text starts)
        self._cells: list[int] = []  # cells seen in each open table row

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skipping += 1
        elif tag == "img":
            src = dict(attrs).get("src") or ""
            name = media_name(src)
            if name:
                self.images.append(name)
                self.parts.append(f" [image: {name}] ")
            else:
                self.dropped += 1
        elif tag == "audio" and is_audio(media_name(dict(attrs).get("src") or "")):
            name = media_name(dict(attrs).get("src") or "")
            self.sounds.append(name)
            self.parts.append(f" [{AUDIO_WORD} {name}] ")
        elif tag in _OTHER_MEDIA:
            self.dropped += 1
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in ("td", "th"):
            if self._cells and self._cells[-1]:
                self.parts.append(" | ")
            if self._cells:
                self._cells[-1] += 1
        elif tag in ("sub", "sup"):
            self._scripts.append((tag == "sup", len(self.parts)))
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")
            if tag == "tr":
                self._cells.append(0)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in _SKIP_TAGS:
            self._skipping -= 1
        elif tag in ("sub", "sup"):
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in ("sub", "sup"):
            if self._scripts:
                sup, start = self._scripts.pop()
                inner = "".join(self.parts[start:])
                del self.parts[start:]
                self.parts.append(_script(inner, sup))
        elif tag in ("td", "th", "li"):
            return
        elif tag in _BLOCK_TAGS:
            if tag == "tr" and self._cells:
                self._cells.pop()
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def media_name(src: str) -> str:
    """The file name an ``<img src>`` names, if it is a plain name in the media folder."""
    if not src or "://" in src or src.startswith("data:"):
        return ""
    name = PurePosixPath(src.replace("\\", "/")).name
    return "" if name in ("", ".", "..") or name.startswith(".") else name


_MARK_BETWEEN_WORDS = re.compile(
    rf"(?<=[^\s{FIELD_MARK}])[{FIELD_MARK}]+(?=[^\s.,;:!?)\]{FIELD_MARK}])")


AUDIO_WORD = "audio:"
"""How a card names a sound it plays: ``[audio: NAME]`` (studyapp plays none; the file is
kept beside the deck)."""
AUDIO_SUFFIXES = frozenset({".mp3", ".ogg", ".oga", ".opus", ".wav", ".m4a", ".flac", ".aac",
                            ".spx"})


def is_audio(name: str) -> bool:
    """A plain media file name with an audio ending (what Anki records and plays)."""
    return bool(name) and PurePosixPath(name).suffix.lower() in AUDIO_SUFFIXES


def to_text(fragment: str) -> TextResult:
    """Readable text of an Anki field or rendered template side."""
    sounds: list[str] = []
    dropped = 0

    def sound(match: re.Match[str]) -> str:
        nonlocal dropped
        name = media_name(match.group(0)[len("[sound:"):-1].strip())
        if not is_audio(name):
            dropped += 1
            return " "
        sounds.append(name)
        # escaped: the reader turns it back into text, never into markup
        return f" [{AUDIO_WORD} {html.escape(name)}] "

    reader = _Reader()
    reader.feed(_SOUND.sub(sound, fragment))
    reader.close()
    text = "".join(reader.parts).replace("\xa0", " ")
    text = _MARK_BETWEEN_WORDS.sub(" ", text).replace(FIELD_MARK, "")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    clean = "\n".join(line for line in lines if line and line != "-").strip()
    return TextResult(clean, reader.images, reader.dropped + dropped,
                      list(dict.fromkeys(sounds + reader.sounds)))


def html_to_text(fragment: str) -> tuple[str, int]:
    """Plain text of an Anki field and how many sounds or unnamed media it dropped."""
    result = to_text(fragment)
    return result.text, result.dropped


# ------------------------------------------------------------------ templates

_NAME = r"[^{}\s](?:[^{}]*[^{}\s])?"
r"""A field reference's inner text: starts and ends with a non-space, so the spaces
around it belong to one pattern only (``\s*[^{}]+?\s*`` backtracked as N^4 on
``{{`` followed by a thousand spaces)."""
_FIELD_REF = re.compile(rf"{{{{\s*(?:([#^/])\s*)?({_NAME})\s*}}}}")
_SECTION = re.compile(rf"{{{{\s*([#^])\s*({_NAME})\s*}}}}(.*?){{{{\s*/\s*\2\s*}}}}",
                      re.DOTALL)
SPECIAL_FIELDS = frozenset({"FrontSide", "Tags", "Deck", "Subdeck", "Card", "CardFlag", "Type"})


def field_name(ref: str) -> tuple[str, str]:
    """``filter:Field`` → (filter, Field); plain ``Field`` → ("", Field)."""
    *filters, name = ref.split(":")
    return (filters[0].strip() if filters else ""), name.strip()


def template_refs(template: str) -> list[tuple[str, str]]:
    """(filter, field) for every field a template shows, in order, sections excluded."""
    refs = []
    for sign, ref in _FIELD_REF.findall(template):
        if sign:
            continue
        filter_name, name = field_name(ref)
        if name not in SPECIAL_FIELDS:
            refs.append((filter_name, name))
    return refs


def template_fields(template: str) -> set[str]:
    """Names of the note fields a card template shows."""
    return {name for _, name in template_refs(template)}


def render_template(template: str, values: Mapping[str, str]) -> str:
    """Anki's mustache subset: {{Field}}, {{filter:Field}}, {{#F}}…{{/F}}, {{^F}}…{{/F}}.

    ``type:`` boxes and ``FrontSide`` render empty: the prompt is the front text.
    Every field value is put between ``FIELD_MARK``\\ s (see :func:`to_text`).
    """
    def section(match: re.Match[str]) -> str:
        sign, name, body = match.group(1), match.group(2).strip(), match.group(3)
        present = bool(values.get(field_name(name)[1], "").strip())
        return body if present == (sign == "#") else ""

    sections = _SECTION
    text = template
    for _ in range(10):  # nested sections: resolve from the inside out, a few levels
        new = sections.sub(section, text)
        if new == text:
            break
        text = new

    def field_value(match: re.Match[str]) -> str:
        if match.group(1):
            return ""
        filter_name, name = field_name(match.group(2))
        if filter_name in ("type", "tts") or name in SPECIAL_FIELDS:
            return ""
        return FIELD_MARK + ruby(values.get(name, ""), filter_name) + FIELD_MARK

    return _FIELD_REF.sub(field_value, text)


_RUBY = re.compile(r" ?([^ >\[\]]+?)\[([^\]]+?)\]")
"""Anki's reading syntax: ``漢字[かんじ]``, a space before it where it starts a word."""


def ruby(value: str, filter_name: str) -> str:
    """A field through Anki's ``furigana:``, ``kana:`` or ``kanji:`` filter, as text:
    ``漢字(かんじ)``, ``かんじ``, ``漢字``. Readings left in a plain field are shown as written
    and any other filter (``text:`` included) leaves the value as it is (HTML is read later)."""
    if filter_name == "furigana":
        return _RUBY.sub(lambda m: f"{m.group(1)}({m.group(2)})", value)
    if filter_name == "kana":
        return _RUBY.sub(lambda m: m.group(2), value)
    if filter_name == "kanji":
        return _RUBY.sub(lambda m: m.group(1), value)
    return value


# ------------------------------------------------------------------ cloze


@dataclass
class Cloze:
    """One deletion: its number, what it hides (text and nested deletions), its hint."""

    number: int
    children: list[str | Cloze]
    hint: str | None = None


_OPEN = re.compile(r"{{c(\d+)::")


def parse_cloze(text: str) -> list[str | Cloze]:
    """Cloze text as a tree; an unclosed ``{{cN::`` stays literal text."""
    root: list[str | Cloze] = []
    stack: list[tuple[int, list[str | Cloze], str]] = []  # (number, children, opening)
    current = root
    buffer: list[str] = []
    i = 0

    def flush() -> None:
        if buffer:
            current.append("".join(buffer))
            buffer.clear()

    while i < len(text):
        opening = _OPEN.match(text, i)
        if opening:
            flush()
            stack.append((int(opening.group(1)), current, opening.group(0)))
            current = []
            i = opening.end()
            continue
        if stack and text.startswith("::", i):
            end = text.find("}}", i + 2)
            if end != -1 and "{{" not in text[i + 2:end]:
                flush()
                number, parent, _ = stack.pop()
                parent.append(Cloze(number, current, text[i + 2:end]))
                current = parent
                i = end + 2
                continue
        if stack and text.startswith("}}", i):
            flush()
            number, parent, _ = stack.pop()
            parent.append(Cloze(number, current))
            current = parent
            i += 2
            continue
        buffer.append(text[i])
        i += 1
    flush()
    while stack:  # unclosed: the opening was text after all
        number, parent, opening_text = stack.pop()
        parent.append(opening_text)
        parent.extend(current)
        current = parent
    return root


def cloze_numbers(text: str) -> list[int]:
    found: set[int] = set()

    def walk(nodes: list[str | Cloze]) -> None:
        for node in nodes:
            if isinstance(node, Cloze):
                found.add(node.number)
                walk(node.children)

    walk(parse_cloze(text))
    return sorted(found)


def _reveal(nodes: list[str | Cloze]) -> str:
    return "".join(n if isinstance(n, str) else _reveal(n.children) for n in nodes)


def cloze_card(text: str, number: int) -> tuple[str, list[str], list[str]]:
    """The prompt with deletion ``number`` hidden (the others shown), its answers, its hints."""
    answers: list[str] = []
    hints: list[str] = []

    def render(nodes: list[str | Cloze]) -> str:
        out = []
        for node in nodes:
            if isinstance(node, str):
                out.append(node)
            elif node.number == number:
                answers.append(_reveal(node.children))
                if node.hint:
                    hints.append(node.hint)
                out.append(f"[{node.hint}]" if node.hint else "[...]")
            else:
                out.append(render(node.children))
        return "".join(out)

    return render(parse_cloze(text)), answers, hints


def cloze_revealed(text: str) -> str:
    """The cloze text with every deletion shown."""
    return _reveal(parse_cloze(text))

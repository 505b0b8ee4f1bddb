"""Turn an Anki package (.apkg) into a studyapp deck of text cards.

An .apkg is a zip holding the collection as SQLite (``collection.anki21`` or
``collection.anki2``, schema 11: note types as JSON in ``col.models``). It is
read with the standard library only. Basic notes give one card, Basic and
reversed notes two (one per template whose front is not empty), Cloze notes
one card per deletion number. Field HTML is reduced to plain text; images and
sounds are dropped and counted. Every text is written with ``{``/``}``
doubled, because studyapp reads single braces as formulas.
"""

from __future__ import annotations

import json
import re
import sqlite3
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import yaml

MAX_COLLECTION_BYTES = 200 * 1024 * 1024
"""A collection bigger than this, once unzipped, is refused (zip bombs)."""

COLLECTION_NAMES = ("collection.anki21", "collection.anki2")


class AnkiPackageError(ValueError):
    """The file is not an Anki package this reader understands."""


# ------------------------------------------------------------------ HTML to text

_BLOCK_TAGS = frozenset({"br", "div", "p", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6",
                         "ul", "ol", "table", "hr", "blockquote", "pre"})
_SKIP_TAGS = frozenset({"script", "style", "head", "title"})
_MEDIA_TAGS = frozenset({"img", "audio", "video", "object", "embed", "source"})
_SOUND = re.compile(r"\[sound:[^\]]*\]")


class _TextOnly(HTMLParser):
    """Collects the text of an HTML fragment; counts the media it drops."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.media = 0
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skipping += 1
        elif tag in _MEDIA_TAGS and tag != "source":
            self.media += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in _SKIP_TAGS:
            self._skipping -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def html_to_text(fragment: str) -> tuple[str, int]:
    """Plain text of an Anki field and how many media references it dropped."""
    sounds = len(_SOUND.findall(fragment))
    parser = _TextOnly()
    parser.feed(_SOUND.sub(" ", fragment))
    parser.close()
    text = "".join(parser.parts).replace("\xa0", " ")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return "\n".join(line for line in lines if line).strip(), parser.media + sounds


# ------------------------------------------------------------------ templates

_FIELD_REF = re.compile(r"{{\s*([#^/]?)\s*([^{}]+?)\s*}}")
_SPECIAL = frozenset({"FrontSide", "Tags", "Deck", "Subdeck", "Card", "CardFlag", "Type"})


def _field_name(ref: str) -> tuple[str, str]:
    """``filter:Field`` → (filter, Field); plain ``Field`` → ("", Field)."""
    *filters, name = ref.split(":")
    return (filters[0].strip() if filters else ""), name.strip()


def template_fields(template: str) -> set[str]:
    """Names of the note fields a card template shows."""
    names = set()
    for _, ref in _FIELD_REF.findall(template):
        _, name = _field_name(ref)
        if name not in _SPECIAL:
            names.add(name)
    return names


def render_template(template: str, values: Mapping[str, str]) -> str:
    """Anki's mustache subset: {{Field}}, {{filter:Field}}, {{#F}}…{{/F}}, {{^F}}…{{/F}}.

    ``type:`` boxes and ``FrontSide`` render empty: the prompt is the front text.
    """
    def section(match: re.Match[str]) -> str:
        sign, name, body = match.group(1), match.group(2).strip(), match.group(3)
        present = bool(values.get(name, "").strip())
        return body if present == (sign == "#") else ""

    sections = re.compile(r"{{\s*([#^])\s*([^{}]+?)\s*}}(.*?){{\s*/\s*\2\s*}}", re.DOTALL)
    text = template
    for _ in range(10):  # nested sections: resolve from the inside out, a few levels
        new = sections.sub(section, text)
        if new == text:
            break
        text = new

    def field_value(match: re.Match[str]) -> str:
        if match.group(1):
            return ""
        filter_name, name = _field_name(match.group(2))
        if filter_name in ("type", "tts") or name in _SPECIAL:
            return ""
        return values.get(name, "")

    return _FIELD_REF.sub(field_value, text)


_CLOZE = re.compile(r"{{c(\d+)::(.*?)(?:::(.*?))?}}", re.DOTALL)


def cloze_numbers(text: str) -> list[int]:
    return sorted({int(n) for n, _, _ in _CLOZE.findall(text)})


def cloze_card(text: str, number: int) -> tuple[str, list[str]]:
    """The prompt with deletion ``number`` hidden (others shown) and its answers."""
    answers: list[str] = []

    def replace(match: re.Match[str]) -> str:
        if int(match.group(1)) != number:
            return match.group(2)
        answers.append(match.group(2))
        hint = match.group(3)
        return f"[{hint}]" if hint else "[...]"

    return _CLOZE.sub(replace, text), answers


# ------------------------------------------------------------------ reading


@dataclass(frozen=True)
class NoteType:
    id: int
    name: str
    cloze: bool
    fields: tuple[str, ...]
    templates: tuple[tuple[str, str, str], ...]  # (name, front, back)


@dataclass(frozen=True)
class AnkiNote:
    id: int
    guid: str
    model_id: int
    fields: tuple[str, ...]
    tags: tuple[str, ...]
    deck: str


@dataclass
class Conversion:
    """What ``deck from-anki`` made of a package."""

    deck: dict[str, Any]
    notes: int = 0
    cards: int = 0
    media_skipped: int = 0
    skipped_notes: Counter[str] = field(default_factory=Counter)


def _collection_bytes(archive: zipfile.ZipFile) -> bytes:
    names = set(archive.namelist())
    if "collection.anki21b" in names and "collection.anki21" not in names:
        # its collection.anki2, if any, only holds a note asking to update Anki
        raise AnkiPackageError(
            "this package uses Anki's newer compressed format (collection.anki21b); "
            "export it again from Anki with 'Support older Anki versions' ticked")
    for name in COLLECTION_NAMES:
        if name in names:
            info = archive.getinfo(name)
            if info.file_size > MAX_COLLECTION_BYTES:
                raise AnkiPackageError(
                    f"the collection is {info.file_size / 1e6:.0f} MB unpacked; "
                    f"the limit is {MAX_COLLECTION_BYTES / 1e6:.0f} MB")
            return archive.read(name)
    raise AnkiPackageError("no collection.anki2 or collection.anki21 inside: not an Anki package")


def read_package(path: Path) -> tuple[list[NoteType], list[AnkiNote]]:
    """Note types and notes of an .apkg file."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = _collection_bytes(archive)
    except zipfile.BadZipFile:
        raise AnkiPackageError(f"{path} is not a zip file, so not an Anki package") from None
    with tempfile.TemporaryDirectory(prefix="studyapp-apkg-") as folder:
        db_path = Path(folder) / "collection.sqlite"
        db_path.write_bytes(data)
        try:
            connection = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
            try:
                return _read_collection(connection)
            finally:
                connection.close()
        except sqlite3.DatabaseError as exc:
            raise AnkiPackageError(f"the collection inside {path} cannot be read: {exc}") from None


def _read_collection(connection: sqlite3.Connection) -> tuple[list[NoteType], list[AnkiNote]]:
    row = connection.execute("SELECT models, decks FROM col").fetchone()
    if row is None:
        raise AnkiPackageError("the collection has no header row")
    try:
        models_json = json.loads(row[0] or "{}")
        decks_json = json.loads(row[1] or "{}")
    except json.JSONDecodeError:
        raise AnkiPackageError("the collection's note types are not valid JSON") from None
    if not models_json:
        raise AnkiPackageError("the collection keeps its note types in the newer schema; "
                               "export it again with 'Support older Anki versions' ticked")
    note_types = []
    for raw in models_json.values():
        fields = tuple(f["name"] for f in sorted(raw.get("flds", []), key=lambda f: f["ord"]))
        templates = tuple((t.get("name", ""), t.get("qfmt", ""), t.get("afmt", ""))
                          for t in sorted(raw.get("tmpls", []), key=lambda t: t["ord"]))
        note_types.append(NoteType(int(raw["id"]), str(raw.get("name", "")),
                                   int(raw.get("type", 0)) == 1, fields, templates))
    deck_names = {int(k): str(v.get("name", "")) for k, v in decks_json.items()}
    note_decks: dict[int, str] = {}
    for nid, did in connection.execute("SELECT nid, did FROM cards ORDER BY ord DESC"):
        note_decks[int(nid)] = deck_names.get(int(did), "")
    notes = []
    for nid, guid, mid, flds, tags in connection.execute(
            "SELECT id, guid, mid, flds, tags FROM notes ORDER BY id"):
        notes.append(AnkiNote(int(nid), str(guid), int(mid), tuple(str(flds).split("\x1f")),
                              tuple(str(tags).split()), note_decks.get(int(nid), "")))
    return note_types, notes


# ------------------------------------------------------------------ converting


def _yaml_text(text: str) -> str:
    """Deck text is a template: single braces would be formulas."""
    return text.replace("{", "{{").replace("}", "}}")


_ALTERNATIVES = re.compile(r"\s*(?:;|\||\s/\s|\n)\s*")
_PARENS = re.compile(r"\s*\([^()]*\)")


def accepted_answers(answer: str) -> list[str]:
    """More ways to say ``answer``: its alternatives (a; b, a / b) and without asides."""
    variants: list[str] = []
    for candidate in [*_ALTERNATIVES.split(answer), _PARENS.sub("", answer)]:
        candidate = candidate.strip()
        if candidate and candidate != answer and candidate not in variants:
            variants.append(candidate)
    return variants


def slug(text: str, fallback: str = "anki-deck") -> str:
    """An id the deck schema accepts, from any deck name."""
    words = re.sub(r"[^A-Za-z0-9]+", "-", text.lower()).strip("-")
    return words[:80] or fallback


class _Converter:
    def __init__(self, conversion: Conversion) -> None:
        self.conversion = conversion

    def text(self, fragment: str) -> str:
        return html_to_text(fragment)[0]

    def card(self, card_id: str, prompt: str, answer: str, explanation: str,
             tags: Iterable[str]) -> dict[str, Any] | None:
        if not prompt or not answer:
            return None
        card: dict[str, Any] = {"id": card_id, "type": "text", "prompt": _yaml_text(prompt),
                                "answer": _yaml_text(answer)}
        accept = accepted_answers(answer)
        if accept:
            card["accept"] = [_yaml_text(a) for a in accept]
        if explanation and explanation != answer:
            card["explanation"] = _yaml_text(explanation)
        del tags  # kept in the note, not in the deck schema
        return card

    def standard(self, note: AnkiNote, model: NoteType) -> list[dict[str, Any]]:
        values = dict(zip(model.fields, note.fields, strict=False))
        cards = []
        for number, (_, front, back) in enumerate(model.templates, 1):
            prompt = self.text(render_template(front, values))
            answer_fields = [f for f in model.fields
                             if f in template_fields(back) - template_fields(front)]
            answer = "\n".join(t for t in (self.text(values.get(f, "")) for f in answer_fields)
                               if t)
            full_back = self.text(render_template(back, values))
            made = self.card(f"note-{note.id}-{number}", prompt, answer, full_back, note.tags)
            if made is not None:
                cards.append(made)
        return cards

    def cloze(self, note: AnkiNote, model: NoteType) -> list[dict[str, Any]]:
        values = dict(zip(model.fields, note.fields, strict=False))
        front = model.templates[0][1] if model.templates else "{{cloze:Text}}"
        cloze_field = next((_field_name(ref)[1] for _, ref in _FIELD_REF.findall(front)
                            if _field_name(ref)[0] == "cloze"), model.fields[0])
        source = values.get(cloze_field, "")
        extra = "\n".join(self.text(values[f]) for f in model.fields
                          if f != cloze_field and values.get(f, "").strip())
        cards = []
        for number in cloze_numbers(source):
            prompt_html, answers = cloze_card(source, number)
            answer = ", ".join(self.text(a) for a in answers)
            whole = self.text(_CLOZE.sub(lambda m: m.group(2), source))
            explanation = "\n".join(t for t in (whole, extra) if t)
            made = self.card(f"note-{note.id}-c{number}", self.text(prompt_html), answer,
                             explanation, note.tags)
            if made is not None:
                cards.append(made)
        return cards


def convert_package(path: Path, *, language: str, deck_id: str | None = None,
                    post: str = "intro") -> Conversion:
    """A studyapp deck (as a YAML-ready mapping) from the notes of an .apkg."""
    note_types, notes = read_package(path)
    models = {m.id: m for m in note_types}
    deck_names = Counter(n.deck for n in notes if n.deck)
    name = deck_names.most_common(1)[0][0] if deck_names else path.stem
    title = name.split("::")[-1] or path.stem
    deck: dict[str, Any] = {"deck": deck_id or slug(title), "title": _yaml_text(title),
                            "language": language, "post": post}
    conversion = Conversion(deck=deck)
    converter = _Converter(conversion)
    cards: list[dict[str, Any]] = []
    for note in notes:
        model = models.get(note.model_id)
        if model is None:
            conversion.skipped_notes["unknown note type"] += 1
            continue
        made = converter.cloze(note, model) if model.cloze else converter.standard(note, model)
        conversion.media_skipped += sum(html_to_text(f)[1] for f in note.fields)
        if not made:
            conversion.skipped_notes["nothing to ask or no answer"] += 1
            continue
        conversion.notes += 1
        cards.extend(made)
    if not cards:
        raise AnkiPackageError("no Basic, reversed or Cloze note with a question and an answer")
    deck["cards"] = cards
    conversion.cards = len(cards)
    return conversion


def deck_yaml(deck: Mapping[str, Any]) -> str:
    """The deck as YAML for an instructor to edit (keys in the documented order)."""
    return yaml.safe_dump(dict(deck), allow_unicode=True, sort_keys=False, width=100)

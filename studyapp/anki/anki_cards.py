"""Notes into studyapp cards, field by role.

Each field of a note type has a role. By default the roles come from the
card templates: the prompt is what the front shows; the answer is what the
back shows beyond the front (Basic: Back; type-in: the typed field; Cloze:
the deleted text); every other field the back shows is the explanation, or
the source when its name says so (Source, Reference, URL...). ``--map``
sets the roles of one note type by hand (``parse_field_map``). Notes that
studyapp exported come back as the cards they were.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studyapp.anki.anki_collection import (
    AnkiCollection,
    AnkiNote,
    AnkiPackageError,
    NoteType,
)
from studyapp.anki.anki_text import (
    AUDIO_WORD,
    cloze_card,
    cloze_numbers,
    cloze_revealed,
    render_template,
    template_fields,
    template_refs,
    to_text,
)
from studyapp.decks.media import IMAGE_MARK
from studyapp.decks.problems import ProblemMessage
from studyapp.i18n import t

ROLES = ("prompt", "answer", "explanation", "source", "ignore")

RECALL_CHARS = 60
RECALL_WORDS = 8
"""An answer longer than this (or on several lines) is recalled and self-rated, not typed."""

_SOURCE_NAME = re.compile(
    r"^(sources?|refs?|references?|citations?|cite|url|links?|credits?|fuentes?|referencias?)$",
    re.IGNORECASE)
_FORMULA_NAME = re.compile(r"(definition|formula|equation|ratio|expression|definici[oó]n|"
                           r"f[oó]rmula|ecuaci[oó]n)", re.IGNORECASE)
_LATEX = re.compile(r"\\\(|\\\[|\[\$\$?\]|\[latex\]|\$\$", re.IGNORECASE)
_MATH = re.compile(r"\\\(.+?\\\)|\\\[.+?\\\]|\$\$.+?\$\$|(?<![\w$])\$[^$\s][^$]*?\$(?![\w$])|"
                   r"\[\$\$?\]|\[latex\]", re.IGNORECASE | re.DOTALL)
"""Math Anki renders (MathJax ``\\(…\\)``, ``\\[…\\]``, ``$$…$$``, ``$…$`` in add-ons'
notes; ``[$]``, ``[latex]``): shown as written, with a note saying so."""
_URL_ONLY = re.compile(r"^(\s*(https?://\S+|www\.\S+)\s*[·,;|]?)+$")


# ------------------------------------------------------------------ field maps


def parse_field_map(specs: Iterable[str]) -> dict[str, dict[str, str]]:
    """``["Ridge:Front=prompt,Definition=answer"]`` → {note type: {field: role}}."""
    maps: dict[str, dict[str, str]] = {}
    for spec in specs:
        note_type, sep, pairs = spec.partition(":")
        if not sep or not note_type.strip() or not pairs.strip():
            raise AnkiPackageError(
                f"--map {spec!r}: write it as 'Note type:Field=role,Field=role' "
                f"(roles: {', '.join(ROLES)})")
        roles: dict[str, str] = {}
        for pair in pairs.split(","):
            name, eq, role = pair.partition("=")
            role = role.strip().lower()
            if not eq or not name.strip():
                raise AnkiPackageError(f"--map {spec!r}: {pair.strip()!r} is not Field=role")
            if role not in ROLES:
                raise AnkiPackageError(f"--map {spec!r}: unknown role {role!r} "
                                       f"(roles: {', '.join(ROLES)})")
            roles[name.strip()] = role
        if "prompt" not in roles.values() or "answer" not in roles.values():
            raise AnkiPackageError(f"--map {spec!r}: map at least one field to prompt and one "
                                   "to answer")
        maps[note_type.strip()] = roles
    return maps


def resolve_maps(maps: Mapping[str, Mapping[str, str]],
                  note_types: Iterable[NoteType]) -> dict[int, dict[str, str]]:
    """Note type id → roles, matching the names given exactly, else as a unique prefix."""
    types = list(note_types)
    resolved: dict[int, dict[str, str]] = {}
    for given, roles in maps.items():
        exact = [m for m in types if m.name.casefold() == given.casefold()]
        found = exact or [m for m in types if m.name.casefold().startswith(given.casefold())]
        if len(found) != 1:
            names = ", ".join(sorted(repr(m.name) for m in types))
            what = "matches several note types" if found else "matches no note type"
            raise AnkiPackageError(f"--map {given!r} {what}; the package has {names}")
        model = found[0]
        unknown = [name for name in roles if name not in model.fields]
        if unknown:
            raise AnkiPackageError(
                f"--map {given!r}: no field {unknown[0]!r} in note type {model.name!r} "
                f"(fields: {', '.join(model.fields)})")
        resolved[model.id] = dict(roles)
    return resolved


# ------------------------------------------------------------------ converting


def yaml_text(text: str) -> str:
    """Deck text is a template: single braces would be formulas."""
    return text.replace("{", "{{").replace("}", "}}")


def is_long(answer: str) -> bool:
    """Prose, a list or LaTeX: recalled and self-rated rather than typed."""
    return ("\n" in answer or len(answer) > RECALL_CHARS or len(answer.split()) > RECALL_WORDS
            or bool(_LATEX.search(answer)))


def accepted_answers(answer: str, field: str = "", prompt: str = "") -> list[str]:
    """Other ways to type ``answer``: only names of one thing in one short ``a / b``.

    "InfiniBand / IB" names one fabric twice (IB is its initials), so either
    is right. "NVLink / NVSwitch" names two things, and the answer is both:
    "NVLink" alone is not it. A slash in a definition or formula (field named
    Definition, Formula...; a prompt asking for a ratio) is a division, not a
    choice: "FLOPS / bandwidth" accepts only itself.
    """
    if is_long(answer) or " / " not in answer:
        return []
    if _FORMULA_NAME.search(field) or re.search(r"\b(ratio|per|divided|formula|define|"
                                                r"definition|raz[oó]n|cociente)\b",
                                                prompt, re.IGNORECASE):
        return []
    pieces = [p.strip() for p in answer.split(" / ")]
    if len(pieces) > 4 or any(not p or len(p.split()) > 3 for p in pieces):
        return []
    if not same_thing(pieces):
        return []
    return list(dict.fromkeys(p for p in pieces if p != answer))


def initials(name: str) -> set[str]:
    """What ``name`` is abbreviated as: its capitals (InfiniBand → IB) and the first
    letters of its words (high bandwidth memory → HBM), upper case."""
    words = re.findall(r"[^\W_]+", name)
    found = {"".join(w[0] for w in words).upper()}
    capitals = "".join(c for c in name if c.isupper() or c.isdigit())
    if len(capitals) >= 2:
        found.add(capitals.upper())
    return {f for f in found if len(f) >= 2}


def same_thing(pieces: list[str]) -> bool:
    """Every piece but one is an abbreviation of another piece: all name one thing
    (not a name and a longer one it begins: HBM3 / HBM3e are two memories)."""
    short = [p for p in pieces if re.fullmatch(r"[A-Z][A-Z0-9]{1,7}", p)
             and any(p in initials(o) and not o.upper().startswith(p)  # HBM3 / HBM3e: two
                     for o in pieces if o != p)]
    return len(pieces) >= 2 and len(pieces) - len(short) <= 1 and bool(short)


def slug(text: str, fallback: str = "anki-deck") -> str:
    """An id the deck schema accepts, from any deck name."""
    words = re.sub(r"[^A-Za-z0-9]+", "-", text.lower()).strip("-")
    return words[:80] or fallback


@dataclass
class MadeCard:
    """One studyapp card made from a note, before it is written as YAML."""

    card: dict[str, Any]
    deck: str  # the Anki deck the card was in
    images: list[str] = field(default_factory=list)
    tags: tuple[str, ...] = ()


@dataclass
class Conversion:
    """What ``deck from-anki`` made of a package."""

    decks: list[dict[str, Any]] = field(default_factory=list)
    notes: int = 0
    cards: int = 0
    media_skipped: int = 0
    images: dict[str, list[str]] = field(default_factory=dict)
    """Deck id → the image files its cards name."""
    sounds: dict[str, list[str]] = field(default_factory=dict)
    """Deck id → the audio files its cards name (``[audio: NAME]``)."""
    skipped_notes: Counter[str] = field(default_factory=Counter)
    unsupported: Counter[str] = field(default_factory=Counter)
    """Note type name → notes of it left out (Image Occlusion, types without an answer)."""
    mapping: dict[str, dict[str, str]] = field(default_factory=dict)
    """Note type name → field → role, as used."""
    media: dict[str, str] = field(default_factory=dict)
    media_compressed: bool = False
    package: Path = Path()
    card_decks: dict[str, str] = field(default_factory=dict)
    """Card id → the id of the studyapp deck it went to."""
    card_posts: dict[str, str] = field(default_factory=dict)
    anki_decks: dict[str, str] = field(default_factory=dict)
    """Studyapp deck id → the Anki deck it was made from (its preset becomes its options)."""
    mapped: frozenset[int] = frozenset()
    """Note type ids whose roles came from ``--map``."""
    collection: AnkiCollection | None = None
    returning: dict[int, tuple[str, str, str]] = field(default_factory=dict)
    """Anki note id → (deck id, card id, post) of a studyapp card already installed here that
    the note was exported from: its history goes back to that card, no copy is made."""
    refused_images: list[tuple[str, ProblemMessage]] = field(default_factory=list)
    """Media files ``copy_images`` did not copy, not being raster images: (name, why)."""

    @property
    def deck(self) -> dict[str, Any]:
        """The first (or only) deck."""
        return self.decks[0]


STUDYAPP_KINDS = ("choice", "truefalse", "numeric", "text", "recall")
_TRUE_WORDS = frozenset({"true", "yes", "verdadero", "sí", "si", "cierto"})
_FALSE_WORDS = frozenset({"false", "no", "falso"})
_NUMERIC = re.compile(r"^(?P<n>[0-9][0-9,.]*(?:e[-+]?\d+)?)\s*(?P<unit>[^\s(±]+)?"
                      r"(?:\s*\(±(?P<tol>[0-9.]+)\s*(?P<pct>%|[^\s)]*)\))?$", re.IGNORECASE)


def _siblings(note: AnkiNote, cards: list[MadeCard]) -> list[MadeCard]:
    """The cards of one note (both ways of a reversed note, a cloze's deletions) share a
    fact, as Anki's siblings share a note: burying and load balancing see them as one."""
    if len(cards) > 1:
        for made in cards:
            made.card["fact"] = f"note-{note.id}"
    return cards


class NoteConverter:
    def __init__(self, conversion: Conversion, roles: Mapping[int, Mapping[str, str]],
                 language: str = "en") -> None:

        self.conversion = conversion
        self.roles = roles
        self.source_label = t("anki.from.source", language)
        self.math_note = t("anki.from.math", language)

    def text(self, fragment: str, images: list[str]) -> str:
        """The fragment as text; the media it names (images, then sounds) go to ``images``."""
        result = to_text(fragment)
        images.extend(result.images)
        images.extend(result.sounds)
        return result.text

    def _explanation(self, explanation: Iterable[str], sources: Iterable[str]) -> str:
        lines = [e for e in explanation if e]
        lines += [f"{self.source_label} {s}" for s in sources if s]
        return "\n".join(dict.fromkeys(lines))

    def card(self, card_id: str, prompt: str, answer: str, explanation: str,
             answer_field: str = "", hints: Iterable[str] = (),
             typed: bool = True) -> dict[str, Any] | None:
        """A typed card when the note type asks to type (``typed``) a short answer, else a
        self-graded recall card: the answer shown, the learner rates how well it came."""
        if not prompt or not answer:
            return None
        # an image, a sound or math is shown as it is, never typed as its name or source
        shown_as_is = bool(IMAGE_MARK.search(answer)) or f"[{AUDIO_WORD} " in answer
        math = bool(_MATH.search(answer))
        long = is_long(answer) or not typed or shown_as_is or math
        if math:
            explanation = "\n".join(e for e in (explanation, self.math_note) if e)
        card: dict[str, Any] = {"id": card_id, "type": "recall" if long else "text",
                                "prompt": yaml_text(prompt), "answer": yaml_text(answer)}
        if not long:
            accept = accepted_answers(answer, answer_field, prompt)
            for hint in hints:  # a hint listing alternatives, the answer among them
                pieces = [p.strip() for p in hint.split(" / ")]
                if len(pieces) > 1 and answer in pieces:
                    accept += [p for p in pieces if p and p != answer]
            if accept:
                card["accept"] = [yaml_text(a) for a in dict.fromkeys(accept)]
        if explanation and explanation != answer:
            card["explanation"] = yaml_text(explanation)
        return card

    # -- by role -------------------------------------------------------------------

    def default_roles(self, model: NoteType, front: str, back: str) -> dict[str, str]:
        """Roles of the fields for one template, read from what it shows."""
        shown_front = [n for f, n in template_refs(front) if f != "type"]
        typed = [n for f, n in template_refs(front) if f == "type"]
        back_only = [n for _, n in template_refs(back) if n not in shown_front]
        roles = {name: "ignore" for name in model.fields}
        for name in shown_front:
            if name in roles:
                roles[name] = "prompt"
        answer = next((n for n in typed + back_only if n in roles), None)
        for name in dict.fromkeys(back_only):
            if name not in roles or name == answer:
                continue
            roles[name] = "source" if _SOURCE_NAME.match(name) else "explanation"
        if answer is not None:
            roles[answer] = "answer"
        return roles

    def standard(self, note: AnkiNote, model: NoteType) -> list[MadeCard]:
        values = dict(zip(model.fields, note.fields, strict=False))
        made_cards = []
        mapped = self.roles.get(model.id)
        templates = model.templates[:1] if mapped else model.templates
        for number, (_, front, back) in enumerate(templates, 1):
            images: list[str] = []
            roles = dict(mapped) if mapped else self.default_roles(model, front, back)
            self.conversion.mapping.setdefault(
                model.name if len(model.templates) == 1 or mapped
                else f"{model.name} / card {number}", roles)
            if mapped:
                prompt = "\n".join(t for t in (self.text(values.get(f, ""), images)
                                               for f, r in roles.items() if r == "prompt") if t)
            else:
                prompt = self.text(render_template(front, values), images)
            answer_fields = [f for f, r in roles.items() if r == "answer"]
            answer = "\n".join(t for t in (self.text(values.get(f, ""), images)
                                           for f in answer_fields) if t)
            if self._url_only(answer):
                answer = ""
            explanation = self._explanation(
                (self.text(values.get(f, ""), images) for f, r in roles.items()
                 if r == "explanation"),
                (self.text(values.get(f, ""), images) for f, r in roles.items()
                 if r == "source"))
            typed = types_answer(front)
            if not mapped and not typed:  # shown, not typed: the back as Anki renders it
                shown = self.text(render_template(back, values), images)
                answer, explanation = ("" if self._url_only(shown) else shown), ""
            made = self.card(f"note-{note.id}-{number}", prompt, answer, explanation,
                             answer_fields[0] if answer_fields else "", typed=typed)
            if made is not None:
                if 0 < len(note.guid) <= 64:
                    made["anki"] = {"guid": note.guid}
                made_cards.append(MadeCard(made, note.deck_of(number - 1), images, note.tags))
        return _siblings(note, made_cards)

    @staticmethod
    def _url_only(text: str) -> bool:
        return bool(text) and bool(_URL_ONLY.match(text))

    def cloze(self, note: AnkiNote, model: NoteType) -> list[MadeCard]:
        values = dict(zip(model.fields, note.fields, strict=False))
        front = model.templates[0][1] if model.templates else "{{cloze:Text}}"
        back = model.templates[0][2] if model.templates else ""
        cloze_field = next((name for f, name in template_refs(front) if f == "cloze"),
                           model.fields[0])
        roles = {name: "ignore" for name in model.fields}
        roles[cloze_field] = "prompt+answer (cloze)"
        for name in template_fields(back) - template_fields(front):
            if name in roles:
                roles[name] = "source" if _SOURCE_NAME.match(name) else "explanation"
        self.conversion.mapping.setdefault(model.name, roles)
        source = values.get(cloze_field, "")
        cards = []
        for number in cloze_numbers(source):
            images: list[str] = []
            prompt_html, answers, hints = cloze_card(source, number)
            answer = ", ".join(a for a in (self.text(a, images) for a in answers) if a)
            whole = self.text(cloze_revealed(source), images)
            explanation = self._explanation(
                [whole, *(self.text(values.get(f, ""), images) for f, r in roles.items()
                          if r == "explanation")],
                (self.text(values.get(f, ""), images) for f, r in roles.items() if r == "source"))
            made = self.card(f"note-{note.id}-c{number}", self.text(prompt_html, images), answer,
                             explanation, cloze_field, hints, typed=types_answer(front))
            if made is not None:
                if 0 < len(note.guid) <= 64:  # one note in Anki: it goes back as one note
                    made["anki"] = {"guid": note.guid, "cloze": to_text(source).text}
                cards.append(MadeCard(made, note.deck_of(number - 1), images, note.tags))
        return _siblings(note, cards)

    # -- studyapp's own export -------------------------------------------------------

    def studyapp(self, note: AnkiNote, model: NoteType) -> list[MadeCard]:
        """A note studyapp exported: one card, or one per draw of a generated card."""
        name = model.name.removeprefix("studyapp ").strip()
        values = dict(zip(model.fields, note.fields, strict=False))
        images: list[str] = []
        tag_deck = next((t.split("::", 2)[2] for t in note.tags
                         if t.startswith("studyapp::deck::")), "")
        tag_post = next((t.split("::", 2)[2] for t in note.tags
                         if t.startswith("studyapp::post::")), "")
        deck = f"studyapp::{tag_deck}" if tag_deck else note.deck
        if name.startswith("draws"):
            suffixes = [f" {n}" for n in range(1, len(model.templates) + 1)]
            self.conversion.mapping.setdefault(model.name, {
                "Key": "ignore", "Prompt N": "prompt", "Choices N": "choices",
                "Answer N": "answer", "Accepted N": "accept",
                "Explanation N": "explanation", "Source": "ignore (the post's sources)"})
        else:
            suffixes = [""]
            self.conversion.mapping.setdefault(model.name, {
                "Key": "ignore", "Prompt": "prompt", "Answer": "answer",
                **({"Choices": "choices"} if name == "choice" else {}),
                **({"Accepted": "accept"} if name == "text" else {}),
                "Explanation": "explanation", "Source": "ignore (the post's sources)"})
        made = []
        for suffix in suffixes:
            def value(field_name: str, suffix: str = suffix) -> str:
                return self.text(values.get(field_name + suffix, ""), images)

            kind = name
            if suffix:  # a draw: its kind shows in which fields it fills
                kind = "choice" if value("Choices") else "text" if value("Accepted") else ""
            card = self._studyapp_card(kind, value, f"note-{note.id}{suffix.replace(' ', '-')}")
            if card is None:
                continue
            if suffix:
                card["fact"] = f"note-{note.id}"  # the draws of one card stay siblings
            if tag_post:
                card["post"] = tag_post
            made.append(MadeCard(card, deck, images, note.tags))
        return made

    @staticmethod
    def _studyapp_card(kind: str, value: Any, card_id: str) -> dict[str, Any] | None:
        prompt, answer, explanation = value("Prompt"), value("Answer"), value("Explanation")
        if not prompt or not answer:
            return None
        card: dict[str, Any] = {"id": card_id, "type": "recall",
                                "prompt": yaml_text(prompt), "answer": yaml_text(answer)}
        numeric = _NUMERIC.match(answer)
        if kind == "choice":
            choices = [re.sub(r"^\d+\)\s*", "", line) for line in value("Choices").split("\n")]
            picked = re.sub(r"^\d+\)\s*", "", answer)
            if len(choices) >= 2 and picked in choices:
                card = {"id": card_id, "type": "choice", "prompt": card["prompt"],
                        "choices": [yaml_text(c) for c in choices],
                        "answer": choices.index(picked)}
        elif kind in ("truefalse", "") and answer.casefold() in _TRUE_WORDS | _FALSE_WORDS:
            card["type"], card["answer"] = "truefalse", answer.casefold() in _TRUE_WORDS
        elif kind in ("numeric", "") and numeric is not None:
            try:
                parsed = float(numeric.group("n").replace(",", ""))
            except ValueError:
                parsed = None
            if parsed is not None:
                card["type"] = "numeric"
                card["answer"] = int(parsed) if parsed.is_integer() else parsed
                if numeric.group("unit"):
                    card["unit"] = numeric.group("unit")
                if numeric.group("tol"):
                    card["tolerance"] = numeric.group("tol") + (
                        "%" if numeric.group("pct") == "%" else
                        f" {numeric.group('pct')}" if numeric.group("pct") else "")
        elif kind in ("text", "") and not is_long(answer):
            card["type"] = "text"
            accepted = [a.strip() for a in value("Accepted").split(",") if a.strip()]
            if accepted:
                card["accept"] = [yaml_text(a) for a in accepted if a != answer]
        if explanation:
            card["explanation"] = yaml_text(explanation)
        return card


def types_answer(front: str) -> bool:
    """The card template asks to type the answer (``{{type:Field}}``, ``{{type:cloze:Text}}``):
    only then is the card typed and graded; Anki shows every other answer to rate oneself."""
    return any(f == "type" for f, _ in template_refs(front))


def unsupported_reason(model: NoteType) -> str | None:
    """Why notes of this type cannot become cards here (None when they can)."""
    text = " ".join(t for _, f, b in model.templates for t in (f, b))
    if "image-occlusion" in model.name.casefold().replace(" ", "-") \
            or "imageOcclusion" in text or "image-occlusion" in text:
        return "Image Occlusion"
    return None



def returning_card(note: AnkiNote, model: NoteType,
                   installed: Mapping[str, Mapping[str, str]]) -> tuple[str, str, str] | None:
    """(deck id, card id, post) of the installed card a studyapp note was exported from.

    Its first field is its key, ``deck/card`` (`` (es)`` after it for another
    language); the card must still be in that deck.
    """
    if not model.name.startswith("studyapp ") or not note.fields:
        return None
    key = re.sub(r" \([a-z]{2}\)$", "", html.unescape(note.fields[0]).strip())
    deck, _, card = key.partition("/")
    post = installed.get(deck, {}).get(card)
    return (deck, card, post) if post is not None else None

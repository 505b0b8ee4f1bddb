"""Write studyapp decks as an Anki package (.apkg) with genanki.

Anki cannot draw fresh numbers for a template, so every template card (deck
parameters or a generator family) becomes ``instances`` notes, each a
different seeded draw. Note GUIDs and model and deck ids are derived from the
card's stable key, so importing a newer export into Anki updates the notes it
already has instead of adding copies. All text is HTML-escaped: deck text is
untrusted and Anki renders fields as HTML.
"""

from __future__ import annotations

import html
import os
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import genanki

from studyapp.catalog.posts import PostError, load_post
from studyapp.questions.model import Kind

if TYPE_CHECKING:
    from studyapp.decks import CardSpec, Deck
    from studyapp.questions.model import Question

DEFAULT_INSTANCES = 5
"""Fresh draws exported per template card (Anki cannot regenerate them)."""

TAG_PREFIX = "studyapp"

_CSS = """
.card { font-family: sans-serif; font-size: 20px; text-align: left; }
.choices { margin-top: .6em; }
.answer { font-weight: bold; }
.explanation { margin-top: .8em; }
.source { margin-top: .8em; font-size: 14px; color: #666; }
"""

# Field lists are part of the exported schema: changing them changes the model
# id too (see _model_id), so Anki never mixes two layouts under one id.
_FIELDS: dict[Kind, tuple[str, ...]] = {
    Kind.CHOICE: ("Prompt", "Choices", "Answer", "Explanation", "Source"),
    Kind.TRUEFALSE: ("Prompt", "Answer", "Explanation", "Source"),
    Kind.NUMERIC: ("Prompt", "Answer", "Explanation", "Source"),
    Kind.TEXT: ("Prompt", "Answer", "Accepted", "Explanation", "Source"),
    Kind.SCENARIO: ("Prompt", "Steps", "Answer", "Explanation", "Source"),
}
"""A scenario is one note: its steps on the front, each step's answer and the worked
chain on the back."""

_BACK = ('{{FrontSide}}<hr id="answer"><div class="answer">{{Answer}}</div>'
         '{{#Accepted}}<div class="accepted">{{Accepted}}</div>{{/Accepted}}'
         '<div class="explanation">{{Explanation}}</div>'
         '<div class="source">{{Source}}</div>')


def _stable_id(*parts: str) -> int:
    """A positive id in Anki's usual range that depends only on ``parts``."""
    digest = zlib.crc32("\x1f".join(parts).encode("utf-8"))
    return (1 << 30) + digest % (1 << 30)


def _model_id(kind: Kind) -> int:
    return _stable_id("studyapp-model", str(kind), *_FIELDS[kind])


def note_model(kind: Kind) -> genanki.Model:
    """The Anki note type for one question kind (one per kind, ids stable)."""
    fields = _FIELDS[kind]
    front = '<div class="prompt">{{Prompt}}</div>'
    if "Choices" in fields:
        front += '<div class="choices">{{Choices}}</div>'
    if "Steps" in fields:
        front += '<div class="choices">{{Steps}}</div>'
    back = _BACK if "Accepted" in fields else _BACK.replace(
        '{{#Accepted}}<div class="accepted">{{Accepted}}</div>{{/Accepted}}', "")
    return genanki.Model(
        _model_id(kind), f"studyapp {kind}",
        fields=[{"name": name} for name in fields],
        templates=[{"name": "Card 1", "qfmt": front, "afmt": back}],
        css=_CSS,
    )


def note_guid(deck_id: str, card_id: str, instance: int) -> str:
    """Same card, same instance number → same GUID in every export."""
    return str(genanki.guid_for(TAG_PREFIX, deck_id, card_id, instance))


def instance_seed(deck_id: str, card_id: str, instance: int) -> int:
    """The seed of one exported draw: stable, so an export is reproducible."""
    return zlib.crc32(f"{deck_id}/{card_id}/{instance}".encode())


def _html(text: str) -> str:
    return html.escape(text, quote=False).replace("\n", "<br>")


def _tag(text: str) -> str:
    """A tag part: Anki tags split on spaces, and ``::`` nests them."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote."""

    decks: int
    notes: int
    static_cards: int
    template_cards: int
    skipped: int  # cards whose draw failed (a formula the loader's sample missed)


class _Sources:
    """Post title and source links per post, loaded once per export."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self._cache: dict[str, str] = {}

    def back(self, slug: str) -> str:
        if slug not in self._cache:
            try:
                post = load_post(slug, self.lang)
            except PostError:
                self._cache[slug] = _html(slug)
            else:
                links = " · ".join(
                    f'<a href="{html.escape(url)}">{html.escape(url)}</a>'
                    for url in post.sources)
                self._cache[slug] = f"{_html(post.title)}<br>{links}"
        return self._cache[slug]


def _fields(question: Question, source: str) -> list[str]:
    from studyapp.questions.grading import expected_display
    from studyapp.study.text import numbered_choice

    # choices are numbered as every study face numbers them ("2) HBM3e")
    answer = _html(numbered_choice(question, expected_display(question)))
    if question.kind is Kind.NUMERIC and question.tolerance is not None:
        answer += f" ({_html(question.tolerance.describe())})"
    explanation = _html(question.explanation)
    prompt = _html(question.prompt)
    if question.kind is Kind.SCENARIO:
        steps = "<br>".join(f"{n}. {_html(p.question.prompt)}"
                            for n, p in enumerate(question.parts, 1))
        answer = "<br>".join(
            f"{n}. {_html(numbered_choice(p.question, expected_display(p.question)))}"
            for n, p in enumerate(question.parts, 1))
        return [prompt, steps, answer, explanation, source]
    if question.kind is Kind.CHOICE:
        choices = "<br>".join(_html(numbered_choice(question, c)) for c in question.choices)
        return [prompt, choices, answer, explanation, source]
    if question.kind is Kind.TEXT:
        accepted = ", ".join(_html(a) for a in question.accept)
        return [prompt, answer, accepted, explanation, source]
    return [prompt, answer, explanation, source]


def _tags(deck: Deck, card: CardSpec, question: Question) -> list[str]:
    tags = [f"{TAG_PREFIX}::post::{_tag(card.post)}", f"{TAG_PREFIX}::deck::{_tag(deck.id)}"]
    family = card.generator or question.family
    if family:
        tags.append(f"{TAG_PREFIX}::family::{_tag(family)}")
    return tags


def select_cards(decks: Iterable[Deck], *, deck_id: str | None = None,
                 post: str | None = None) -> list[tuple[Deck, list[CardSpec]]]:
    """The decks and cards an export covers (one deck, one post, or everything)."""
    chosen: list[tuple[Deck, list[CardSpec]]] = []
    for deck in decks:
        if deck_id is not None and deck.id != deck_id:
            continue
        cards = [c for c in deck.cards if post is None or c.post == post]
        if cards:
            chosen.append((deck, cards))
    return chosen


def build_package(selection: Sequence[tuple[Deck, Sequence[CardSpec]]], lang: str, *,
                  instances: int = DEFAULT_INSTANCES) -> tuple[genanki.Package, ExportSummary]:
    """The genanki package for ``selection``, every note in ``lang``."""
    from studyapp.decks import DeckError, deck_title

    if instances < 1:
        raise ValueError("instances must be at least 1")
    models = {kind: note_model(kind) for kind in Kind}
    sources = _Sources(lang)
    anki_decks = []
    notes = static = templates = skipped = 0
    for deck, cards in selection:
        anki_deck = genanki.Deck(_stable_id("studyapp-deck", deck.id),
                                 f"studyapp::{deck_title(deck, lang)}")
        for card in cards:
            draws = instances if card.is_template else 1
            if card.is_template:
                templates += 1
            else:
                static += 1
            for n in range(draws):
                try:
                    question = card.instantiate(instance_seed(deck.id, card.id, n), lang)
                except (DeckError, LookupError, ValueError, ArithmeticError):
                    skipped += 1
                    continue
                anki_deck.add_note(genanki.Note(
                    model=models[question.kind],
                    fields=_fields(question, sources.back(card.post)),
                    tags=_tags(deck, card, question),
                    guid=note_guid(deck.id, card.id, n),
                ))
                notes += 1
        anki_decks.append(anki_deck)
    package = genanki.Package(anki_decks)
    return package, ExportSummary(len(anki_decks), notes, static, templates, skipped)


def write_apkg(selection: Sequence[tuple[Deck, Sequence[CardSpec]]], target: Path, lang: str,
               *, instances: int = DEFAULT_INSTANCES,
               timestamp: float | None = None) -> ExportSummary:
    """Write the package to ``target`` atomically (a partial file, then a rename).

    ``timestamp`` is the notes' modification time; Anki updates a note on
    import when the incoming one is newer, so a later export wins.
    """
    package, summary = build_package(selection, lang, instances=instances)
    partial = target.with_name(f".{target.name}.partial")
    try:
        package.write_to_file(str(partial), timestamp=timestamp)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return summary

"""Write studyapp decks as an Anki package (.apkg) with genanki.

Anki cannot draw fresh numbers for a template, so every template card (deck
parameters or a generator family) becomes one note holding ``instances``
seeded draws, one card template per draw: the draws of one card are
siblings, and Anki buries them for the day once one is answered. A draw
that repeats an earlier one is left empty (Anki makes no card for it).

Every note's first field is its key (deck, card and language), so no two
notes share a first field and Anki flags no duplicates. Note GUIDs and deck
ids are derived from that key: importing a newer export updates the notes
already there instead of adding copies, and an export in another language
has its own notes and decks instead of overwriting these. Every note is
tagged with the export it came from (``studyapp::export::<stamp>``), so the
notes a newer export no longer has (a smaller ``--instances``, a disabled
deck) are found in Anki with ``tag:studyapp::* -tag:studyapp::export::<stamp>``.
All text is HTML-escaped: deck text is untrusted and Anki renders fields as
HTML. A card's own tags go along as Anki tags, an image it names
(``[image: h100.png]``) as an ``<img>`` with the file from the deck's media
folder, and an explanation that only repeats the answer is left empty.
"""

from __future__ import annotations

import html
import sqlite3
import time
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import genanki

from studyapp.anki.anki_presets import anki_preset, export_options
from studyapp.anki.apkg_file import write_package
from studyapp.anki.apkg_notes import (
    MAX_SLOTS,
    SLOT_FIELDS,
    SharedNotes,
    anki_ordinal,
    cards_model,
    cloze_cards,
    cloze_ordinal,
    shared_guids,
    slot_templates,
)
from studyapp.anki.apkg_progress import Progress as Progress  # for the export command
from studyapp.anki.apkg_progress import write_progress
from studyapp.catalog.errors import UnknownIdError
from studyapp.catalog.posts import PostError, load_post
from studyapp.decks.media import IMAGE_MARK, media_folder
from studyapp.files import replacing
from studyapp.questions.model import Kind
from studyapp.srs.deck_options import PROFILE_RULES, DeckRules
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.text import explains

if TYPE_CHECKING:
    from studyapp.decks import CardSpec, Deck
    from studyapp.questions.model import Question

DEFAULT_INSTANCES = 5
"""Fresh draws exported per template card (Anki cannot regenerate them)."""

MAX_DRAWS = 10
"""Draw slots of the generated-card note type: one note type for every ``--instances``, so
a later export with fewer draws updates the same notes (the emptied draws are Anki's
"Empty Cards")."""

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
    Kind.CHOICE: ("Key", "Prompt", "Choices", "Answer", "Explanation", "Source"),
    Kind.TRUEFALSE: ("Key", "Prompt", "Answer", "Explanation", "Source"),
    Kind.NUMERIC: ("Key", "Prompt", "Answer", "Explanation", "Source"),
    Kind.TEXT: ("Key", "Prompt", "Answer", "Accepted", "Explanation", "Source"),
    Kind.RECALL: ("Key", "Prompt", "Answer", "Explanation", "Source"),
    Kind.SCENARIO: ("Key", "Prompt", "Steps", "Answer", "Explanation", "Source"),
}
"""A scenario is one note: its steps on the front, each step's answer and the worked
chain on the back."""
_DRAW_FIELDS = SLOT_FIELDS  # each draw's fields in a generated card's note (``Prompt 1``...)

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
        css=_CSS, sort_field_index=1,
    )


def draws_model(draws: int = MAX_DRAWS) -> genanki.Model:
    """The note type of a generated card: ``draws`` sets of fields, one card template each."""
    fields = ["Key", *(f"{name} {n}" for n in range(1, draws + 1) for name in _DRAW_FIELDS),
              "Source"]
    templates = slot_templates(draws, "Draw")
    return genanki.Model(
        _stable_id("studyapp-draws", *fields), "studyapp draws",
        fields=[{"name": name} for name in fields], templates=templates, css=_CSS,
        sort_field_index=1,
    )


def note_key(deck_id: str, card_id: str, lang: str) -> str:
    """A note's first field: unique per deck, card and language."""
    return f"{deck_id}/{card_id}" + ("" if lang == "en" else f" ({lang})")


def note_guid(deck_id: str, card_id: str, instance: int, lang: str = "en") -> str:
    """Same card, same instance number, same language → same GUID in every export.

    English keeps the GUIDs of earlier exports; another language has its own.
    """
    if lang == "en":
        return str(genanki.guid_for(TAG_PREFIX, deck_id, card_id, instance))
    return str(genanki.guid_for(TAG_PREFIX, lang, deck_id, card_id, instance))


def draws_guid(deck_id: str, card_id: str, lang: str = "en") -> str:
    """The GUID of a generated card's note (all its draws)."""
    return str(genanki.guid_for(TAG_PREFIX, "draws", lang, deck_id, card_id))


def export_stamp(timestamp: float) -> str:
    """The tag part naming one export: its UTC time to the second."""

    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y%m%dT%H%M%S")


def instance_seed(deck_id: str, card_id: str, instance: int) -> int:
    """The seed of one exported draw: stable, so an export is reproducible."""
    return zlib.crc32(f"{deck_id}/{card_id}/{instance}".encode())


def _html(text: str, images: frozenset[str] = frozenset()) -> str:
    """Field HTML for deck text; ``[image: NAME]`` becomes ``<img>`` when NAME is in
    ``images`` (the files that go in the package), every other character is escaped."""
    parts = []
    last = 0
    for mark in IMAGE_MARK.finditer(text):
        name = mark.group(1).strip()
        if name not in images:
            continue
        parts.append(html.escape(text[last:mark.start()], quote=False))
        parts.append(f'<img src="{html.escape(name, quote=True)}">')
        last = mark.end()
    parts.append(html.escape(text[last:], quote=False))
    return "".join(parts).replace("\n", "<br>")


def _tag(text: str) -> str:
    """A tag part: Anki tags split on spaces, and ``::`` nests them."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def _user_tag(tag: str) -> str:
    """A deck card's own tag as an Anki tag, its ``::`` levels kept."""
    return "::".join(_tag(part) for part in tag.split("::") if part)


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote."""

    decks: int
    notes: int
    static_cards: int
    template_cards: int
    skipped: int  # draws that failed (a formula the loader's sample missed)
    stamp: str = ""  # the export's tag: studyapp::export::<stamp>
    repeated: int = 0  # draws left out because an earlier draw of the card was the same
    presets: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Anki deck id → the preset (deck options) written for it."""
    placed: dict[str, list[tuple[int, str, str]]] = field(default_factory=dict)
    """Note guid → (card ordinal, deck id, card key) of the studyapp cards it holds."""
    history: tuple[int, int] = (0, 0)  # cards given their study, answers written


class _Sources:
    """Post title and source links per post, loaded once per export."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self._cache: dict[str, str] = {}

    def back(self, slug: str) -> str:
        if not slug:  # a course deck's own card: no post to link
            return ""
        if slug not in self._cache:
            try:
                post = load_post(slug, self.lang)
            except (PostError, UnknownIdError):
                self._cache[slug] = _html(slug)
            else:
                links = " · ".join(
                    f'<a href="{html.escape(url)}">{html.escape(url)}</a>'
                    for url in post.sources)
                self._cache[slug] = f"{_html(post.title)}<br>{links}"
        return self._cache[slug]


def _draw_fields(question: Question, images: frozenset[str] = frozenset()) -> list[str]:
    """One draw's fields of a generated card's note, in ``_DRAW_FIELDS`` order."""
    fields = dict(zip(_FIELDS[question.kind], _fields(question, "", images), strict=True))
    if "Steps" in fields:  # a drawn scenario's steps sit where a draw's choices go
        fields["Choices"] = fields.pop("Steps")
    return [fields.get(name, "") for name in _DRAW_FIELDS]


def _fields(question: Question, source: str,
            images: frozenset[str] = frozenset()) -> list[str]:
    from studyapp.questions.grading import expected_display
    from studyapp.study.phrases import numbered_choice

    # choices are numbered as every study face numbers them ("2) HBM3e")
    expected = numbered_choice(question, expected_display(question))
    answer = _html(expected, images)
    if question.kind is Kind.NUMERIC and question.tolerance is not None:
        answer += f" ({_html(question.tolerance.describe())})"
    explanation = (_html(question.explanation, images)
                   if question.kind is Kind.SCENARIO
                   or explains(question.explanation, expected) else "")
    prompt = _html(question.prompt, images)
    if question.kind is Kind.SCENARIO:
        steps = "<br>".join(f"{n}. {_html(p.question.prompt)}"
                            for n, p in enumerate(question.parts, 1))
        answer = "<br>".join(
            f"{n}. {_html(numbered_choice(p.question, expected_display(p.question)))}"
            for n, p in enumerate(question.parts, 1))
        return ["", prompt, steps, answer, explanation, source]
    if question.kind is Kind.CHOICE:
        choices = "<br>".join(_html(numbered_choice(question, c), images)
                              for c in question.choices)
        return ["", prompt, choices, answer, explanation, source]
    if question.kind is Kind.TEXT:
        accepted = ", ".join(_html(a) for a in question.accept)
        return ["", prompt, answer, accepted, explanation, source]
    return ["", prompt, answer, explanation, source]


def _tags(deck: Deck, card: CardSpec, question: Question) -> list[str]:
    tags = ([f"{TAG_PREFIX}::post::{_tag(card.post)}"] if card.post else []) + [
        f"{TAG_PREFIX}::deck::{_tag(deck.id)}"]  # a course deck's own card has no post
    family = card.generator or question.family
    if family:
        tags.append(f"{TAG_PREFIX}::family::{_tag(family)}")
    own = (_user_tag(tag) for tag in card.tags)
    return [*tags, *dict.fromkeys(tag for tag in own
                                  if tag and not tag.casefold().startswith(f"{TAG_PREFIX}::"))]


def _media_names(folder: Path) -> frozenset[str]:
    """The files of a deck's media folder that may go in a package: raster images by their
    bytes (an SVG or HTML file would run its script in Anki's card view), never a symlink."""
    from studyapp.decks.media import MediaRefused, read_image

    if not folder.is_dir():
        return frozenset()
    names = set()
    for path in folder.iterdir():
        if path.is_file() and not path.is_symlink():
            try:
                read_image(path)
            except MediaRefused:
                continue
            names.add(path.name)
    return frozenset(names)


def _add_media(media: dict[str, Path], folder: Path, images: frozenset[str],
               question: Question) -> None:
    """The image files a question names, from its deck's media folder."""
    from studyapp.decks.media import named_images

    texts = [question.prompt, str(question.answer), question.explanation, *question.choices]
    for name in named_images(texts):
        if name in images:
            media.setdefault(name, folder / name)


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
                  instances: int = DEFAULT_INSTANCES, timestamp: float | None = None,
                  options: Mapping[str, tuple[str, SchedulerSettings, DeckRules]] | None = None
                  ) -> tuple[genanki.Package, ExportSummary]:
    """The genanki package for ``selection``, every note in ``lang``.

    ``options`` (deck id → preset name, settings, rules) are the deck options
    each deck is studied with; every deck gets a preset of its own, with
    burying of new and review siblings on when it holds draws.
    """

    from studyapp.decks import DeckError, deck_title

    if not 1 <= instances <= MAX_DRAWS:
        raise ValueError(f"instances must be from 1 to {MAX_DRAWS}")
    models = {kind: note_model(kind) for kind in Kind}
    draws = draws_model()
    sources = _Sources(lang)
    stamp = export_stamp(time.time() if timestamp is None else timestamp)
    anki_decks = []
    media: dict[str, Path] = {}  # Anki's media names are one folder: the first file wins
    notes = static = templates = skipped = repeated = 0
    presets: dict[int, dict[str, Any]] = {}
    placed: dict[str, list[tuple[int, str, str]]] = {}
    shared_notes = SharedNotes(cards_model(_CSS))  # an Anki note with several cards
    for deck, cards in selection:
        templates_before = templates
        folder = media_folder(deck.path)
        images = _media_names(folder)
        deck_id = (_stable_id("studyapp-deck", deck.id) if lang == "en"
                   else _stable_id("studyapp-deck", lang, deck.id))
        title = deck_title(deck, lang).replace(" › ", "::")  # a deck from Anki nests again
        name = f"studyapp::{title}" if lang == "en" else f"studyapp::{lang}::{title}"
        anki_deck = genanki.Deck(deck_id, name)
        clozes: set[str] = set()  # Anki cloze notes already written (their cards are one note)
        shared = shared_guids(cards, lang)
        for card in cards:
            key = html.escape(note_key(deck.id, card.id, lang), quote=False)
            if not card.is_template:
                static += 1
                try:
                    question = card.instantiate(instance_seed(deck.id, card.id, 0), lang)
                except (DeckError, LookupError, ValueError, ArithmeticError):
                    skipped += 1
                    continue
                from_anki = card.anki_guid is not None and lang == card.language
                tags = [*_tags(deck, card, question), f"{TAG_PREFIX}::export::{stamp}"]
                _add_media(media, folder, images, question)
                if from_anki and card.anki_cloze is not None:
                    placed.setdefault(str(card.anki_guid), []).append(
                        (cloze_ordinal(card.id), deck.id, card.id))
                    if card.anki_guid not in clozes:  # the note back, once, with its deletions
                        clozes.add(str(card.anki_guid))
                        cloze = genanki.Note(  # Back Extra: what the card explains
                            model=genanki.CLOZE_MODEL, guid=card.anki_guid, tags=tags,
                            fields=[_html(card.anki_cloze, images),
                                    _html(question.explanation, images)])
                        cloze.cards = cloze_cards(card.anki_cloze)  # nested ones too
                        anki_deck.add_note(cloze)
                        notes += 1
                    continue
                ordinal = anki_ordinal(card.id)
                if from_anki and card.anki_guid in shared and ordinal is not None \
                        and ordinal < MAX_SLOTS:  # back as one note with its sibling cards
                    shared_notes.add(str(card.anki_guid), ordinal, deck.id, card.id, key,
                                     _draw_fields(question, images), tags)
                    continue
                # a card from Anki carries its own sources: no post's are added to it
                fields = _fields(question, "" if from_anki else sources.back(card.post), images)
                fields[0] = key
                guid = card.anki_guid if from_anki else note_guid(deck.id, card.id, 0, lang)
                anki_deck.add_note(genanki.Note(model=models[question.kind], fields=fields,
                                                tags=tags, guid=guid))
                placed[str(guid)] = [(0, deck.id, card.id)]
                notes += 1
                continue
            templates += 1
            values: list[str] = [key]
            seen: set[tuple[str, ...]] = set()
            first: Question | None = None
            for n in range(instances):
                try:
                    question = card.instantiate(instance_seed(deck.id, card.id, n), lang)
                except (DeckError, LookupError, ValueError, ArithmeticError):
                    skipped += 1
                    values += [""] * len(_DRAW_FIELDS)
                    continue
                drawn = _draw_fields(question, images)
                if tuple(drawn) in seen:  # the same draw twice: one card is enough
                    repeated += 1
                    values += [""] * len(_DRAW_FIELDS)
                    continue
                seen.add(tuple(drawn))
                _add_media(media, folder, images, question)
                if first is None:  # its first draw holds the card's progress
                    placed[draws_guid(deck.id, card.id, lang)] = [(n, deck.id, card.id)]
                first = first or question
                values += drawn
            if first is None:
                continue
            values += [""] * len(_DRAW_FIELDS) * (MAX_DRAWS - instances)
            values.append(sources.back(card.post))
            anki_deck.add_note(genanki.Note(
                model=draws, fields=values,
                tags=[*_tags(deck, card, first), f"{TAG_PREFIX}::export::{stamp}"],
                guid=draws_guid(deck.id, card.id, lang)))
            notes += 1
        notes += shared_notes.write(anki_deck, placed)
        if anki_deck.notes:
            anki_decks.append(anki_deck)
            name_, settings, rules = (options or {}).get(
                deck.id, (f"studyapp {deck.id}", SchedulerSettings(), PROFILE_RULES))
            presets[deck_id] = anki_preset(_stable_id("studyapp-preset", str(deck_id)), name_,
                                           settings, rules,
                                           bury_siblings=templates > templates_before)
    package = genanki.Package(anki_decks, media_files=[str(p) for p in media.values()])
    return package, ExportSummary(len(anki_decks), notes, static, templates, skipped, stamp,
                                  repeated, presets, placed)


def write_apkg(selection: Sequence[tuple[Deck, Sequence[CardSpec]]], target: Path, lang: str,
               *, instances: int = DEFAULT_INSTANCES, timestamp: float | None = None,
               settings: SchedulerSettings | None = None, progress: Progress | None = None,
               now: datetime | None = None) -> ExportSummary:
    """Write the package to ``target`` atomically (a fresh temporary file, then a rename).

    ``timestamp`` is the notes' modification time; Anki updates a note on
    import when the incoming one is newer, so a later export wins. ``settings``
    (the profile's) give each deck's options, written as its Anki preset; the
    cards take their study from ``progress`` (``apkg_progress``), due days
    counted from ``now``.
    """
    settings = settings or SchedulerSettings()
    options = export_options(settings, [deck.id for deck, _ in selection])
    package, summary = build_package(selection, lang, instances=instances, timestamp=timestamp,
                                     options=options)
    written = [0, 0]

    def fill(conn: sqlite3.Connection) -> None:
        assert progress is not None
        written[:] = write_progress(conn, summary.placed, progress, settings,
                                    now or datetime.now(UTC))

    with replacing(target, binary=True) as out:  # O_EXCL: a planted symlink is never followed
        write_package(package, out, timestamp, summary.presets,
                      None if progress is None else fill)
    return replace(summary, history=(written[0], written[1]))

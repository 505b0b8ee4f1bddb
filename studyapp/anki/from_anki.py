"""Turn an Anki package (.apkg, .colpkg) into studyapp decks, field by role.

An Anki package is a zip holding the collection as SQLite and a ``media``
map of the files beside it. Older packages (and Anki's "Support older Anki
versions" export) hold ``collection.anki21`` or ``collection.anki2``, schema
11: note types as JSON in ``col.models``, a JSON media map. Anki 2.1.50+
writes ``collection.anki21b`` by default: the collection zstd-compressed at
schema 18 (note types, decks and deck options in their own tables, with
protobuf settings), a protobuf media list and compressed media files
(``anki21b.py`` decodes those, within limits). Both give the same
``AnkiCollection``.

Each field of a note type has a role. By default the roles come from the
card templates: the prompt is what the front shows; the answer is what the
back shows beyond the front (Basic: Back; type-in: the typed field; Cloze:
the deleted text); every other field the back shows is the explanation, or
the source when its name says so (Source, Reference, URL...). A card is typed
only when its note type asks to type (``{{type:Field}}`` on the front) a
short answer; every other card is a self-graded ``recall`` card, as in
Anki: the answer is shown and the learner rates it. Only the answer is ever
accepted: variants come from an ``a / b`` whose parts name one thing.
``--map "Note:Field=role,..."`` sets the roles of one note type by hand.

Notes exported by studyapp itself (note types ``studyapp <kind>``) come back
as the cards they were: choices, numbers with their tolerance, the deck and
post their tags name. Image Occlusion and other note types without a
question and an answer are counted and named, never turned into text.
Every text is written with ``{``/``}`` doubled, because studyapp reads
single braces as formulas.

Reading the package is ``anki_collection``; a note into cards, ``anki_cards``;
here the cards are grouped into decks, images copied and the result shown.
"""

from __future__ import annotations

import zipfile
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from studyapp.anki.anki21b import FormatError, unzstd
from studyapp.anki.anki_cards import (
    STUDYAPP_KINDS,
    Conversion,
    MadeCard,
    NoteConverter,
    accepted_answers,
    parse_field_map,
    resolve_maps,
    returning_card,
    slug,
    unsupported_reason,
    yaml_text,
)
from studyapp.anki.anki_collection import (
    MAX_MEDIA_BYTES,
    MAX_PACKAGE_BYTES,
    AnkiCard,
    AnkiCollection,
    AnkiNote,
    AnkiPackageError,
    NoteType,
    open_package,
    read_collection,
    read_package,
)
from studyapp.anki.anki_text import html_to_text, is_audio, template_fields, to_text
from studyapp.anki.anki_update import apply_kept, plan_import
from studyapp.decks.media import MediaRefused, check_image
from studyapp.files import replacing
from studyapp.i18n import t

__all__ = [
    "MAX_PACKAGE_BYTES", "AnkiCard", "AnkiCollection", "AnkiNote", "AnkiPackageError",
    "Conversion", "NoteType", "accepted_answers", "apply_kept", "convert_package",
    "copy_images", "copy_sounds", "deck_yaml", "dry_run_lines", "html_to_text",
    "parse_field_map", "plan_import", "read_collection", "read_package", "slug",
    "template_fields",
]


def convert_package(path: Path, *, language: str, deck_id: str | None = None,
                    post: str = "intro", merge: bool = False,
                    field_map: Mapping[str, Mapping[str, str]] | None = None,
                    posts: Iterable[str] = (),
                    installed: Mapping[str, Mapping[str, str]] | None = None) -> Conversion:
    """Studyapp decks (as YAML-ready mappings) from the notes of an Anki package.

    One deck per Anki deck (subdecks included), or one for all with ``merge``.
    ``posts`` are the known post slugs: a card's post from a studyapp tag is
    kept only if it is one of them. ``installed`` (deck id → card id → post)
    are the decks already here: a note studyapp exported from one of their
    cards makes no new card, its history goes back to that card
    (``Conversion.returning``).
    """
    collection = read_collection(path)
    models = {m.id: m for m in collection.note_types}
    conversion = Conversion(media=collection.media, package=path,
                            media_compressed=collection.media_compressed)
    converter = NoteConverter(conversion, resolve_maps(field_map or {}, collection.note_types),
                           language)
    known_posts = set(posts)
    made: list[MadeCard] = []
    for note in collection.notes:
        model = models.get(note.model_id)
        if model is None:
            conversion.skipped_notes["unknown note type"] += 1
            continue
        reason = unsupported_reason(model)
        if reason is not None and model.id not in converter.roles:
            conversion.unsupported[reason] += 1
            continue
        returning = returning_card(note, model, installed) if installed else None
        if returning is not None:
            conversion.returning[note.id] = returning
            conversion.notes += 1
            continue
        if model.name.startswith("studyapp ") and (
                model.name.removeprefix("studyapp ") in STUDYAPP_KINDS
                or model.name.startswith("studyapp draws")):
            cards = converter.studyapp(note, model)
        elif model.cloze and model.id not in converter.roles:
            cards = converter.cloze(note, model)
        else:
            cards = converter.standard(note, model)
        if not cards:
            if model.cloze or any(template_fields(b) - template_fields(f)
                                  for _, f, b in model.templates) or model.id in converter.roles:
                conversion.skipped_notes["nothing to ask or no answer"] += 1
            else:
                conversion.unsupported[model.name] += 1
            continue
        conversion.notes += 1
        conversion.media_skipped += sum(to_text(f).dropped for f in note.fields)
        for card in cards:
            if card.card.get("post") and card.card["post"] not in known_posts:
                del card.card["post"]
            tags = [t for t in note.tags if t and len(t) <= 100
                    and not t.casefold().startswith("studyapp::")]
            if merge and card.deck:  # one deck for all: each card keeps its subdeck as a tag
                tags.append("_".join(card.deck.split())[:100])
            if tags:
                card.card["tags"] = tags[:50]
        made.extend(cards)
    if not made and not conversion.returning:
        found = ", ".join(f"{n} {name}" for name, n in conversion.unsupported.items())
        raise AnkiPackageError("no note with a question and an answer"
                               + (f" (left out: {found})" if found else ""))
    groups: dict[str, list[MadeCard]] = defaultdict(list)
    for card in made:
        groups["" if merge else card.deck].append(card)
    if merge:
        names = Counter(c.deck for c in made if c.deck)
        top = {n.split("::")[0] for n in names}
        merged_name = top.pop() if len(top) == 1 else (
            names.most_common(1)[0][0].split("::")[0] if names else path.stem)
        groups = {merged_name: groups[""]}
    used: set[str] = set()
    for name, cards in sorted(groups.items(), key=lambda kv: kv[0]):
        title = " › ".join(part for part in name.split("::") if part) or path.stem
        base = slug(name.replace("::", "-")) if name else slug(path.stem)
        ident = (deck_id if len(groups) == 1 else f"{deck_id}-{base}") if deck_id else base
        while ident in used:
            ident += "-2"
        used.add(ident)
        deck: dict[str, Any] = {"deck": ident[:100], "title": yaml_text(title),
                                "language": language, "post": post,
                                "cards": [c.card for c in cards]}
        conversion.decks.append(deck)
        conversion.anki_decks[deck["deck"]] = name
        for card in cards:
            conversion.card_decks[card.card["id"]] = deck["deck"]
            conversion.card_posts[card.card["id"]] = card.card.get("post", post)
        media = list(dict.fromkeys(i for c in cards for i in c.images))
        images = [name for name in media if not is_audio(name)]
        sounds = [name for name in media if is_audio(name)]
        if images:
            conversion.images[deck["deck"]] = images
        if sounds:
            conversion.sounds[deck["deck"]] = sounds
    conversion.cards = len(made)
    conversion.mapped = frozenset(converter.roles)
    conversion.collection = collection
    return conversion


def copy_images(conversion: Conversion, deck_id: str, folder: Path) -> tuple[int, list[str]]:
    """Copy the images a deck's cards name into ``folder``; (copied, missing names).

    Only raster images by their bytes are copied: any other file (an SVG, an
    HTML page, whatever its name) is left out and recorded, with why, in
    ``conversion.refused_images``.
    """
    return _copy_media(conversion, conversion.images.get(deck_id, []), folder, images=True)


def copy_sounds(conversion: Conversion, deck_id: str, folder: Path) -> tuple[int, list[str]]:
    """Copy the audio files a deck's cards name (``[audio: NAME]``) into ``folder``, kept for
    the learner to play; (copied, missing names). Nothing reads them as a page or runs them."""
    return _copy_media(conversion, conversion.sounds.get(deck_id, []), folder, images=False)


def _copy_media(conversion: Conversion, wanted: list[str], folder: Path, *,
                images: bool) -> tuple[int, list[str]]:
    if not wanted:
        return 0, []
    copied, missing = 0, []
    with open_package(conversion.package) as archive:
        members = set(archive.namelist())
        for name in wanted:
            member = conversion.media.get(name)
            if member is None or member not in members or not _plain_file_name(name) \
                    or archive.getinfo(member).file_size > MAX_MEDIA_BYTES:
                missing.append(name)
                continue
            try:
                if conversion.media_compressed:  # Anki's current format: each file zstd'd
                    data = unzstd(archive.read(member), MAX_MEDIA_BYTES, f"media file {name}")
                else:
                    with archive.open(member) as source:
                        data = source.read(MAX_MEDIA_BYTES + 1)
            except (FormatError, zipfile.BadZipFile, zlib.error):
                missing.append(name)
                continue
            try:
                if images:
                    check_image(data)
                elif not is_audio(name):
                    continue
            except MediaRefused as refusal:
                conversion.refused_images.append((name, refusal.reason))
                continue
            folder.mkdir(parents=True, exist_ok=True)
            # a fresh O_EXCL file renamed into place: a planted symlink is never written through
            with replacing(folder / name, binary=True) as target:
                target.write(data)
            copied += 1
    return copied, missing


def _plain_file_name(name: str) -> bool:
    """A media name that stays in the deck's media folder: no folder, no dot file."""
    return bool(name) and name == Path(name).name and not name.startswith(".") \
        and "\\" not in name and name.isprintable()


def deck_yaml(deck: Mapping[str, Any]) -> str:
    """The deck as YAML for an instructor to edit (keys in the documented order)."""
    return yaml.safe_dump(dict(deck), allow_unicode=True, sort_keys=False, width=100)


def dry_run_lines(conversion: Conversion, sample: int = 3, lang: str = "en") -> list[str]:
    """The field roles used per note type, and a few cards of each deck."""

    lines = [t("anki.dry.roles", lang)]
    for name, roles in conversion.mapping.items():
        lines.append(f"  {name}: " + ", ".join(f"{f}={r}" for f, r in roles.items()))
    for deck in conversion.decks:
        cards = deck["cards"]
        lines.append(t("anki.dry.deck", lang, deck=deck["deck"], cards=len(cards)))
        for card in cards[:sample]:
            answer = card["answer"]
            if card["type"] == "choice":
                answer = card["choices"][answer]
            accept = (f"  {t('anki.dry.also', lang)} {' | '.join(card['accept'])}"
                      if card.get("accept") else "")
            lines.append(f"  [{card['type']}] {_one_line(card['prompt'])}")
            lines.append(f"    {t('anki.dry.answer', lang)} {_one_line(str(answer))}{accept}")
    return lines


def _one_line(text: str, room: int = 100) -> str:
    flat = " ⏎ ".join(text.replace("{{", "{").replace("}}", "}").split("\n"))
    return flat if len(flat) <= room else flat[:room - 1] + "…"


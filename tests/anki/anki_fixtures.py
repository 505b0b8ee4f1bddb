"""Anki collections made with Anki's own library (the `anki` package), as instructors make them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
       b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\xdac(\xdb\xc9\xf0\x1f\x00\x05\x07\x02/O\x04?\x80"
       b"\x00\x00\x00\x00IEND\xaeB`\x82")


def _note_type(col: Any, name: str, fields: list[str], front: str, back: str) -> Any:
    models = col.models
    model = models.new(name)
    for field_name in fields:
        models.add_field(model, models.new_field(field_name))
    template = models.new_template("Card 1")
    template["qfmt"], template["afmt"] = front, back
    models.add_template(model, template)
    models.add(model)
    return models.by_name(name)


def typed_cloze(col: Any) -> None:
    """"Cloze (typed)": Anki's cloze note type whose front also asks to type the deletion."""
    model = col.models.copy(col.models.by_name("Cloze"))
    model["name"] = "Cloze (typed)"
    model["tmpls"][0]["qfmt"] = "{{cloze:Text}}<br>{{type:cloze:Text}}"
    col.models.update_dict(model)


def add(col: Any, type_name: str, deck: str, tags: str = "", **values: str) -> Any:
    note = col.new_note(col.models.by_name(type_name))
    for key, value in values.items():
        note[key.replace("_", " ")] = value
    note.tags = tags.split()
    col.add_note(note, col.decks.id(deck))
    return note


def course_collection(folder: Path) -> Any:
    """The hostile and realistic notes of the field-roles cases, in a collection left open."""
    from anki.collection import Collection

    col = Collection(str(folder / "course.anki2"))
    typed_cloze(col)
    _note_type(col, "Ridge point", ["Front", "Definition", "Source"],
               "{{Front}}<br>{{type:Definition}}",
               "{{FrontSide}}<hr id=answer>{{Definition}}<br><i>{{Source}}</i>")
    _note_type(col, "Claim", ["Claim", "Where", "Answer"], "{{Claim}}{{Where}}?{{type:Answer}}",
               "{{FrontSide}}<hr id=answer>{{Answer}}")
    add(col, "Ridge point", "Course::Roofline", "roofline",
        Front="Ridge point of the roofline model", Definition="FLOPS / bandwidth",
        Source="Williams et al. 2009")
    add(col, "Basic", "Course::Parallelism", "parallelism",
        Front="The three axes of parallelism in training",
        Back="<ul><li>data</li><li>tensor</li><li>pipeline</li></ul>")
    add(col, "Cloze (typed)", "Course::Network", "network collectives",
        Text="Bandwidth-optimal all-reduce and its traffic factor: {{c1::Ring, 2(N-1)/N}}")
    add(col, "Basic", "Course::Roofline", "roofline",
        Front="Arithmetic intensity of a matmul", Back=r"\(\frac{2mnk}{2(mk+kn+mn)}\)")
    add(col, "Basic (type in the answer)", "Course::Memory", "memory",
        Front="Which memory does the H200 use?", Back="HBM3e")
    add(col, "Cloze", "Course::Network", "network",
        Text="{{c1::NVLink {{c2::4}}}} gives each H100 900 GB/s",
        Back_Extra="Per direction: 450 GB/s")
    add(col, "Basic (type in the answer)", "Course::Memory", "memory gpu::h100",
        Front='Which GPU is this? <img src="h100.png">', Back="H100")
    add(col, "Basic", "Course::Memory", "memory",
        Front="Memory of two GPUs",
        Back="<table><tr><th>GPU</th><th>GB</th></tr><tr><td>H100</td><td>80</td></tr></table>")
    add(col, "Basic (type in the answer)", "Course::Chemistry", "", Front="Water",
        Back="H<sub>2</sub>O")
    add(col, "Basic (type in the answer)", "Course::Chemistry", "", Front="Mass-energy",
        Back="E = mc<sup>2</sup>")
    add(col, "Claim", "Course::Memory", "", Claim="How big is the model that runs",
        Where="PaLM paper", Answer="540B parameters")
    add(col, "Basic (type in the answer)", "Course::Memory", "", Front="Scale-out fabric of NDR",
        Back="InfiniBand / IB")
    occlusion = col.new_note(col.models.by_name("Image Occlusion"))
    occlusion["Occlusion"] = "{{c1::image-occlusion:rect:left=.1:top=.1:width=.2:height=.2}}"
    occlusion["Image"] = '<img src="h100.png">'
    col.add_note(occlusion, col.decks.id("Course::Memory"))
    col.media.write_data("h100.png", PNG)
    return col


FORMATS = ("legacy", "anki21b")
"""Both package formats Anki writes: "Support older Anki versions" ticked (schema 11,
``collection.anki21``) and its default since 2.1.50 (``collection.anki21b``, zstd, schema 18)."""


def export(col: Any, target: Path, *, history: bool = False, form: str = "legacy") -> Path:
    from anki.collection import ExportAnkiPackageOptions

    col.export_anki_package(out_path=str(target), limit=None, options=ExportAnkiPackageOptions(
        legacy=form == "legacy", with_scheduling=history, with_media=True,
        with_deck_configs=history))
    return target


def studied_collection(folder: Path, cards: int = 12, answers: int = 20) -> Any:
    """A collection with FSRS on, every card answered today by Anki's own scheduler."""
    from anki.collection import Collection

    col = Collection(str(folder / "studied.anki2"))
    col.set_config("fsrs", True)
    basic = col.models.by_name("Basic")
    deck = col.decks.id("Studied")
    for i in range(cards):
        note = col.new_note(basic)
        note["Front"], note["Back"] = f"Question {i}", f"Answer {i}"
        col.add_note(note, deck)
    col.decks.select(deck)
    eases = [4, 3, 1, 3, 2, 4, 3, 3, 1, 4, 3, 2, 3, 3, 4, 1, 3]
    for ease in (eases * 3)[:answers]:
        card = col.sched.getCard()
        if card is None:
            break
        card.start_timer()
        col.sched.answerCard(card, ease)
    suspended = col.find_cards("")[-1]
    col.sched.suspend_cards([suspended])
    return col

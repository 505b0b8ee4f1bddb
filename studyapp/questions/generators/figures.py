"""Figure status in the questions: announced and estimated figures say so where shown.

The catalog marks each figure published (the default), measured, announced or
estimated (``Entry.status``). A question may use an announced or estimated figure
as a given, but every place its prompt or explanation writes it carries the label
"(announced)" / "(anunciado)"; and no family asks one as the answer of a fact
question (``drawing.factual`` keeps them out of those draws). Labelling happens
here, once, for every registered family's questions (``generators._declaring``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from studyapp.catalog import Catalog, load_catalog
from studyapp.catalog.entry import Entry
from studyapp.catalog.models import System
from studyapp.i18n import t
from studyapp.questions.generators.context import revised
from studyapp.questions.generators.drawing import number_spans
from studyapp.questions.model import Part, Question

MATCH = 5e-4
"""A written number is the figure when within this relative distance (rounding to
four or five significant figures)."""


@dataclass(frozen=True)
class Flagged:
    """One figure a question may show that is not a fact: where it is from, its status."""

    entry: Entry
    field: str
    value: float
    status: str


def _ids(value: Any, found: list[str] | None = None) -> list[str]:
    """Every string in a question's params, however nested (ids of what it drew), in order."""
    found = [] if found is None else found
    if isinstance(value, str):
        found.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _ids(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _ids(item, found)
    return found


_BY_ID: dict[int, tuple[Catalog, dict[str, tuple[Entry, ...]]]] = {}


def _by_id(catalog: Catalog) -> dict[str, tuple[Entry, ...]]:
    """Each id of ``catalog`` -> its entry (the first table naming it) and, for a system,
    its accelerator: built once a catalog, since every draw looks its ids up."""
    known = _BY_ID.get(id(catalog))
    if known is not None and known[0] is catalog:
        return known[1]
    found: dict[str, tuple[Entry, ...]] = {}
    for table in (catalog.accelerators, catalog.interconnects, catalog.systems,
                  catalog.models):
        for entry_id, entry in table.by_id.items():
            if entry_id in found:
                continue
            if isinstance(entry, System) and entry.accelerator in catalog.accelerators:
                found[entry_id] = (entry, catalog.accelerators[entry.accelerator])
            else:
                found[entry_id] = (entry,)
    _BY_ID.clear()  # one catalog at a time: a reload replaces it
    _BY_ID[id(catalog)] = (catalog, found)
    return found


def drawn_entries(params: dict[str, Any]) -> list[Entry]:
    """The catalog entries a question's params name, with each system's accelerator."""
    by_id = _by_id(load_catalog())
    found: dict[str, Entry] = {}
    for text in _ids(params):
        hit = by_id.get(text)
        if hit is not None and text not in found:
            found[text] = hit[0]
            if len(hit) > 1:
                found.setdefault(hit[1].id, hit[1])
    return list(found.values())


def _numbers(entry: Entry) -> Iterator[tuple[str, float]]:
    for field in type(entry).model_fields:
        value = getattr(entry, field)
        if isinstance(value, int | float) and not isinstance(value, bool):
            yield field, float(value)


_FIGURES: dict[int, tuple[Entry, list[Flagged], list[float]]] = {}


def _entry_figures(entry: Entry) -> tuple[list[Flagged], list[float]]:
    """The flagged figures and the fact values of one entry, read once an entry."""
    known = _FIGURES.get(id(entry))
    if known is not None and known[0] is entry:
        return known[1], known[2]
    flagged: list[Flagged] = []
    facts: list[float] = []
    for field, value in _numbers(entry):
        if entry.is_fact(field):
            facts.append(value)
        else:
            flagged.append(Flagged(entry, field, value, entry.figure_status(field)))
    if len(_FIGURES) > 4096:  # a few catalogs' worth
        _FIGURES.clear()
    _FIGURES[id(entry)] = (entry, flagged, facts)
    return flagged, facts


def flagged_figures(entries: list[Entry]) -> tuple[list[Flagged], list[float]]:
    """The announced and estimated figures of ``entries``, and the values of their facts
    (a value two figures share needs the entry's name in its label)."""
    flagged: list[Flagged] = []
    facts: list[float] = []
    for entry in entries:
        entry_flagged, entry_facts = _entry_figures(entry)
        flagged.extend(entry_flagged)
        facts.extend(entry_facts)
    return flagged, facts


def _short(name: str) -> str:
    return name.split(" (", 1)[0].strip() or name


def label_text(text: str, lang: str, flagged: list[Flagged], facts: list[float]) -> str:
    """``text`` with "(announced)" after each number that is a flagged figure; where a fact
    of another drawn entry has the same value, the label names the entry."""
    if not flagged or not text:
        return text
    out: list[str] = []
    last = 0
    for start, end, value in number_spans(text, lang):
        if start > 0 and text[start - 1].isalpha():
            continue  # a digit inside a name (TPU7x, H100)
        hits = [f for f in flagged if math.isclose(value, f.value, rel_tol=MATCH)]
        if not hits:
            continue
        unit_end = end
        rest = text[end:]
        for unit in (" TB/s", " GB/s", " GB", " TFLOPS", " W", " MiB", " GiB"):
            if rest.startswith(unit):
                unit_end = end + len(unit)
                break
        labels = []
        shared = any(math.isclose(value, v, rel_tol=MATCH) for v in facts) or len(
            {f.entry.id for f in hits}) > 1
        for hit in hits:
            status = t(f"gen.status.{hit.status}", lang)
            label = (t("gen.status.label_for", lang, status=status, name=_short(hit.entry.name))
                     if shared else t("gen.status.label", lang, status=status))
            if label not in labels:
                labels.append(label)
        already = text[unit_end:unit_end + 40]
        if any(already.startswith(" " + label) for label in labels):
            continue
        out.append(text[last:unit_end])
        out.append(" " + " ".join(labels))
        last = unit_end
    out.append(text[last:])
    return "".join(out)


def _labelled_part(part: Part, drawn: tuple[Entry, ...]) -> Part:
    labelled = label_figures(part.question, drawn)
    return part if labelled is part.question else revised(part, question=labelled)


def label_figures(question: Question, drawn: tuple[Entry, ...] = ()) -> Question:
    """The question with its announced and estimated figures labelled where written, in
    its Given block, prompt and explanation and in a scenario's steps (which see the whole
    scenario's draws too)."""
    entries = list(drawn) + [e for e in drawn_entries(dict(question.params)) if e not in drawn]
    parts = tuple(_labelled_part(part, tuple(entries)) for part in question.parts)
    flagged, facts = (flagged_figures(entries) if any(e.status for e in entries)
                      else ([], []))  # most draws: nothing but published figures
    if not flagged:
        return question if parts == question.parts else revised(question,
                                                                             parts=parts)
    return revised(
        question,
        prompt=label_text(question.prompt, question.lang, flagged, facts),
        given=tuple(label_text(line, question.lang, flagged, facts) for line in question.given),
        explanation=label_text(question.explanation, question.lang, flagged, facts),
        parts=parts)

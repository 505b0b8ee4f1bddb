"""The apkg export and deck add from the command line: disabled decks, id collisions."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from studyapp.anki.from_anki import read_collection
from studyapp.cli import main

DECK = """deck: {id}
title: {title}
language: en
post: intro
cards:
  - id: one
    type: text
    prompt: "What is HBM?"
    answer: "High Bandwidth Memory"
"""


def run(tmp_path: Path, *args: str) -> Result:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return CliRunner().invoke(main, ["--db", db, "--lang", "en", *args])


def deck_tags(package: Path) -> set[str]:
    collection = read_collection(package)
    return {t.split("::", 2)[2] for n in collection.notes for t in n.tags
            if t.startswith("studyapp::deck::")}


def test_a_disabled_deck_is_not_exported(tmp_path: Path) -> None:
    target = tmp_path / "kv.apkg"
    result = run(tmp_path, "export", "--format", "apkg", "-o", str(target),
                 "--post", "hbm-kv-cache", "--instances", "1")
    assert result.exit_code == 0, result.output
    tags = deck_tags(target)
    assert tags and not tags & {"numeric-drill", "serving-llms-course"}  # example decks: off
    assert "-tag:studyapp::export::" in result.output  # how to find stale notes in Anki
    assert run(tmp_path, "deck", "enable", "numeric-drill").exit_code == 0
    assert run(tmp_path, "export", "--format", "apkg", "-o", str(target), "--post",
               "hbm-kv-cache", "--instances", "1").exit_code == 0
    assert "numeric-drill" in deck_tags(target)


def test_deck_add_refuses_a_different_deck_with_an_installed_id(tmp_path: Path) -> None:
    first = tmp_path / "first.yaml"
    first.write_text(DECK.format(id="course", title="Course"), encoding="utf-8")
    other = tmp_path / "other.yaml"
    other.write_text(DECK.format(id="course", title="Another course"), encoding="utf-8")
    assert run(tmp_path, "deck", "add", str(first)).exit_code == 0
    assert run(tmp_path, "deck", "add", str(first)).exit_code == 0  # the same deck again
    refused = run(tmp_path, "deck", "add", str(other))
    assert refused.exit_code == 1
    assert "already installed in" in refused.output and "course.yaml" in refused.output
    assert "--replace" in refused.output
    replaced = run(tmp_path, "deck", "add", str(other), "--replace")
    assert replaced.exit_code == 0, replaced.output
    listed = run(tmp_path, "deck", "list")
    assert "Another course" in listed.output


def test_every_shipped_deck_exports_without_duplicate_notes(tmp_path: Path) -> None:
    """All built-in decks, five draws each: no two notes share their first field (Anki's
    duplicate check), no two notes are the same, and no draw repeats another of its note."""
    target = tmp_path / "all.apkg"
    result = run(tmp_path, "export", "--format", "apkg", "-o", str(target))
    assert result.exit_code == 0, result.output
    collection = read_collection(target)
    assert len(collection.notes) > 200
    firsts = [note.fields[0] for note in collection.notes]
    assert len(firsts) == len(set(firsts))
    contents = [note.fields[1:] for note in collection.notes]
    assert len(contents) == len(set(contents))
    names = {m.id: m.fields for m in collection.note_types}
    for note in collection.notes:
        fields = dict(zip(names[note.model_id], note.fields, strict=False))
        draws = [tuple(fields.get(f"{part} {n}", "") for part in ("Prompt", "Choices", "Answer"))
                 for n in range(1, 11)]
        filled = [d for d in draws if d[0]]
        assert len(filled) == len(set(filled)), fields["Key"]

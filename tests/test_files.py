"""Exports are written through a fresh O_EXCL temporary file, never through a symlink.

Someone who can write the output folder plants a link where the old fixed
temporary name (``.out.json.partial``) would go, or at the target itself;
the export must leave the link's target untouched.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from studyapp.cli import main
from studyapp.files import replacing


def test_a_failed_write_leaves_neither_target_nor_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), replacing(target) as fh:
        fh.write("half")
        raise RuntimeError("disk full")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_written_file_gets_the_mode_a_new_file_would_get(tmp_path: Path) -> None:
    """mkstemp makes 0600 files: an export meant for a class would be unreadable to it."""
    old = os.umask(0o027)
    try:
        with replacing(tmp_path / "shared.csv") as fh:
            fh.write("a,b\n")
    finally:
        os.umask(old)
    assert (tmp_path / "shared.csv").stat().st_mode & 0o777 == 0o640


def export(tmp_path: Path, fmt: str, target: Path) -> Result:
    """``studyapp export`` in ``fmt`` to ``target``, with its own home folder."""
    return CliRunner().invoke(main, ["--lang", "en", "export", "--format", fmt, "-o",
                                     str(target)],
                              env={"STUDYAPP_HOME": str(tmp_path / "home"),
                                   "STUDYAPP_DB": None})


@pytest.mark.parametrize("fmt", ["json", "csv", "apkg"])
def test_planted_symlinks_are_never_written_through(tmp_path: Path, fmt: str) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    out = tmp_path / "shared"
    out.mkdir()
    target = out / f"out.{fmt}"
    (out / f".{target.name}.partial").symlink_to(victim)  # the old fixed temporary name
    result = export(tmp_path, fmt, target)
    assert result.exit_code == 0, result.output
    assert victim.read_text(encoding="utf-8") == "precious"
    assert target.is_file() and not target.is_symlink() and target.stat().st_size > 0

    target.unlink()
    target.symlink_to(victim)  # a link at the target itself is replaced, not followed
    result = export(tmp_path, fmt, target)
    assert result.exit_code == 0, result.output
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not target.is_symlink()
    assert not [p for p in os.listdir(out) if p.endswith(".partial") and
                not (out / p).is_symlink()]


def test_deck_from_anki_never_writes_through_a_planted_symlink(tmp_path: Path) -> None:
    import genanki

    deck = genanki.Deck(2059400112, "Links")
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=["Which memory?", "HBM3e"]))
    package = tmp_path / "links.apkg"
    genanki.Package(deck).write_to_file(str(package))
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    out = tmp_path / "shared"
    out.mkdir()
    target = out / "deck.yaml"
    (out / ".deck.yaml.partial").symlink_to(victim)  # the old fixed temporary name
    target.symlink_to(victim)
    result = CliRunner().invoke(main, ["--lang", "en", "deck", "from-anki", str(package),
                                       "-o", str(target)],
                                env={"STUDYAPP_HOME": str(tmp_path / "home"),
                                     "STUDYAPP_DB": None})
    assert result.exit_code == 0, result.output
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not target.is_symlink() and "HBM3e" in target.read_text(encoding="utf-8")

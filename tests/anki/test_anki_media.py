"""Media from an Anki package: only raster images by their bytes are copied (``deck
from-anki``) or installed (``import``); an SVG, an HTML page or a PNG-named page is left
out with one line naming it. An Anki export takes only raster images along too."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from media_samples import GIF, JPEG, POLYGLOTS, WEBP, html, svg
from recall_decks import PNG

from studyapp import locations
from studyapp.cli import main

collection = pytest.importorskip("anki.collection")

GOOD = {"h100.png": PNG, "photo.jpg": JPEG, "anim.gif": GIF, "chip.webp": WEBP,
        "scan.png": JPEG}  # a JPEG named .png: copied, its bytes say it is an image
BAD = {"chip.svg": svg("http://127.0.0.1:9"), "page.html": html("http://127.0.0.1:9"),
       "h200.png": html("http://127.0.0.1:9"), "both.gif": POLYGLOTS["gif-then-html"]}
WHY = {"chip.svg": "its bytes are not a PNG, JPEG, GIF or WebP image",
       "page.html": "its bytes are not a PNG, JPEG, GIF or WebP image",
       "h200.png": "its bytes are not a PNG, JPEG, GIF or WebP image",
       "both.gif": "a broken GIF image"}


def package(folder: Path, form: str) -> Path:
    """A package with one Basic note per media file, each naming its file in an <img>."""
    col = collection.Collection(str(folder / f"media-{form}.anki2"))
    try:
        basic, deck = col.models.by_name("Basic"), col.decks.id("Media")
        for name, data in {**GOOD, **BAD}.items():
            note = col.new_note(basic)
            note["Front"], note["Back"] = f'Which chip? <img src="{name}">', name
            col.add_note(note, deck)
            col.media.write_data(name, data)
        target = folder / f"media-{form}.apkg"
        col.export_anki_package(out_path=str(target), limit=None,
                                options=collection.ExportAnkiPackageOptions(
                                    legacy=form == "legacy", with_media=True))
    finally:
        col.close()
    return target


def cli(tmp_path: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                       "--lang", "en", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def refused_lines(output: str) -> dict[str, str]:
    return {line.removeprefix("Not copied: ").split(":")[0]: line
            for line in output.splitlines() if line.startswith("Not copied: ")}


@pytest.mark.parametrize("form", ["legacy", "anki21b"])
def test_from_anki_copies_raster_images_and_names_each_file_it_refuses(
        tmp_path: Path, form: str) -> None:
    code, output = cli(tmp_path, "deck", "from-anki", str(package(tmp_path, form)),
                       "-o", str(tmp_path / "media.yaml"))
    assert code == 0, output
    folder = tmp_path / "media.media"
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == GOOD
    lines = refused_lines(output)
    assert sorted(lines) == sorted(BAD)  # one line each
    for name, line in lines.items():
        assert line.startswith(f"Not copied: {name}: {WHY[name]}")
    assert "5 image(s) copied" in output


def test_import_installs_only_the_raster_images(tmp_path: Path) -> None:
    code, output = cli(tmp_path, "import", str(package(tmp_path, "anki21b")))
    assert code == 0, output
    installed = next(locations.user_decks_dir().glob("*.media"))
    assert {p.name: p.read_bytes() for p in installed.iterdir()} == GOOD
    assert sorted(refused_lines(output)) == sorted(BAD)


def test_refusals_are_in_the_readers_language(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                       "--lang", "es", "deck", "from-anki",
                                       str(package(tmp_path, "legacy")),
                                       "-o", str(tmp_path / "media.yaml")])
    assert result.exit_code == 0, result.output
    assert ("No se copia chip.svg: sus bytes no son una imagen PNG, JPEG, GIF ni WebP"
            in result.output)


def test_an_anki_export_takes_only_raster_images_along(tmp_path: Path) -> None:
    from studyapp.anki.apkg import select_cards, write_apkg
    from studyapp.decks import load_deck

    deck = tmp_path / "pictures.yaml"
    deck.write_text("deck: pictures\ntitle: Pictures\nlanguage: en\npost: intro\ncards:\n"
                    "  - id: which\n    type: recall\n"
                    '    prompt: "Which? [image: h100.png] [image: chip.svg] [image: h200.png]"\n'
                    "    answer: H100\n", encoding="utf-8")
    (tmp_path / "pictures.media").mkdir()
    for name, data in (("h100.png", PNG), ("chip.svg", BAD["chip.svg"]),
                       ("h200.png", BAD["h200.png"])):
        (tmp_path / "pictures.media" / name).write_bytes(data)
    target = tmp_path / "out.apkg"
    write_apkg(select_cards([load_deck(deck)]), target, "en", instances=1)
    col = collection.Collection(str(tmp_path / "check.anki2"))
    try:
        from anki.import_export_pb2 import ImportAnkiPackageOptions, ImportAnkiPackageRequest

        col.import_anki_package(ImportAnkiPackageRequest(
            package_path=str(target), options=ImportAnkiPackageOptions(with_scheduling=False)))
        media = Path(col.media.dir())
        assert sorted(p.name for p in media.iterdir()) == ["h100.png"]
        prompt = col.get_note(col.find_notes("")[0])["Prompt"]
        assert prompt == 'Which? <img src="h100.png"> [image: chip.svg] [image: h200.png]'
    finally:
        col.close()

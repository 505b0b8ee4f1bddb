"""A deck's media are raster images by their bytes: the check itself, and ``deck add``
installing images whatever their names and refusing everything else."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from media_samples import GIF, JPEG, POLYGLOTS, RASTER, WEBP, html, svg
from recall_decks import PICTURES_DECK, PNG

from studyapp import locations
from studyapp.cli import main
from studyapp.decks import media
from studyapp.decks.media import MediaRefused, check_image, raster_type, read_image


@pytest.mark.parametrize("kind", sorted(RASTER))
def test_each_raster_format_is_recognised_by_its_bytes(kind: str) -> None:
    data, mime_type = RASTER[kind]
    assert check_image(data) == mime_type
    assert raster_type(data[:16]) == mime_type


def refusal(data: bytes) -> str:
    with pytest.raises(MediaRefused) as refused:
        check_image(data)
    return refused.value.reason.key.removeprefix("decks.problem.")


@pytest.mark.parametrize("data", [svg("http://127.0.0.1:9"), html("http://127.0.0.1:9"),
                                  b"<?xml version='1.0'?><svg/>", b"plain text", b"%PDF-1.7",
                                  b"\x89PNG", b"RIFF\x04\x00\x00\x00WAVE"],
                         ids=["svg", "html", "xml-svg", "text", "pdf", "png-prefix", "wav"])
def test_other_formats_are_refused_as_not_raster(data: bytes) -> None:
    assert refusal(data) == "media_not_raster"


@pytest.mark.parametrize("name", sorted(POLYGLOTS))
def test_an_image_carrying_a_page_or_a_script_is_refused(name: str) -> None:
    """Bytes after the image's end, markup in its text, or a signature with no image."""
    assert refusal(POLYGLOTS[name]) in ("media_broken", "media_markup")


def test_an_image_cut_short_or_with_a_bad_checksum_is_broken() -> None:
    for data in (PNG[:-5], JPEG[:-2], GIF[:-1], WEBP[:-4],
                 PNG[:30] + bytes([PNG[30] ^ 1]) + PNG[31:]):  # one IHDR bit flipped: bad CRC
        assert refusal(data) == "media_broken"


def test_an_empty_or_oversized_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    assert refusal(b"") == "media_empty"
    monkeypatch.setattr(media, "MAX_IMAGE_BYTES", len(PNG) - 1)
    assert refusal(PNG) == "media_too_large"


def test_a_symlink_or_a_fifo_is_never_read(tmp_path: Path) -> None:
    (tmp_path / "real.png").write_bytes(PNG)
    assert read_image(tmp_path / "real.png").data == PNG
    (tmp_path / "link.png").symlink_to(tmp_path / "real.png")
    os.mkfifo(tmp_path / "pipe.png")
    for name, key in (("link.png", "media_unreadable"), ("pipe.png", "media_not_file")):
        with pytest.raises(MediaRefused) as refused:
            read_image(tmp_path / name)
        assert refused.value.reason.key == f"decks.problem.{key}"


def deck_with_media(folder: Path, files: dict[str, bytes]) -> Path:
    deck = folder / "pictures.yaml"
    deck.write_text(PICTURES_DECK, encoding="utf-8")
    (folder / "pictures.media").mkdir()
    for name, data in files.items():
        (folder / "pictures.media" / name).write_bytes(data)
    return deck


def add(deck: Path, lang: str = "en") -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--lang", lang, "deck", "add", str(deck)])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_deck_add_installs_raster_images_whatever_their_names(tmp_path: Path) -> None:
    files = {"h100.png": PNG, "photo.png": JPEG, "anim.gif": GIF, "chip.webp": WEBP,
             "diagram": PNG}  # a JPEG named .png, a PNG with no extension: bytes decide
    code, output = add(deck_with_media(tmp_path, files))
    assert code == 0, output
    installed = locations.user_decks_dir() / "pictures.media"
    assert {p.name: p.read_bytes() for p in installed.iterdir()} == files


@pytest.mark.parametrize("name,data,why", [
    ("chip.svg", svg("http://127.0.0.1:9"), "its bytes are not a PNG, JPEG, GIF or WebP image"),
    ("page.html", html("http://127.0.0.1:9"), "its bytes are not a PNG, JPEG, GIF or WebP"),
    ("h200.png", html("http://127.0.0.1:9"), "its bytes are not a PNG, JPEG, GIF or WebP"),
    ("both.png", POLYGLOTS["png-then-html"], "a broken PNG image"),
    ("noted.png", POLYGLOTS["png-text-script"], "a PNG image that carries markup"),
    ("empty.gif", b"", "the file is empty"),
])
def test_deck_add_refuses_anything_else_naming_the_file(tmp_path: Path, name: str,
                                                       data: bytes, why: str) -> None:
    deck = deck_with_media(tmp_path, {"h100.png": PNG, name: data})
    code, output = add(deck)
    assert code == 1
    line, = output.splitlines()  # one line, naming the file and why
    assert line.startswith(f"{tmp_path / 'pictures.media' / name}:1:1: media file refused: ")
    assert why in line
    assert not locations.user_decks_dir().exists()  # nothing installed, not even the deck


def test_deck_add_names_every_refused_file_in_the_readers_language(tmp_path: Path) -> None:
    deck = deck_with_media(tmp_path, {"a.svg": svg("x"), "h100.png": PNG, "b.html": html("x")})
    code, output = add(deck, "es")
    assert code == 1
    lines = output.splitlines()
    assert [line.split(":1:1:")[0] for line in lines] == [
        str(tmp_path / "pictures.media" / "a.svg"), str(tmp_path / "pictures.media" / "b.html")]
    assert all("archivo de medios rechazado: sus bytes no son una imagen" in ln for ln in lines)


def test_an_image_is_installed_without_following_a_planted_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep", encoding="utf-8")
    installed = locations.user_decks_dir() / "pictures.media"
    installed.mkdir(parents=True)
    (installed / "h100.png").symlink_to(outside)
    source = tmp_path / "src"
    source.mkdir()
    code, output = add(deck_with_media(source, {"h100.png": PNG}))
    assert code == 0, output
    assert outside.read_text(encoding="utf-8") == "keep"
    image = installed / "h100.png"
    assert image.read_bytes() == PNG and not image.is_symlink()

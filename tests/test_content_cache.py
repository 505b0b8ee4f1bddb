"""The JSON copies of shipped content: read back only when made from the same files,
rebuilt when a file changes or the copy is damaged, none written by ``--help``, and
the app's start reads them instead of loading PyYAML."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_import_hygiene import modules_after

from studyapp import content_cache, locations
from studyapp.i18n import read_strings, strings
from studyapp.tui.post_index import (
    PostHeading,
    headings_from_json,
    post_headings,
    read_headings,
)


@pytest.fixture
def sources(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "content"
    folder.mkdir()
    paths = [folder / "a.en.yaml", folder / "b.en.yaml"]
    paths[0].write_text("home.title: Home\nhome.quit: Quit\n", encoding="utf-8")
    paths[1].write_text("home.quit: Leave\n", encoding="utf-8")
    return paths


class Reader:
    """``read_strings`` over ``paths``, counting how often the files were read."""

    def __init__(self, paths: list[Path]) -> None:
        self.paths = paths
        self.reads = 0

    def __call__(self) -> dict[str, str]:
        self.reads += 1
        return read_strings(self.paths)

    def kept(self) -> dict[str, str]:
        return content_cache.kept("strings.test", self.paths, self, to_json=dict,
                                  from_json=content_cache.string_table)


def copy_path() -> Path:
    return content_cache.folder() / "strings.test.json"


def test_a_copy_is_read_back_while_its_files_are_unchanged(sources: list[Path]) -> None:
    reader = Reader(sources)
    first = reader.kept()
    assert first == {"home.title": "Home", "home.quit": "Leave"}  # the later file wins
    assert copy_path().is_file()
    assert reader.kept() == first
    assert reader.reads == 1


def test_an_edited_or_added_file_is_read_again(sources: list[Path]) -> None:
    reader = Reader(sources)
    reader.kept()
    sources[1].write_text("home.quit: Go\n", encoding="utf-8")  # same size, newer
    stat = sources[1].stat()
    os.utime(sources[1], ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert reader.kept()["home.quit"] == "Go"
    extra = sources[0].with_name("c.en.yaml")
    extra.write_text("home.more: More\n", encoding="utf-8")
    reader.paths = [*sources, extra]
    assert reader.kept()["home.more"] == "More"
    assert reader.reads == 3


@pytest.mark.parametrize("damage", [
    b"{not json",
    b'{"key": [1], "value": {}}',
    json.dumps({"value": {"home.title": 3}}).encode(),
    b"[]",
])
def test_a_damaged_or_foreign_copy_is_replaced(sources: list[Path], damage: bytes) -> None:
    reader = Reader(sources)
    reader.kept()
    stored = json.loads(copy_path().read_bytes())
    if damage.startswith(b'{"value"'):  # the right key with a value of the wrong shape
        damage = json.dumps({"key": stored["key"], "value": {"home.title": 3}}).encode()
    copy_path().write_bytes(damage)
    assert reader.kept() == {"home.title": "Home", "home.quit": "Leave"}
    assert reader.reads == 2
    assert json.loads(copy_path().read_bytes()) == stored  # written anew


@pytest.mark.cold_deck_cache
def test_help_still_writes_nothing(tmp_path: Path) -> None:
    """``--help`` reads no strings, so it keeps no copy (nor any other file)."""
    home = tmp_path / "new-home"
    home.mkdir()
    env = {**os.environ, "STUDYAPP_HOME": str(home)}
    for args in (["--help"], ["calc", "--help"], ["stats", "--help"]):
        subprocess.run([sys.executable, "-m", "studyapp", *args], env=env, check=True,
                       capture_output=True, timeout=60)
    assert list(home.iterdir()) == []


def test_the_shipped_strings_and_headings_read_back_as_their_files_say() -> None:
    for lang in ("en", "es"):
        paths = sorted((locations.content_dir() / "i18n").glob(f"*.{lang}.yaml"))
        assert strings.__wrapped__(lang) == read_strings(paths)
        assert (content_cache.folder() / f"strings.{lang}.json").is_file()
        headings = read_headings(lang)
        assert len(headings) == 12
        assert post_headings.__wrapped__(lang) == headings
        copy = json.loads((content_cache.folder() / f"headings.{lang}.json").read_bytes())
        assert headings_from_json(copy["value"]) == headings


@pytest.mark.parametrize("row", [
    ["h200", "H200", "accelerators", "4", "tagline"],  # order as text
    ["h200", "H200", "accelerators", True, "tagline"],  # a bool is not an order
    ["h999", "H999", "accelerators", 4, "tagline"],  # not a post
    ["h200", "H200", "accelerators", 4],  # a field short
    {"slug": "h200"},
])
def test_a_heading_row_of_the_wrong_shape_discards_the_copy(row: object) -> None:
    good = ["h100", "H100", "accelerators", 3, "tagline"]
    assert headings_from_json([good]) == (PostHeading("h100", "H100", "accelerators", 3,
                                                      "tagline"),)
    assert headings_from_json([good, row]) is None


def test_the_app_paints_its_home_screen_without_pyyaml() -> None:
    """Once the copies exist, the strings and headings the home screen shows load no YAML
    parser (it cost 10 ms of the start)."""
    warm = ("from studyapp.i18n import strings\n"
            "from studyapp.tui.post_index import post_headings\n"
            "strings('en'); post_headings('en')\n")
    modules_after(warm)  # writes the copies
    loaded = modules_after("import studyapp.cli, studyapp.tui.app\n" + warm)
    assert "yaml" not in loaded

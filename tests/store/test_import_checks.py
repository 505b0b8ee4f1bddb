"""An export is someone else's file: every record is checked before anything is
written, review ids belong to one profile, and CSV cells never become formulas."""

from __future__ import annotations

import copy
import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from store_answers import answer

from studyapp.store import StoreError, open_store
from studyapp.store.progress import card_states, ensure_profile, record_answer, review_count
from studyapp.store.progress_files import import_progress, read_export, write_csv, write_json
from studyapp.text import csv_cell, guard_cell, unguard_cell

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _export(tmp_path: Path) -> dict[str, Any]:
    store = open_store(f"sqlite:///{tmp_path / 'source.sqlite3'}")
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        for n in range(3):
            record_answer(store, ana.id, answer("deck", f"c{n}", T0 + timedelta(minutes=n)))
        path = tmp_path / "good.json"
        with path.open("w", encoding="utf-8") as fh:
            write_json(store, ana, fh, T0)
    finally:
        store.close()
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


TAMPERED = [
    ("cards", 1, "stage", 99, "stage"),
    ("cards", 0, "stage", -1, "stage"),
    ("cards", 2, "stability", -3.0, "stability"),
    ("cards", 0, "stability", float("nan"), "stability"),
    ("reviews", 1, "rating", 99, "rating"),
    ("reviews", 2, "correct", "false", "correct"),
    ("reviews", 0, "duration_ms", -5, "duration_ms"),
    ("reviews", 1, "reviewed_at", "2999-01-01T00:00:00+00:00", "reviewed_at"),
    ("reviews", 2, "uid", None, "uid"),
    ("cards", 0, "reps", 10**30, "reps"),
    ("reviews", 0, "seed", 2**70, "seed"),
]


@pytest.mark.parametrize(("section", "index", "key", "value", "field"), TAMPERED)
def test_a_tampered_export_is_refused_whole_naming_record_and_field(
        tmp_path: Path, section: str, index: int, key: str, value: Any, field: str) -> None:
    data = copy.deepcopy(_export(tmp_path))
    if value is None:
        del data[section][index][key]
    else:
        data[section][index][key] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(StoreError) as caught:
        read_export(path)
    message = str(caught.value)
    assert f"{section}[{index}]" in message and repr(field) in message, message
    assert "\n" not in message


def test_a_bad_csv_line_is_named(tmp_path: Path) -> None:
    data = _export(tmp_path)
    store = open_store(f"sqlite:///{tmp_path / 'source.sqlite3'}")
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        path = tmp_path / "ana.csv"
        with path.open("w", encoding="utf-8", newline="") as fh:
            write_csv(store, ana, fh)
    finally:
        store.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + len(data["cards"]) + len(data["reviews"])
    lines[5] = lines[5].replace(",3,1,", ",7,1,", 1)  # a rating of 7
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(StoreError, match=r"line 6: field 'rating'"):
        read_export(path)


def test_nothing_is_imported_from_a_file_with_one_bad_record(tmp_path: Path) -> None:
    data = _export(tmp_path)
    data["reviews"][-1]["rating"] = 0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    target = open_store(f"sqlite:///{tmp_path / 'target.sqlite3'}")
    try:
        ben = ensure_profile(target, "ben", {}, T0)
        with pytest.raises(StoreError):
            import_progress(target, ben.id, read_export(path))
        assert review_count(target, ben.id) == 0 and card_states(target, ben.id) == {}
    finally:
        target.close()


def test_a_utf8_bom_is_accepted(tmp_path: Path) -> None:
    data = _export(tmp_path)
    path = tmp_path / "bom.json"
    path.write_text("\ufeff" + json.dumps(data), encoding="utf-8")
    assert len(read_export(path).reviews) == 3


def test_an_export_imports_into_another_profile_of_the_same_database(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'class.sqlite3'}")
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        for n in range(4):
            record_answer(store, ana.id, answer("deck", f"c{n % 2}", T0 + timedelta(hours=n),
                                                reps=n // 2 + 1))
        path = tmp_path / "ana.json"
        with path.open("w", encoding="utf-8") as fh:
            write_json(store, ana, fh, T0)
        ben = ensure_profile(store, "ben", {}, T0)
        result = import_progress(store, ben.id, read_export(path))
        assert (result.reviews_added, result.reviews_skipped) == (4, 0)
        assert review_count(store, ben.id) == 4 and review_count(store, ana.id) == 4
        again = import_progress(store, ben.id, read_export(path))
        assert (again.reviews_added, again.reviews_skipped) == (0, 4)
        assert {k: r.reps for k, r in card_states(store, ben.id).items()} == {
            ("deck", "c0"): 2, ("deck", "c1"): 2}
    finally:
        store.close()


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "export.json"
    os.mkfifo(fifo)
    with pytest.raises(StoreError, match="not a regular file"):
        read_export(fifo)


@pytest.mark.parametrize("text", ["=HYPERLINK(\"http://x\")", "+1", "-2+3", "@SUM(A1)",
                                  "'=quoted", "''", "plain", "", "'", "\tx"])
def test_csv_cells_never_start_a_formula_and_read_back_exactly(text: str) -> None:
    guarded = guard_cell(text)
    assert not guarded.startswith(("=", "+", "-", "@", "\t"))
    assert unguard_cell(guarded) == text


def test_csv_cell_makes_terminal_escapes_visible() -> None:
    assert csv_cell("\x1b]52;c;aGk=\x07evil") == "\\x1b]52;c;aGk=\\x07evil"
    assert csv_cell(-3) == -3


def test_csv_export_round_trips_text_that_looks_like_a_formula(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'source.sqlite3'}")
    try:
        ana = ensure_profile(store, "=cmd|' /C calc'!A0", {}, T0)
        base = answer("deck", "c0", T0)
        from dataclasses import replace

        record_answer(store, ana.id, replace(base, response="-1+1", prompt="@here"))
        path = tmp_path / "ana.csv"
        with path.open("w", encoding="utf-8", newline="") as fh:
            write_csv(store, ana, fh)
        text = path.read_text(encoding="utf-8")
        assert ",=" not in text and ",-1+1" not in text and ",@here" not in text
        export = read_export(path)
        assert export.profile == "=cmd|' /C calc'!A0"
        assert (export.reviews[0]["response"], export.reviews[0]["prompt"]) == ("-1+1", "@here")
    finally:
        store.close()


@pytest.mark.parametrize("body", [
    "[" * 100_000 + "]" * 100_000,
    '{"format": "studyapp-progress", "settings": ' + "[" * 100_000 + "]" * 100_000 + "}",
])
def test_json_nested_past_the_limit_is_refused_in_one_line(tmp_path: Path, body: str) -> None:
    path = tmp_path / "deep.json"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(StoreError, match="nested more than 64 deep"):
        read_export(path)


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    from studyapp.store.progress_files import json_depth

    assert json_depth('{"a": [1, {"b": "[[[\\"[{"}]}') == 3
    assert json_depth("[" * 70 + "]" * 70) == 70


def test_a_csv_cell_past_the_csv_limit_is_a_clear_refusal(tmp_path: Path) -> None:
    path = tmp_path / "huge.csv"
    path.write_text("profile,record\n\"" + "x" * 200_000 + "\",card\n", encoding="utf-8")
    with pytest.raises(StoreError, match="not a CSV studyapp progress export"):
        read_export(path)

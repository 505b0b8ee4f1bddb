"""A course-deck class works from files too: a course deck's cards name no post, and the
export, import and ``class report FILE`` take them; the report has rows only for the
posts the class studies."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner
from store_answers import answer

from studyapp.cli import main
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, record_answer

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

COURSE = """\
deck: ai-systems
title: AI systems
language: en
cards:
""" + "".join(f"""\
  - id: fact-{n}
    type: truefalse
    prompt: "Systems fact {n} holds."
    answer: true
""" for n in range(3))


def test_export_import_and_class_report_files_for_a_course_deck(tmp_path: Path) -> None:
    deck = tmp_path / "ai-systems.yaml"
    deck.write_text(COURSE, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'ana.sqlite3'}"
    env = {"STUDYAPP_HOME": str(tmp_path / "home"), "STUDYAPP_DB": url}
    store = open_store(url)
    try:
        pid = ensure_profile(store, "ana", {}, T0).id
        for n in range(3):
            record_answer(store, pid, answer("ai-systems", f"fact-{n}", T0 + timedelta(minutes=n),
                                             post="", stage=1, correct=n != 1))
    finally:
        store.close()
    runner = CliRunner()
    added = runner.invoke(main, ["--lang", "en", "deck", "add", str(deck)], env=env)
    assert added.exit_code == 0, added.output
    out = tmp_path / "ana.json"
    exported = runner.invoke(main, ["--lang", "en", "--profile", "ana", "export", "--format",
                                    "json", "-o", str(out)], env=env)
    assert exported.exit_code == 0, exported.output
    assert json.loads(out.read_text(encoding="utf-8"))["cards"][0]["post"] == ""
    other = {**env, "STUDYAPP_DB": f"sqlite:///{tmp_path / 'bo.sqlite3'}"}
    imported = runner.invoke(main, ["--lang", "en", "--profile", "bo", "import", str(out)],
                             env=other)
    assert imported.exit_code == 0, imported.output
    report = runner.invoke(main, ["--lang", "en", "class", "report", str(out)], env=env)
    assert report.exit_code == 0, report.output
    assert "ai-systems/fact-1" in report.stdout
    assert "hbm-kv-cache" not in report.stdout  # no row for a post the class never studied
    as_json = runner.invoke(main, ["--lang", "en", "class", "report", "--json", str(out)],
                            env=env)
    items = {i["card"]: i for i in json.loads(as_json.stdout)["items"]}
    assert items["fact-1"]["first_try_accuracy"] == 0.0 and items["fact-0"]["students"] == 1

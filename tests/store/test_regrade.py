"""Regrade: a mis-keyed true/false card is flagged "check the key"; once its key is fixed
and the deck published again, the class's stored answers are graded again, the publish
says how many verdicts changed, and the report reads the new verdicts."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner
from store_answers import answer

from studyapp.cli import main
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, record_answer

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

DECK = """\
deck: course-hbm
title: HBM course
language: en
post: hbm-kv-cache
cards:
  - id: tf-key
    type: truefalse
    prompt: "HBM3e stacks are wider than 4096 bits per stack."
    answer: {key}
""" + "".join(f"""\
  - id: sound-{j}
    type: truefalse
    prompt: "Sound fact {j} holds."
    answer: true
""" for j in range(4))


def _cli(env: dict[str, str], *args: str) -> str:
    result = CliRunner().invoke(main, ["--lang", "en", "--profile", "teacher", *args], env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_fixed_key_regrades_the_class_answers(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    source = tmp_path / "course-hbm.yaml"
    source.write_text(DECK.format(key="true"), encoding="utf-8")  # mis-keyed: it is false
    env = {"STUDYAPP_HOME": str(tmp_path / "home"), "STUDYAPP_DB": url}
    _cli(env, "deck", "publish", str(source))
    store = open_store(url)
    try:
        for s in range(10):  # s0 the weakest ... s9 the strongest
            pid = ensure_profile(store, f"s{s}", {}, T0).id
            at = T0 + timedelta(minutes=s)
            for j in range(4):
                ok = s >= 2 * j + 1
                record_answer(store, pid, replace(
                    answer("course-hbm", f"sound-{j}", at, post="hbm-kv-cache", stage=1),
                    response="true" if ok else "false", correct=ok, seed=0,
                    params={} if ok else {"answer_slips": []}))
            said = "true" if s < 3 else "false"  # the seven strongest know it is false
            record_answer(store, pid, replace(
                answer("course-hbm", "tf-key", at, post="hbm-kv-cache", stage=1),
                response=said, correct=said == "true", seed=0,
                params={} if said == "true" else {"answer_slips": []}))
    finally:
        store.close()
    before = json.loads(_cli(env, "class", "report", "--json"))
    assert [i["card"] for i in before["check_key"]] == ["tf-key"]

    source.write_text(DECK.format(key="false"), encoding="utf-8")
    published = _cli(env, "deck", "publish", str(source))
    assert "regraded the class's 50 answers" in published
    assert "10 verdicts changed (7 now right, 3 now wrong)" in published

    after = json.loads(_cli(env, "class", "report", "--json"))
    key = next(i for i in after["items"] if i["card"] == "tf-key")
    assert key["first_try_accuracy"] == 0.7 and key["flags"] == []
    assert after["check_key"] == [] and "tf-key" not in {i["card"] for i in after["reteach"]}
    assert {(r["answer"], r["verdict"]) for r in key["responses"]} == {
        ("false", "right"), ("true", "wrong")}
    again = _cli(env, "class", "regrade", "course-hbm")
    assert "50 answers graded again" in again and "0 verdicts changed" in again

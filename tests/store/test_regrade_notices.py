"""A regrade tells each student whose answer it changed, once, either way; ``deck add`` of a
deck whose key changed regrades the stored answers as a publish does."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner
from store_answers import answer

from studyapp.cli import main
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, record_answer
from studyapp.study import StudyConfig, StudyService, take_regrade_notices

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
  - id: sound
    type: truefalse
    prompt: "HBM sits beside the GPU die."
    answer: true
"""

RIGHT_NOW = 'Regraded: your answer "false" to "HBM3e stacks are wider than 4096 bits per stack."'
WRONG_NOW = 'Regraded: your answer "true" to "HBM3e stacks are wider than 4096 bits per stack."'


def _cli(env: dict[str, str], profile: str, *args: str) -> str:
    result = CliRunner().invoke(main, ["--lang", "en", "--profile", profile, *args], env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


def _answers(url: str, said: dict[str, str]) -> None:
    """Each student's answer to the mis-keyed card (keyed true: "true" is marked right)."""
    store = open_store(url)
    try:
        for name, response in said.items():
            pid = ensure_profile(store, name, {}, T0).id
            record_answer(store, pid, replace(
                answer("course-hbm", "tf-key", T0, post="hbm-kv-cache", stage=1),
                response=response, correct=response == "true", seed=0,
                params={} if response == "true" else {"answer_slips": []}))
    finally:
        store.close()


def test_a_regraded_answer_is_told_to_its_student_once_either_way(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    source = tmp_path / "course-hbm.yaml"
    source.write_text(DECK.format(key="true"), encoding="utf-8")  # mis-keyed: it is false
    env = {"STUDYAPP_HOME": str(tmp_path / "home"), "STUDYAPP_DB": url}
    _cli(env, "teacher", "deck", "publish", str(source))
    _answers(url, {"strong": "false", "weak": "true", "unchanged": "true"})
    assert RIGHT_NOW not in _cli(env, "strong", "stats")  # nothing regraded yet

    source.write_text(DECK.format(key="false"), encoding="utf-8")
    assert "3 verdicts changed (1 now right, 2 now wrong)" in _cli(
        env, "teacher", "deck", "publish", str(source))

    told = _cli(env, "strong", "stats")
    assert told.count(RIGHT_NOW) == 1 and "(2026-03-02) was right." in told
    assert RIGHT_NOW not in _cli(env, "strong", "stats")  # once: then it is seen
    weak = _cli(env, "weak", "--lang", "es", "stats")
    assert ('Corrección revisada: tu respuesta «true» a «HBM3e stacks are wider than 4096 bits '
            'per stack.» (2026-03-02) no era correcta.') in weak
    # the study session's start (TUI home and plain mode read the same notices)
    service = StudyService(StudyConfig(db_url=url, profile="unchanged", lang="en"))
    try:
        lines = take_regrade_notices(service, "en")
        assert [line.startswith(WRONG_NOW) and "was not right after all" in line
                for line in lines] == [True]
        assert take_regrade_notices(service, "en") == []
    finally:
        service.close()


def test_a_change_undone_before_it_was_told_says_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    source = tmp_path / "course-hbm.yaml"
    env = {"STUDYAPP_HOME": str(tmp_path / "home"), "STUDYAPP_DB": url}
    source.write_text(DECK.format(key="true"), encoding="utf-8")
    _cli(env, "teacher", "deck", "publish", str(source))
    _answers(url, {"strong": "false"})
    for key in ("false", "true"):  # fixed, then put back before the student opened the app
        source.write_text(DECK.format(key=key), encoding="utf-8")
        assert "1 verdicts changed" in _cli(env, "teacher", "deck", "publish", str(source))
    assert "Regraded" not in _cli(env, "strong", "stats")


def test_deck_add_of_a_fixed_key_regrades_the_stored_answers(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'me.sqlite3'}"
    source = tmp_path / "course-hbm.yaml"
    env = {"STUDYAPP_HOME": str(tmp_path / "home"), "STUDYAPP_DB": url}
    source.write_text(DECK.format(key="true"), encoding="utf-8")
    first = _cli(env, "me", "deck", "add", str(source))
    assert "Installed deck course-hbm" in first and "regraded" not in first  # no answers yet
    _answers(url, {"me": "false"})

    source.write_text(DECK.format(key="false"), encoding="utf-8")
    added = _cli(env, "me", "deck", "add", "--replace", str(source))
    assert ("regraded the 1 stored answers to this deck against its keys: 1 verdicts changed "
            "(1 now right, 0 now wrong)") in added
    again = _cli(env, "me", "deck", "add", "--replace", str(source))
    assert "1 stored answers" in again and "0 verdicts changed" in again
    assert RIGHT_NOW in _cli(env, "me", "stats")

"""Mock exams handed in are kept per profile and database, and listed in progress."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from studyapp.cli import main
from studyapp.study import StudyConfig, StudyService
from studyapp.study.exam_log import exam_fields, log_path

START = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def make(tmp_path: Path, clock: Clock, profile: str = "ana") -> StudyService:
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile=profile, clock=clock))


def hand_in_blank(service: StudyService, clock: Clock, seed: int) -> None:
    sheet = service.exam(("hbm-kv-cache", "hgx"), count=4, minutes=30, seed=seed)
    assert sheet.items
    clock.now += timedelta(minutes=5)
    assert service.record_exam(sheet.hand_in(clock.now))


def test_papers_are_read_back_newest_first_for_their_profile_only(tmp_path: Path) -> None:
    clock = Clock()
    service = make(tmp_path, clock)
    hand_in_blank(service, clock, seed=1)
    clock.now += timedelta(days=1)
    hand_in_blank(service, clock, seed=2)
    kept = service.exams()
    assert [e["handed_in_at"] for e in kept] == [
        (START + timedelta(days=1, minutes=10)).isoformat(),
        (START + timedelta(minutes=5)).isoformat()]
    first = kept[0]
    assert first["out_of"] == 4 and first["score"] == 0 and first["share"] == 0
    assert sum(p["out_of"] for p in first["posts"]) == 4
    assert "questions" not in first  # prompts and solutions are not kept
    assert exam_fields(first, "en")["date"] == "2026-12-08"
    assert make(tmp_path, clock, profile="bea").exams() == []
    path = log_path("ana", service.config.url)
    assert "ana" in path.name and path.name != log_path("ana", "sqlite:///other").name


def test_a_corrupt_line_is_skipped(tmp_path: Path) -> None:
    clock = Clock()
    service = make(tmp_path, clock)
    hand_in_blank(service, clock, seed=1)
    path = log_path("ana", service.config.url)
    with path.open("a", encoding="utf-8") as out:
        out.write('{"handed_in_at": "2027-01-01", "score": \n')  # cut short
        out.write('[1, 2]\n{"handed_in_at": "2027-01-02", "score": "x", "out_of": 3, '
                  '"share": 0}\n\xff garbage\n')
    clock.now += timedelta(hours=1)
    hand_in_blank(service, clock, seed=2)
    kept = service.exams()
    assert len(kept) == 2
    assert kept[0]["handed_in_at"] > kept[1]["handed_in_at"]


def test_the_plain_exam_keeps_its_result_and_stats_lists_it(tmp_path: Path) -> None:
    env = {"STUDYAPP_DB": f"sqlite:///{tmp_path / 'cli.sqlite3'}", "STUDYAPP_PROFILE": "ana"}
    runner = CliRunner()
    args = ["--lang", "en", "exam", "--plain", "--count", "3", "--posts", "hbm-kv-cache",
            "--seed", "1"]
    done = runner.invoke(main, args, input="\n" * 20, env=env)  # every question left blank
    assert done.exit_code == 0, done.output
    stats = runner.invoke(main, ["--lang", "en", "stats", "--json"], env=env)
    assert stats.exit_code == 0, stats.output
    exams = json.loads(stats.output)["exams"]
    assert len(exams) == 1
    assert exams[0]["out_of"] == 3 and exams[0]["score"] == 0
    assert [p["post"] for p in exams[0]["posts"]] == ["hbm-kv-cache"]
    text = runner.invoke(main, ["--lang", "en", "stats"], env=env)
    assert text.exit_code == 0, text.output
    assert "Mock exams" in text.output and "0/3 (0%)" in text.output


def test_the_plain_exam_counts_its_answers_only_when_asked(tmp_path: Path) -> None:
    env = {"STUDYAPP_DB": f"sqlite:///{tmp_path / 'cli.sqlite3'}", "STUDYAPP_PROFILE": "ana"}
    runner = CliRunner()
    args = ["--lang", "en", "exam", "--plain", "--count", "3", "--posts", "hbm-kv-cache",
            "--seed", "1"]
    wrong = "1\n" * 20  # readable where a number or a choice is asked: wrong, or not
    for extra, reviews in (([], 0), (["--count-as-reviews"], 1)):
        done = runner.invoke(main, [*args, *extra], input=wrong, env=env)
        assert done.exit_code == 0, done.output
        stats = json.loads(runner.invoke(main, ["stats", "--json"], env=env).output)
        assert (stats["reviews_total"] > 0) is bool(reviews)

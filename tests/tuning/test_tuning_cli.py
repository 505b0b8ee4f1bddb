"""The export, optimize and plan commands as a user runs them: exit codes, JSON keys, files."""

from __future__ import annotations

import json
import re
import zipfile
from datetime import date, timedelta
from pathlib import Path

from click.testing import CliRunner, Result

from studyapp.cli import main
from studyapp.study import StudyConfig, StudyService


def run(tmp_path: Path, *args: str) -> Result:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return CliRunner().invoke(main, ["--db", db, "--lang", "en", *args])


def test_export_apkg_writes_a_package_and_csv_still_refuses_apkg_options(tmp_path: Path) -> None:
    target = tmp_path / "h200.apkg"
    result = run(tmp_path, "export", "--format", "apkg", "-o", str(target), "--post", "h200",
                 "--instances", "2")
    assert result.exit_code == 0, result.output
    assert "Exported" in result.output
    assert "collection.anki2" in zipfile.ZipFile(target).namelist()
    assert run(tmp_path, "export", "--format", "apkg").exit_code == 2  # needs -o
    assert run(tmp_path, "export", "--format", "apkg", "-o", str(target),
               "--deck", "no-such-deck").exit_code == 1
    assert run(tmp_path, "export", "--format", "csv", "--post", "h200").exit_code == 2
    plain = run(tmp_path, "export", "--format", "json")
    assert plain.exit_code == 0 and json.loads(plain.output)["format"] == "studyapp-progress"
    assert "exam_date" not in json.loads(plain.output)["settings"]


def test_optimize_and_plan_json_keys(tmp_path: Path) -> None:
    optimized = run(tmp_path, "optimize", "--json")
    assert optimized.exit_code == 0, optimized.output
    data = json.loads(optimized.output)
    assert {"reviews", "saved", "log_loss_default", "log_loss_fitted", "rmse_default",
            "rmse_fitted", "parameters"} <= set(data)
    assert data["reviews"] == 0 and data["saved"] is False and len(data["parameters"]) == 21
    exam = (date.today() + timedelta(days=60)).isoformat()
    planned = run(tmp_path, "plan", "--exam", exam, "--json")
    assert planned.exit_code == 0, planned.output
    plan = json.loads(planned.output)
    assert set(plan) >= {"exam", "days_left", "new_left", "new_per_day", "reviews_per_day",
                         "predicted_recall"}  # the fixed keys, and more
    assert {"peak_reviews", "too_close"} <= set(plan)
    assert plan["exam"] == exam and plan["new_per_day"] > 0
    applied = run(tmp_path, "plan", "--exam", exam, "--apply")
    assert applied.exit_code == 0 and f"{plan['new_per_day']} new cards per day" in \
        applied.output
    assert json.loads(run(tmp_path, "plan", "--json").output)["exam"] == exam  # saved date
    assert run(tmp_path, "plan", "--exam", "2000-01-01").exit_code == 1
    assert run(tmp_path, "plan", "--clear").exit_code == 0
    assert run(tmp_path, "plan").exit_code == 2


def test_an_exam_too_close_warns_and_clear_restores_the_limit(tmp_path: Path) -> None:
    """An exam in two days printed 182 new a day and 94.2% with no warning; an exam
    tomorrow 100.0%; and --apply then --clear left the limit at 216."""
    assert run(tmp_path, "plan", "--exam",
               (date.today() + timedelta(days=60)).isoformat()).exit_code == 0
    soon = (date.today() + timedelta(days=2)).isoformat()
    shown = run(tmp_path, "plan", "--exam", soon)
    assert shown.exit_code == 0, shown.output
    assert "Too close to see everything a week before:" in shown.output
    assert "(a week before the exam)" not in shown.output  # it is two days, not a week
    assert "Days to see them all (every day left)  2" in shown.output
    data = json.loads(run(tmp_path, "plan", "--exam", soon, "--json").output)
    assert data["too_close"] is True and data["predicted_recall"] < 1
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    assert "100.0%" not in run(tmp_path, "plan", "--exam", tomorrow).output
    applied = run(tmp_path, "plan", "--exam", soon, "--apply")
    assert applied.exit_code == 0 and "20 new cards per day" not in applied.output
    run(tmp_path, "plan", "--exam", tomorrow, "--apply")  # applied twice: 20 is still kept
    cleared = run(tmp_path, "plan", "--clear")
    assert cleared.exit_code == 0 and "20 new cards per day again" in cleared.output
    assert run(tmp_path, "plan", "--json").exit_code == 2  # no saved exam any more
    es = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                   "--lang", "es", "plan", "--exam", soon])
    assert "Demasiado cerca" in es.output
    # Spanish figures: a decimal comma, "92,8 %", as everywhere else in Spanish
    assert re.search(r"Recuerdo previsto el día del examen +\d+,\d\u00a0%", es.output)
    assert re.search(r"Repasos esperados por día +\d+,\d\n", es.output)
    assert not re.search(r"\d\.\d", es.output.split("Examen", 1)[1].split("\n", 1)[1])


def _dues(db: Path) -> dict[str, str]:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT card_key, due FROM card_states"))


def _rescheduled(db: Path) -> list[tuple[int, int]]:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT kind, interval FROM schedule_changes"))


def test_optimize_keeps_due_dates_reschedule_moves_them_ignore_before_is_saved(
        tmp_path: Path) -> None:
    """A learner moving from Anki: optimize recomputes memory states and keeps every due
    date; --reschedule moves them; --ignore-before leaves older answers out and stays set;
    the health check is in the JSON."""
    from learner_sim import START, simulate_learner, store_history

    db = tmp_path / "study.sqlite3"
    store_history(f"sqlite:///{db}", "default", simulate_learner(cards=300, days=120))
    before = _dues(db)
    first = run(tmp_path, "optimize", "--json")
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert data["saved"] and data["recomputed"] == len(before)
    assert data["ignore_before"] is None
    assert data["health_check"]["passed"] is True
    assert {"log_loss", "rmse_bins", "retention", "adjusted_log_loss",
            "adjusted_rmse"} <= set(data["health_check"])
    assert _dues(db) == before  # memory states recomputed, due dates kept
    assert _rescheduled(db) == []
    undone = run(tmp_path, "optimize", "--undo", "--reschedule")
    assert undone.exit_code == 0, undone.output
    moved = _dues(db)
    assert sum(moved[key] != before[key] for key in before) > len(before) // 2
    logged = _rescheduled(db)  # each move logged, as Anki logs it in its review log
    assert len(logged) >= sum(moved[key] != before[key] for key in before)
    assert all(kind == 5 and days >= 1 for kind, days in logged)
    cut = (START + timedelta(days=40)).date().isoformat()
    later = run(tmp_path, "optimize", "--json", "--ignore-before", cut)
    assert later.exit_code == 0, later.output
    ignoring = json.loads(later.output)
    assert ignoring["ignore_before"] == cut
    assert 0 < ignoring["items"] < data["items"]  # cards learnt before the day left out
    assert _dues(db) == moved
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db}"))
    try:
        assert service.settings.ignore_reviews_before == cut  # as Anki keeps it in the preset
    finally:
        service.close()
    assert run(tmp_path, "optimize", "--ignore-before", "yesterday").exit_code == 2
    assert run(tmp_path, "optimize", "--ignore-before", "2999-01-01").exit_code == 2
    assert run(tmp_path, "optimize", "--reschedule", "--keep-due").exit_code == 2

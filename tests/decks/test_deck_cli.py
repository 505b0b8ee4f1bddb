"""``studyapp deck ...``: exit codes, output forms, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from deck_texts import HEADER, VALID_DECK, write

from studyapp.cli import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user folder of its own, so installed decks land in the test's folder."""
    folder = tmp_path / "home"
    monkeypatch.setenv("STUDYAPP_HOME", str(folder))
    return folder


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["--lang", "en", *args])


def test_validate_clean_deck_exits_0(tmp_path: Path) -> None:
    result = run("deck", "validate", str(write(tmp_path, VALID_DECK)))
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "1 deck file(s) checked: no problems"


def test_validate_reports_every_problem_and_exits_1(tmp_path: Path) -> None:
    bad = write(tmp_path, HEADER + """\
  - id: a
    type: choice
    prompt: p
    choices: [x, y]
    answer: z
  - id: b
    type: numeric
    prompt: p
    answer: "1 / 0"
""", "bad.yaml")
    good = write(tmp_path, VALID_DECK, "good.yaml")
    result = run("deck", "validate", str(bad), str(good))
    assert result.exit_code == 1
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert lines[0].startswith(f"{bad}:10:13: answer 'z' is not among the choices")
    assert lines[1].startswith(f"{bad}:14:13: division by zero")
    assert lines[2] == "2 deck file(s) checked: 2 problem(s)"
    assert "Traceback" not in result.output


def test_validate_folder_and_missing_path(tmp_path: Path) -> None:
    write(tmp_path, "deck: [\n", "broken.yaml")
    result = run("deck", "validate", str(tmp_path), str(tmp_path / "missing.yaml"))
    assert result.exit_code == 1
    assert f"{tmp_path / 'broken.yaml'}:2:1: malformed YAML" in result.output
    assert f"{tmp_path / 'missing.yaml'}:1:1: no such file or folder" in result.output


def test_validate_without_paths_is_a_usage_error() -> None:
    assert run("deck", "validate").exit_code == 2


def test_schema_is_json_schema() -> None:
    result = run("deck", "schema")
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["type"] == "object"
    assert set(schema["required"]) >= {"deck", "title", "language", "cards"}
    # a course deck names no post and carries its course and summary
    assert "post" not in schema["required"]
    assert {"post", "course", "summary", "cards"} <= set(schema["properties"])
    assert "from" in json.dumps(schema)


def test_preview_shows_questions(tmp_path: Path) -> None:
    path = write(tmp_path, VALID_DECK)
    result = CliRunner().invoke(main, ["--lang", "es", "deck", "preview", str(path), "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "KV cache drill" not in result.output and "Práctica de KV cache" in result.output
    # numbered as the study faces number them, in the order study shows them for seed 3
    assert "  * 4) HBM3e" in result.output and "Respuesta: 4) HBM3e" in result.output
    assert "    1) HBM3\n" in result.output
    assert "¿Qué significa HBM?" in result.output
    assert "Respuesta:" in result.output and "Explicación:" in result.output
    one = run("deck", "preview", str(path), "--card", "kv-per-token", "--seed", "1")
    assert one.exit_code == 0
    assert "[kv-per-token]" in one.output and "[hbm-on-h200]" not in one.output
    assert run("deck", "preview", str(path), "--seed", "1").output == run(
        "deck", "preview", str(path), "--seed", "1").output


def test_preview_with_a_stored_seed_shows_the_question_study_showed(
        tmp_path: Path, home: Path) -> None:
    """Each answer stores its card's draw seed; previewing with it shows that question again."""
    path = write(tmp_path, VALID_DECK)
    assert run("deck", "add", str(path)).exit_code == 0
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    studied = CliRunner().invoke(main, ["--db", url, "--lang", "en", "study", "--deck",
                                        "kv-cache-drill", "--plain", "--seed", "7", "--limit",
                                        "4"], input="1\n" * 40)
    assert studied.exit_code == 0, studied.output
    exported = run("--db", url, "export", "--format", "json")
    reviews = json.loads(exported.output)["reviews"]
    assert {r["card_key"] for r in reviews} == {"hbm-on-h200", "kv-per-token", "big-gpu",
                                                "hbm-acronym"}
    for review in reviews:
        shown = run("deck", "preview", str(path), "--card", review["card_key"], "--seed",
                    str(review["seed"]))
        assert shown.exit_code == 0, shown.output
        lines = shown.output.splitlines()
        assert lines[3] == review["prompt"]
        if "shown_choices" in review["params"]:  # the choices, in the order the learner saw
            assert [line[4:] for line in lines[4:8]] == [
                f"{n}) {choice}" for n, choice in enumerate(review["params"]["shown_choices"], 1)]
            assert review["params"]["shown_choices"] != ["HBM3", "HBM3e", "GDDR7", "LPDDR5X"]
        # a card's history names the seed to preview it with
        history = run("--db", url, "stats", "--card", f"kv-cache-drill/{review['card_key']}")
        assert f"seed {review['seed']} " in " ".join(history.output.split())
        if "shown_choices" in review["params"]:  # numbered as the options were shown
            number = review["params"]["shown_choices"].index("HBM3e") + 1
            assert f"expected '{number}) HBM3e'" in history.output
            assert review["expected"] == f"{'abcd'[number - 1]}) HBM3e"  # as stored


def test_preview_help_says_which_seed_it_takes() -> None:
    text = " ".join(run("deck", "preview", "--help").output.split())
    assert "stored with each answer" in text and "studyapp study --seed N" in text


def test_preview_errors(tmp_path: Path) -> None:
    path = write(tmp_path, VALID_DECK)
    missing = run("deck", "preview", str(path), "--card", "nope")
    assert missing.exit_code == 1 and "no card nope" in missing.output
    broken = run("deck", "preview", str(write(tmp_path, "deck: [", "b.yaml")))
    assert broken.exit_code == 1 and "malformed YAML" in broken.output


def test_add_then_list(tmp_path: Path, home: Path) -> None:
    result = run("deck", "add", str(write(tmp_path, VALID_DECK, "mine.yaml")))
    assert result.exit_code == 0, result.output
    installed = home / "data" / "decks" / "kv-cache-drill.yaml"
    assert installed.read_text(encoding="utf-8") == VALID_DECK
    assert str(installed) in result.output
    (installed.parent / "broken.yaml").write_text("deck: [\n", encoding="utf-8")
    listing = run("deck", "list")
    assert listing.exit_code == 0
    mine = next(line for line in listing.output.splitlines() if "kv-cache-drill" in line)
    assert "user" in mine and "4 cards" in mine and " ok " in mine
    broken = next(line for line in listing.output.splitlines() if line.startswith("broken "))
    assert "broken" in broken.split()[1:]
    data = json.loads(run("deck", "list", "--json").output)
    statuses = {d["id"]: d["status"] for d in data if d["source"] == "user"}
    assert statuses == {"kv-cache-drill": "ok", "broken": "broken"}


def test_add_refuses_a_broken_deck(tmp_path: Path, home: Path) -> None:
    result = run("deck", "add", str(write(tmp_path, HEADER + "  - {id: a}\n")))
    assert result.exit_code == 1
    assert "missing required key 'type'" in result.output
    assert not (home / "data" / "decks").exists()


def test_deck_help_names_only_commands_that_exist() -> None:
    from click.testing import CliRunner

    from studyapp.cli import main

    result = CliRunner().invoke(main, ["deck", "--help"])
    assert result.exit_code == 0
    summary = result.output.split("Options:")[0]
    assert "check" not in summary and "validate" in summary
    for word in ("validate", "preview", "add", "list", "enable", "disable"):
        assert CliRunner().invoke(main, ["deck", word, "--help"]).exit_code == 0


def test_deck_list_shows_draws_skipped_at_study_time(home: Path) -> None:
    from studyapp.decks.draw_log import record

    record("numeric-drill", "kv-per-token", "deck.yaml:14:5",
           "division by zero in '1 / (n - 5)' (n=5)")
    listed = run("deck", "list")
    assert "skipped at study time (1×): card kv-per-token" in listed.output
    assert "(n=5)" in listed.output
    as_json = json.loads(run("deck", "list", "--json").output)
    drill = next(d for d in as_json if d["id"] == "numeric-drill")
    assert drill["draw_problems"][0]["times"] == 1

"""Every number a command takes is finite and within its range, named when it is not.

Click's ranges let NaN through (every comparison with NaN is false), and a
count with no top reaches the store as a float; these run the real command.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.cli import main


def run(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--lang", "en", *args],
                                env={"STUDYAPP_HOME": str(home), "STUDYAPP_DB": None})
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    return result.exit_code, result.output


FIT = ["calc", "fit", "--model", "llama-3.1-8b", "--gpu", "h100-sxm"]
DECODE = ["calc", "decode", "--model", "llama-3.1-8b"]


@pytest.mark.parametrize(("args", "option", "why"), [
    ([*FIT, "--usable-fraction", "nan"], "--usable-fraction", "not a finite number"),
    ([*FIT, "--usable-fraction", "NaN"], "--usable-fraction", "not a finite number"),
    ([*DECODE, "--memory-gb", "80", "--bandwidth-tb-s", "nan", "--tflops", "1"],
     "--bandwidth-tb-s", "not a finite number"),
    ([*DECODE, "--gpu", "h100-sxm", "--tflops", "inf"], "--tflops", "not a finite number"),
    ([*DECODE, "--gpu", "h100-sxm", "--tflops", "-Infinity"], "--tflops", "not a finite"),
    (["calc", "train", "--params", "7e9", "--tokens", "1e12", "--tflops", "1e308"],
     "--tflops", "past the largest value"),
    (["study", "--plain", "--more-new", "99999999999999999999999"], "--more-new",
     "past the largest value"),
])
def test_non_finite_and_huge_numbers_are_refused_by_name(
        tmp_path: Path, args: list[str], option: str, why: str) -> None:
    code, output = run(tmp_path, *args)
    assert code == 2, output
    assert option in output and why in output
    assert "Traceback" not in output


@pytest.mark.parametrize(("args", "option", "why"), [
    (["calc", "train", "--params", "1e308", "--tokens", "1e12", "--tflops", "900"],
     "--params", "past the largest count"),
    (["calc", "train", "--params", "7e9", "--tokens", "1e308", "--tflops", "900"],
     "--tokens", "past the largest count"),
    ([*FIT[:2], "--params", "nan", "--gpu", "h200-sxm"], "--params", "is not a count"),
    ([*FIT[:2], "--params", "1e400", "--gpu", "h200-sxm"], "--params", "positive number"),
])
def test_a_count_past_the_calculator_is_one_line_naming_its_option(
        tmp_path: Path, args: list[str], option: str, why: str) -> None:
    code, output = run(tmp_path, *args)
    assert code == 1
    assert output.startswith(f"studyapp: {option}: ") and why in output
    assert output.count("\n") == 1


def test_an_exam_past_the_calendar_is_refused(tmp_path: Path) -> None:
    code, output = run(tmp_path, "plan", "--exam", "9999-12-31")
    assert code == 2
    assert "more than 10 years away" in output


def test_an_invalid_postgresql_url_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--lang", "en", "stats"],
                                env={"STUDYAPP_HOME": str(tmp_path),
                                     "STUDYAPP_DB": "postgresql://u:secret@host:abc/db"})
    code, output = result.exit_code, result.output
    assert code == 1
    assert "is not a database URL (its port is not a number)" in output
    assert "'postgresql://u:***@host:abc/db'" in output and "secret" not in output
    assert "Traceback" not in output


def test_a_card_query_nested_past_the_limit_points_at_the_column(tmp_path: Path) -> None:
    query = "(" * 300 + "post:h200" + ")" * 300
    code, output = run(tmp_path, "cards", query)
    assert code != 0
    assert "more than 32 nested" in output and "column 33" in output


def test_every_numeric_option_of_every_command_is_guarded() -> None:
    import click

    from studyapp.cli import COMMANDS
    from studyapp.cli.bounds import Bounded

    ctx = click.Context(main)
    unguarded = []

    def walk(command: click.Command, path: str) -> None:
        for param in command.params:
            kind = param.type
            if isinstance(kind, (click.types.IntParamType, click.types.FloatParamType)):
                unguarded.append(f"{path} {param.name}")
            elif isinstance(kind, Bounded):
                assert not isinstance(kind.inner, Bounded)  # wrapped once
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}")

    for name in COMMANDS:
        command = main.get_command(ctx, name)
        assert command is not None
        walk(command, name)
    assert unguarded == []


@pytest.mark.parametrize(("args", "says"), [
    (["study", "--post", "h2000"], "unknown post id 'h2000'; did you mean h200"),
    (["study", "--deck", "no-such-deck"], "unknown deck id 'no-such-deck'"),
])
def test_an_unknown_post_or_deck_is_one_line_before_the_app_opens(
        tmp_path: Path, args: list[str], says: str) -> None:
    code, output = run(tmp_path, *args)
    assert code == 1
    assert says in output and "Traceback" not in output


@pytest.mark.parametrize(("name", "says"), [
    ("", "cannot be empty"), ("   ", "cannot be empty"),
    ("a" * 101, "at most 64 characters (this one has 101)"),
    ("ana\x1b[2J", "control characters"),
])
def test_profile_names_a_report_cannot_show_are_refused(tmp_path: Path, name: str,
                                                        says: str) -> None:
    code, output = run(tmp_path, "--profile", name, "stats")
    assert code == 2
    assert "--profile" in output and says in output

"""Every scenario step names the one-step family it exercises, and a scenario's
prerequisites are the families its steps chain (``generate --list --json``)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from studyapp.cli import main
from studyapp.questions.generators import registered_families
from studyapp.questions.model import Kind
from studyapp.questions.scenario import NO_FAMILY


def _scenarios() -> list:
    return [f for f in registered_families().values() if f.name.startswith("scenario-")]


def test_every_scenario_step_declares_the_family_it_exercises_or_none() -> None:
    families = registered_families()
    scenarios = _scenarios()
    assert len(scenarios) >= 6
    for family in scenarios:
        assert family.steps, f"{family.name} declares no steps"
        for step in family.steps:
            assert step.exercises is not None, f"{family.name}/{step.name}: not declared"
            if step.exercises != NO_FAMILY:
                assert step.exercises in families, f"{family.name}/{step.name}: {step.exercises}"
                assert families[step.exercises].kind is not Kind.SCENARIO


def test_a_drawn_scenario_carries_what_each_step_exercises() -> None:
    family = registered_families()["scenario-serving"]
    question = family.generate(3, "en", {})
    assert [p.exercises for p in question.parts] == [
        s.exercises or "" for s in family.steps]
    assert question.parts[1].exercises == "kv-cache-per-token"


def test_a_scenario_builds_on_the_families_its_steps_chain() -> None:
    serving = registered_families()["scenario-serving"]
    assert serving.prerequisites == ("weights-size", "kv-cache-per-token", "min-gpus")
    assert registered_families()["weights-size"].prerequisites == ()


def test_generate_list_json_shows_prerequisites_and_keeps_its_keys() -> None:
    result = CliRunner().invoke(main, ["generate", "--list", "--json"])
    assert result.exit_code == 0
    listing = {item["name"]: item for item in json.loads(result.stdout)}
    for item in listing.values():
        assert {"name", "post", "kind", "description", "prerequisites"} == set(item)
        assert all(name in listing for name in item["prerequisites"])
    assert listing["scenario-long-context"]["prerequisites"] == [
        "kv-cache-per-token", "max-context-that-fits"]
    assert listing["kv-cache-per-token"]["prerequisites"] == []

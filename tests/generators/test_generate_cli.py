"""``studyapp generate``: the JSON contract docs/architecture.md fixes, and its errors."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from studyapp.cli import main

KEYS = {"family", "post", "kind", "prompt", "choices", "answer", "unit", "tolerance", "params",
        "explanation"}


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_list_json_describes_in_the_global_language() -> None:
    code, out, _ = run("--lang", "es", "generate", "--list", "--json")
    assert code == 0
    listing = json.loads(out)
    assert len(listing) >= 20
    assert {"name", "post", "kind", "description"} <= set(listing[0])
    fits = next(item for item in listing if item["name"] == "fits-on-gpu")
    assert fits["kind"] == "truefalse" and "GPU" in fits["description"]
    assert fits["description"].startswith("¿")


def test_instances_keep_the_contract_and_the_seed() -> None:
    code, out, _ = run("generate", "chip-ranking", "--seed", "5", "--count", "3", "--json")
    assert code == 0
    first = json.loads(out)
    assert len(first) == 3 and all(set(item) >= KEYS for item in first)
    assert all(item["answer"] in item["choices"] for item in first)
    assert json.loads(run("generate", "chip-ranking", "--seed", "5", "--count", "3",
                          "--json")[1]) == first
    numeric = json.loads(run("generate", "kv-cache-total", "--seed", "1", "--json")[1])[0]
    assert numeric["choices"] is None and numeric["tolerance"] == "2%"
    assert isinstance(numeric["answer"], float)


def test_lang_after_the_subcommand_and_options() -> None:
    es = json.loads(run("generate", "fits-on-gpu", "--seed", "1", "--json", "--lang", "es")[1])
    en = json.loads(run("--lang", "en", "generate", "fits-on-gpu", "--seed", "1", "--json")[1])
    assert es[0]["params"] == en[0]["params"] and es[0]["prompt"] != en[0]["prompt"]
    code, out, _ = run("generate", "fits-on-gpu", "--seed", "2", "--json",
                       "--option", "models=llama-3.1-70b", "--option", "gpus=h200-sxm")
    assert code == 0 and json.loads(out)[0]["params"]["gpu"] == "h200-sxm"


def test_unknown_family_suggests_close_names() -> None:
    code, _, err = run("generate", "fit-on-gpu")
    assert code == 1
    assert "fits-on-gpu" in err and len(err.strip().splitlines()) == 1


def test_readable_text_without_json() -> None:
    code, out, _ = run("--lang", "en", "generate", "memory-type", "--seed", "3")
    assert code == 0 and "1) " in out and "Answer:" in out


def test_scenarios_listed_with_kind_scenario_and_their_parts_in_json() -> None:
    """`generate --list --json` names six scenario families or more; an instance keeps the
    fixed keys and adds `parts`: prompt, answer, unit, tolerance and the earlier steps used."""
    code, out, _ = run("generate", "--list", "--json")
    assert code == 0
    scenarios = [item for item in json.loads(out) if item["kind"] == "scenario"]
    # planning scenarios, and the predict-then-check ones read against a measurement
    assert len(scenarios) >= 6 and all(s["name"].startswith(("scenario-", "measured-"))
                                       for s in scenarios)
    code, out, _ = run("--lang", "en", "generate", "scenario-serving", "--seed", "7", "--json")
    assert code == 0
    [instance] = json.loads(out)
    assert set(instance) >= KEYS
    parts = instance["parts"]
    assert [p["name"] for p in parts] == ["weights", "kv_user", "total", "gpus", "per_user",
                                          "bound"]
    for n, part in enumerate(parts):
        assert {"prompt", "answer", "unit", "tolerance", "uses"} <= set(part)
        assert set(part["uses"]) <= {p["name"] for p in parts[:n]}
    assert parts[0]["unit"] == "GB" and parts[0]["tolerance"] == "2%"
    assert parts[2]["uses"] == ["weights", "kv_user"]
    assert parts[2]["answer"] == pytest.approx(
        parts[0]["answer"] + instance["params"]["users"] * parts[1]["answer"], rel=1e-4)
    assert parts[3]["tolerance"] == "0 GPUs" and parts[5]["unit"] is None
    assert instance["answer"] == parts[-1]["answer"]  # the fixed keys: the step it ends on


def test_the_text_listing_writes_the_tolerance_as_the_reader_does() -> None:
    def answer_line(lang: str, family: str) -> str:
        result = CliRunner().invoke(main, ["--lang", lang, "generate", family, "--seed", "1"])
        assert result.exit_code == 0, result.output
        return next(line for line in result.output.splitlines()
                    if line.startswith(("Answer:", "Respuesta:")))

    assert answer_line("en", "kv-cache-per-token").endswith("(±2%)")
    assert answer_line("es", "kv-cache-per-token").endswith("(±2 %)")
    # a count is exact: no "(±0)" after it
    assert "±" not in answer_line("en", "min-gpus")
    result = CliRunner().invoke(main, ["--lang", "es", "generate", "kv-cache-per-token",
                                       "--seed", "1", "--json"])
    assert json.loads(result.output)[0]["tolerance"] == "2%"  # the JSON keeps its form


def test_json_carries_the_given_block() -> None:
    """`given`: the lines a card states before it asks (empty where it states none)."""
    shaped = json.loads(run("generate", "kv-cache-total", "--seed", "1", "--json")[1])[0]
    assert len(shaped["given"]) == 1 and "layers" in shaped["given"][0]
    spanish = json.loads(run("--lang", "es", "generate", "kv-cache-total", "--seed", "1",
                             "--json")[1])[0]
    assert "capas" in spanish["given"][0]
    fact = json.loads(run("generate", "memory-type", "--seed", "1", "--json")[1])[0]
    assert fact["given"] == []

"""The audit's echo count is a failure: a numeric answer never appears in its own prompt.

``studyapp generate --audit`` counts the draws whose numeric answer (a scenario's: any
step's) is a number the card writes before asking it, its prompt or its Given block;
one such draw fails the row, in a narrow pool too, and the command exits 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from studyapp.questions.generators import Family, registered_families
from studyapp.questions.generators.audit import family_targets, measure, pool_targets
from studyapp.questions.generators.drawing import echoing_parts, instance_seed
from studyapp.questions.model import Kind, Part, Question, Tolerance

DRAWS = 30


def _family(generate: Any, name: str = "echo-probe") -> Family:
    return Family(name=name, post="intro", kind=Kind.NUMERIC, description={"en": name},
                  generate=generate, options={})


def _kv(seed: int, lang: str, options: Mapping[str, Any], *, echo: bool) -> Question:
    layers = 32 + seed % 4 * 16
    answer = 2 * layers * 8 * 128 * 2 / 1e3
    told = f" ({answer:g} KB per token)" if echo else ""
    return Question(kind=Kind.NUMERIC, post="intro", lang=lang, seed=seed,
                    prompt=f"{layers} layers, 8 KV heads of 128, BF16{told}. KV per token, in KB?",
                    explanation=f"2 × {layers} × 8 × 128 × 2 B = {answer:g} KB.",
                    answer=answer, unit="KB", tolerance=Tolerance(relative=0.02))


@pytest.mark.parametrize("pool", [False, True])
def test_an_answer_its_prompt_writes_fails_the_audit(pool: bool) -> None:
    echoing = measure("probe", _family(lambda s, lang, o: _kv(s, lang, o, echo=True)), {}, None,
                      20, pool=pool)
    assert echoing.echoes == 20
    assert not echoing.ok
    assert any("writes before asking" in p for p in echoing.problems), echoing.problems
    clean = measure("probe", _family(lambda s, lang, o: _kv(s, lang, o, echo=False)), {}, None,
                    20, pool=pool)
    assert clean.echoes == 0
    assert not any("writes before asking" in p for p in clean.problems), clean.problems


def test_a_scenario_step_and_the_given_block_count() -> None:
    step = _kv(1, "en", {}, echo=False)
    scenario = Question(kind=Kind.SCENARIO, post="intro", prompt="A node serves a model.",
                        explanation="", answer="1", parts=(Part("kv", step),))
    assert echoing_parts(scenario) == []
    told = f"{step.answer:g} KB of KV cache per token"
    assert echoing_parts(Question(**{**scenario.__dict__, "given": (told,)})) == ["kv"]
    assert echoing_parts(Question(**{**step.__dict__, "given": (told,)})) == [""]


@pytest.mark.parametrize("target", family_targets(), ids=lambda t: t.label)
def test_no_family_echoes_its_answer(target: Any) -> None:
    found = []
    for i in range(DRAWS):
        q = target.family.generate(instance_seed(7, i), "en", target.options)
        found += [(q.seed, name) for name in echoing_parts(q)]
    assert not found


def test_no_narrow_pool_echoes_its_answer() -> None:
    """One chip or one precision alone leaves fewer draws to avoid an echo with."""
    found = []
    for target in pool_targets(registered_families()):
        for i in range(8):
            try:
                q = target.family.generate(instance_seed(7, i), "en", target.options)
            except (LookupError, ValueError):
                continue  # refused loudly: no question at all
            found += [(target.label, q.seed, name) for name in echoing_parts(q)]
    assert not found

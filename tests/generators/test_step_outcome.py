"""A scenario is judged by its steps, each graded on its own; and an answer tried from the
command line (``generate --try``, ``deck preview --try``) gets the verdict a session gives."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from studyapp.cli import main
from studyapp.questions.generators import registered_families
from studyapp.questions.grading import grade
from studyapp.questions.model import Kind, Question
from studyapp.questions.scenario import (
    AGAIN,
    HARD,
    PASS,
    PartVerdict,
    grade_part,
    scenario_verdict,
    step_outcome,
)
from studyapp.questions.trying import try_answer


def right(question: Question, index: int) -> str:
    part = question.parts[index].question
    if part.kind is Kind.CHOICE:
        return str(part.choices.index(str(part.answer)) + 1)
    return f"{part.answer:.6g}"


def wrong(question: Question, index: int) -> str:
    """3, 4, 5... times the true value (no declared slip leaves those factors here; each step
    wrong by its own factor, so none is right from the wrong ones before it)."""
    part = question.parts[index].question
    if part.kind is Kind.CHOICE:
        other = next(c for c in part.choices if c != part.answer)
        return str(part.choices.index(other) + 1)
    return f"{float(part.answer) * (3 + index):.6g}"  # type: ignore[arg-type]


def graded(question: Question, answers: list[str]) -> list[PartVerdict]:
    done: list[PartVerdict] = []
    for index, text in enumerate(answers):
        done.append(grade_part(question, index, text, done))
    return done


def serving(seed: int = 3) -> Question:
    return registered_families()["scenario-serving"].generate(seed, "en", {})


def test_every_step_right_passes_for_the_learner_to_rate() -> None:
    q = serving()
    done = graded(q, [right(q, i) for i in range(len(q.parts))])
    assert step_outcome(q, done).rating == PASS
    assert scenario_verdict(q, done, []).correct is True


def test_one_wrong_step_caps_at_hard_and_names_its_family() -> None:
    """The KV step wrong and nothing built on it: Hard at most; the weak step is the
    kv-cache-per-token family, the one to bring back sooner."""
    q = serving()
    answers = [right(q, i) for i in range(len(q.parts))]
    answers[1] = wrong(q, 1)
    done = graded(q, answers)
    outcome = step_outcome(q, done)
    assert (outcome.rating, outcome.wrong, outcome.weak) == (HARD, ("kv_user",),
                                                             ("kv-cache-per-token",))
    verdict = scenario_verdict(q, done, answers)
    assert verdict.correct is True and "Step 2 went wrong" in verdict.message


def test_a_step_right_from_a_wrong_one_does_not_count_against_the_card() -> None:
    """Step 1 wrong, step 3 right from it (error carried forward): one step wrong, not two."""
    q = serving()
    weights, kv = (float(q.parts[i].question.answer) for i in (0, 1))  # type: ignore[arg-type]
    mine = weights * 3
    answers = [f"{mine:.6g}", right(q, 1), f"{mine + q.params['users'] * kv:.6g}",
               *(right(q, i) for i in range(3, len(q.parts)))]
    done = graded(q, answers)
    assert done[2].carried
    assert step_outcome(q, done).wrong == ("weights",)


def test_most_steps_wrong_is_again() -> None:
    q = serving()
    n = len(q.parts)
    answers = [wrong(q, i) if i < (n + 1) // 2 else right(q, i) for i in range(n)]
    done = graded(q, answers)
    assert step_outcome(q, done).rating == AGAIN
    assert scenario_verdict(q, done, answers).correct is False


def _floor_then_double() -> Question:
    """A long-context instance where halving the KV per sequence fits one more sequence than
    doubling the rounded-down batch (⌊F/(K/2)⌋ = 2⌊F/K⌋ + 1)."""
    family = registered_families()["scenario-long-context"]
    for seed in range(60):
        q = family.generate(seed, "en", {})
        batch, fp8 = (float(q.parts[i].question.answer) for i in (2, 3))  # type: ignore[arg-type]
        if fp8 == 2 * batch + 1:
            return q
    raise AssertionError("no instance where floor-then-double differs")


def test_floor_then_double_is_accepted_with_a_note() -> None:
    q = _floor_then_double()
    batch, fp8 = (float(q.parts[i].question.answer) for i in (2, 3))  # type: ignore[arg-type]
    done = graded(q, [right(q, 0), right(q, 1), right(q, 2)])
    step = grade_part(q, 3, f"{2 * batch:g}", done)
    assert step.correct is True and step.rounded
    assert f"{fp8:g} sequences" in step.verdict.message  # the exact figure is told
    assert "rounding down first" in step.verdict.message
    assert grade_part(q, 3, f"{2 * batch - 1:g}", done).correct is False  # not any number
    assert step_outcome(q, [*done, step]).rounded == ("fp8_batch",)


def test_a_step_record_keeps_its_family_and_rounding() -> None:
    q = _floor_then_double()
    batch = float(q.parts[2].question.answer)  # type: ignore[arg-type]
    done = graded(q, [right(q, 0), right(q, 1), right(q, 2), f"{2 * batch:g}"])
    records = [step.record(text) for step, text in zip(done, ["a", "b", "c", "d"], strict=True)]
    assert records[0]["family"] == "kv-cache-per-token"
    assert records[3]["rounded"] is True and records[0]["rounded"] is False


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--lang", "en", *args])
    return result.exit_code, result.stdout


def test_generate_try_grades_as_a_session_would() -> None:
    code, out = run("generate", "kv-cache-per-token", "--seed", "4", "--json")
    [record] = json.loads(out)
    question = registered_families()["kv-cache-per-token"].generate(record["seed"], "en", {})
    answer = f"{record['answer'] / 2:.6g}"
    code, out = run("generate", "kv-cache-per-token", "--seed", "4", "--try", answer, "--json")
    assert code == 0
    [tried] = json.loads(out)
    assert {k: tried[k] for k in record} == record  # the generate keys are kept
    expected = grade(question, answer)
    assert tried["try"]["correct"] is expected.correct is False
    assert tried["try"]["slips"] == list(expected.slips)
    assert tried["try"]["message"] == expected.message
    code, text = run("generate", "kv-cache-per-token", "--seed", "4", "--try", answer)
    assert code == 0 and expected.message in text


def test_generate_try_a_scenario_step_alone_and_whole() -> None:
    code, out = run("generate", "scenario-serving", "--seed", "2", "--json")
    [record] = json.loads(out)
    q = registered_families()["scenario-serving"].generate(record["seed"], "en", {})
    answers = " | ".join(right(q, i) for i in range(len(q.parts)))
    code, out = run("generate", "scenario-serving", "--seed", "2", "--try", answers, "--json")
    tried = json.loads(out)[0]["try"]
    assert tried["correct"] is True and tried["outcome"]["rating"] == PASS
    assert len(tried["parts"]) == len(q.parts)
    code, out = run("generate", "scenario-serving", "--seed", "2", "--part", "2",
                    "--try", wrong(q, 1), "--json")
    step = json.loads(out)[0]["try"]
    assert step["part"] == 2 and step["correct"] is False
    assert step == try_answer(q, wrong(q, 1), 2).record()
    code, _ = run("generate", "scenario-serving", "--seed", "2", "--part", "9", "--try", "1")
    assert code == 2
    code, _ = run("generate", "kv-cache-per-token", "--seed", "2", "--part", "1")
    assert code == 2


DECK = """\
deck: try-drill
title: Try drill
language: en
post: hgx
cards:
  - id: serve
    type: scenario
    prompt: "Serve {params_b}B in BF16 to {users} users, {kv_gb} GB of KV each."
    params:
      params_b: 8
      users: 64
      kv_gb: 1.25
    parts:
      - name: weights
        prompt: "Weights, in GB?"
        answer: "params_b * 2"
        unit: GB
        explanation: "{params_b}B × 2 B = {answer} GB"
        slips: [{key: dtype_bytes, factor: 2, symmetric: true}]
      - name: total
        prompt: "Weights and every user's KV cache, in GB?"
        answer: "weights + users * kv_gb"
        unit: GB
        explanation: "{weights} GB + {users} × {kv_gb} GB = {answer} GB"
      - name: per_user
        prompt: "Memory per user, in GB?"
        answer: "total / users"
        unit: GB
        explanation: "{total} GB / {users} = {answer} GB"
"""


def test_deck_preview_try_names_an_authored_step_slip(tmp_path: Path) -> None:
    """8B × 2 B = 16 GB; 32 GB is the author's data-type slip, 32 + 64 × 1.25 = 112 GB is
    right from it, and so is 112 / 64 = 1.75 GB: one step of three wrong, Hard at most."""
    path = tmp_path / "try.yaml"
    path.write_text(DECK, encoding="utf-8")
    code, out = run("deck", "preview", str(path), "--try", "serve=32 | 112 | 1.75", "--json")
    assert code == 0
    [tried] = json.loads(out)
    assert tried["card"] == "serve"
    steps = tried["try"]["parts"]
    assert steps[0]["slips"] == ["dtype_bytes"] and steps[0]["correct"] is False
    assert steps[1]["carried"] is True and steps[2]["carried"] is True
    assert tried["try"]["outcome"]["rating"] == HARD
    code, text = run("deck", "preview", str(path), "--try", "serve=16 | 96 | 1.5")
    assert code == 0 and "All 3 steps right." in text
    code, _ = run("deck", "preview", str(path), "--try", "nothing=1")
    assert code != 0

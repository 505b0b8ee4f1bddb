"""Given, then asked: every figure an answer is computed from is shown before the question.

The walk draws every registered family over pinned seeds, and every step of a
scenario, and checks two things:

- each input figure the family recorded (``params["given"]`` of a one-step card, the
  step's ``params["inputs"]`` noted while its computation ran) is written in the text
  the learner reads before answering: the card's Given block, its prompt (a scenario's
  setup and the steps asked so far, with the solutions already shown), its choices, and
  the key-figures rows of its post for the entries it names;
- every number a worked solution writes is stated in that text, or a published constant
  of a stated convention (2 bytes a BF16 value, 3,600 s an hour), or derived first: it
  follows an "=" or "≈" in a solution shown so far. "516,096 B × 32,768 tokens" fails
  unless the solution worked out "… = 516,096 B" first.

A figure counts as written in any of the project's number formats: at a power of 1000 or
1024 of its unit (80 GB, 3.35 TB/s), as a percentage, rounded to the digits written
(1,020 GB for 1,017.94), or as ``a × 10^b``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest

from studyapp.catalog.posts import figures_rows, load_post
from studyapp.questions.generators import registered_families
from studyapp.questions.generators.drawing import number_spans
from studyapp.questions.model import Kind, Question

SEEDS = tuple(range(30))
"""Pinned draws per family (and per scenario: every step of each)."""
SPANISH_SEEDS = tuple(range(4))

RECALL = {
    "chip-ranking": "which chip has the most of a figure: the figures are the lesson",
    "memory-type": "which memory a chip uses: a fact, no figure",
    "scale-up-fabric": "which link a vendor scales up with: a fact, no figure",
    "software-stack": "which software a vendor ships: a fact, no figure",
    "low-precision-speedup": "whether a chip has a faster low-precision rate, and how much: "
                             "the chip's rates are the fact (given, the ratio would be the "
                             "only step and a missing rate the answer)",
}
"""Families that ask a catalog fact to recall, not a figure to compute from given ones."""

CONSTANTS = (0.5, 1.0, 2.0, 4.0, 8.0, 24.0, 60.0, 100.0, 3600.0, 86400.0, 2**30 / 1e9)
"""Published constants of the conventions the cards state: bytes of FP4, FP8, BF16 and
FP32 values, bits in a byte, hours in a day, minutes in an hour, seconds in an hour and a
day, a GiB in 10^9 bytes. Powers of 10 and of 1024 (unit prefixes) count too."""

SCALES = (*(10.0 ** (3 * k) for k in range(-5, 6)), *(1024.0 ** -k for k in (1, 2, 3, 4)),
          100.0, 0.01)
"""A base-unit figure written with a decimal or binary prefix, or a fraction as a percentage."""

CLOSE = 0.02
"""A written figure is the value rounded to its written digits, and within this share of it."""

_SCI = re.compile(r"(\d[\d.,\u00a0\u202f]*)\s*×\s*10\^(-?\d+)")
_URL = re.compile(r"https?://\S+")
_RESULT = re.compile(r"(?:=|≈)\s*\$?\s*$")
_NAME_BEFORE = re.compile(r"[A-Za-z\-_/.]$")


@dataclass(frozen=True)
class Written:
    """A number as a text writes it: its value, the unit of its last digit, where it ends."""

    value: float
    ulp: float
    start: int
    end: int

    def matches(self, value: float) -> bool:
        """``value`` (at some scale) reads as this written number."""
        if self.value == 0:
            return value == 0
        slack = min(self.ulp / 2, CLOSE * abs(self.value)) * (1 + 1e-6) + 1e-12 * abs(self.value)
        return any(abs(value * scale - self.value) <= slack for scale in SCALES)


def _ulp(raw: str, lang: str) -> float:
    digits = re.sub(r"[\s\u00a0\u202f]", "", raw)
    point = "," if lang == "es" else "."
    if point in digits:
        return 10.0 ** -len(digits.split(point, 1)[1])
    whole = digits.replace(",", "").replace(".", "")
    return 10.0 ** (len(whole) - len(whole.rstrip("0"))) if whole.strip("0") else 1.0


def written_numbers(text: str, lang: str) -> list[Written]:
    """The numbers a text writes, names (H100, Llama-3.1) and addresses left out."""
    text = _URL.sub(lambda m: " " * len(m.group(0)), text)
    found: list[Written] = []
    for match in _SCI.finditer(text):
        mantissa = number_spans(match.group(1), lang)
        if mantissa:
            exponent = int(match.group(2))
            value = mantissa[0][2] * 10.0 ** exponent
            found.append(Written(value, _ulp(match.group(1).strip(), lang) * 10.0 ** exponent,
                                 match.start(), match.end()))
    text = _SCI.sub(lambda m: " " * len(m.group(0)), text)
    for start, end, value in number_spans(text, lang):
        before = text[:start]
        if _NAME_BEFORE.search(before) or before.endswith("^"):
            continue  # a digit inside a name or an exponent
        if text[end:end + 1].isalpha() and text[end:end + 1] not in "BKMGTxX×":
            continue  # "3rd", "4o": part of a word
        found.append(Written(value, _ulp(text[start:end], lang), start, end))
    return sorted(found, key=lambda w: w.start)


def constant(value: float) -> bool:
    """A convention's constant: a unit prefix (a power of 10 or 1024) or one of ``CONSTANTS``."""
    if value <= 0:
        return False
    if any(math.isclose(value, c, rel_tol=1e-9) for c in CONSTANTS):
        return True
    ten = math.log10(value)
    two = math.log(value, 1024)
    return math.isclose(ten, round(ten), abs_tol=1e-9) or math.isclose(two, round(two),
                                                                         abs_tol=1e-9)


def results(text: str, lang: str) -> list[float]:
    """The numbers a solution works out: each one written right after "=" or "≈"."""
    return [w.value for w in written_numbers(text, lang) if _RESULT.search(text[:w.start])]


# ---------------------------------------------------------------- what the learner reads


@dataclass(frozen=True)
class Asked:
    """One question as the learner meets it: what is shown first, what it is computed from,
    and the worked solution that follows."""

    where: str
    shown: str
    inputs: Mapping[str, float]
    solution: str
    derived: tuple[float, ...]
    """Values worked out in solutions already shown, earlier steps' answers and its own."""
    kind: Kind = Kind.NUMERIC
    answer: tuple[float, ...] = ()
    worked: bool = True
    """The solution computes the answer (a scenario's choice step only says why)."""


def key_figures(question: Question) -> str:
    """The key-figures rows of the card's post for the entries its text names: the session
    shows the table before its first question."""
    post = load_post(question.post, question.lang)
    text = " ".join([question.prompt, *question.given,
                     *(p.question.prompt for p in question.parts)])
    rows = figures_rows(post)[1:]
    return "\n".join(" · ".join(row) for row in rows if row and row[0] in text)


def answer_values(question: Question) -> tuple[float, ...]:
    """The question's own answer: the figure its solution ends on ("rounded up: 5 chips")."""
    if isinstance(question.answer, bool):
        return ()
    if isinstance(question.answer, int | float):
        return (float(question.answer),)
    return tuple(w.value for w in written_numbers(str(question.answer), question.lang))


def asked(question: Question) -> Iterator[Asked]:
    """Each question the card asks, with what is on screen before it is answered."""
    lang = question.lang
    head = "\n".join([*question.given, question.prompt, key_figures(question)])
    if question.kind is not Kind.SCENARIO:
        given = question.params.get("given") or {}
        yield Asked(f"{question.family} seed {question.seed}",
                    "\n".join([head, *question.choices]),
                    {k: float(v) for k, v in given.items()}, question.explanation,
                    answer_values(question), question.kind, answer_values(question))
        return
    shown = [head]
    derived: list[float] = []
    for part in question.parts:
        step = part.question
        shown.append(step.prompt)
        yield Asked(f"{question.family} seed {question.seed} step {part.name}",
                    "\n".join([*shown, *step.choices]),
                    dict(step.params.get("inputs") or {}), part.solution,
                    (*derived, *answer_values(step)), step.kind, answer_values(step),
                    worked=step.kind is not Kind.CHOICE)
        shown.append(part.solution)
        derived += results(part.solution, lang)
        if isinstance(step.answer, int | float) and not isinstance(step.answer, bool):
            derived.append(float(step.answer))


def hidden_inputs(item: Asked, lang: str) -> dict[str, float]:
    """Inputs neither written before the question nor worked out in its solution."""
    shown = written_numbers(item.shown, lang)
    worked = results(item.solution, lang) + list(item.derived)
    missing = {}
    for name, value in item.inputs.items():
        if value == 0 or constant(abs(value)):
            continue
        if any(w.matches(value) for w in shown):
            continue
        if any(math.isclose(value * s, d, rel_tol=5e-3) for d in worked for s in SCALES):
            continue
        missing[name] = value
    return missing


CONVENTION = re.compile(r"^(Conventions?|Convenci[oó]n(es)?):.*$", re.MULTILINE)
"""A solution's closing conventions paragraph: it says where the conventions' figures come
from (3.275 GB = 1.26 + 1.79 GiB), it is not a step of the computation."""


def worked_part(solution: str, item: Asked, lang: str) -> str:
    """The lines of a solution up to the first that works out the numeric answer ("= 85.9
    GB"): what follows (the driver's reading, a measurement, why it matters) is commentary,
    not an intermediate the answer is computed from. A scenario's choice step says why, computes
    nothing: left out whole; a choice card worked out from given figures is checked."""
    if item.kind is Kind.CHOICE and not item.worked:
        return ""
    if item.kind is not Kind.NUMERIC or not item.answer:
        return solution
    lines = solution.split("\n")
    written = [[w for w in written_numbers(line, lang) if w.matches(item.answer[0])]
               for line in lines]
    worked_out = [i for i, (line, ws) in enumerate(zip(lines, written, strict=True))
                  if any(_RESULT.search(line[:w.start]) for w in ws)]
    reached = [i for i, ws in enumerate(written) if ws]  # "rounded up, is 6 GPUs"
    end = worked_out[0] if worked_out else reached[-1] if reached else len(lines) - 1
    return "\n".join(lines[:end + 1])


def unexplained(item: Asked, lang: str) -> list[str]:
    """Numbers of the worked solution that come from nowhere: not stated before the question,
    not a constant, not worked out (after "=" or "≈") in a solution shown so far."""
    shown = written_numbers(item.shown, lang)
    worked = results(item.solution, lang) + list(item.derived)
    solution = worked_part(CONVENTION.sub("", item.solution), item, lang)
    out = []
    for w in written_numbers(solution, lang):
        if constant(w.value) or any(w.matches(s.value) for s in shown):
            continue
        if any(w.matches(d) for d in worked):
            continue
        out.append(solution[w.start:w.end])
    return out


def problems(question: Question) -> list[str]:
    """What the walk finds wrong with one drawn card (empty: every figure is given)."""
    found = []
    for item in asked(question):
        missing = hidden_inputs(item, question.lang)
        if missing:
            found.append(f"{item.where}: inputs not given {missing}")
        loose = unexplained(item, question.lang)
        if loose:
            found.append(f"{item.where}: solution uses {loose} without stating or deriving it")
    return found


def _draws(names: Iterable[str], seeds: Sequence[int], lang: str) -> Iterator[Question]:
    table = registered_families()
    for name in names:
        for seed in seeds:
            yield table[name].generate(seed, lang, {})


WALKED = [name for name in registered_families() if name not in RECALL]

@pytest.mark.parametrize("family", WALKED)
def test_every_figure_an_answer_is_computed_from_is_given(family: str) -> None:
    found = [p for q in _draws([family], SEEDS, "en") for p in problems(q)]
    assert not found, "\n".join(found[:12])


@pytest.mark.parametrize("family", WALKED)
def test_the_spanish_cards_give_their_figures_too(family: str) -> None:
    found = [p for q in _draws([family], SPANISH_SEEDS, "es") for p in problems(q)]
    assert not found, "\n".join(found[:12])


def test_every_computing_family_declares_its_inputs() -> None:
    """A card computed from figures says which (else the walk above would check nothing)."""
    for name in WALKED:
        q = registered_families()[name].generate(SEEDS[0], "en", {})
        declared = [dict(item.inputs) for item in asked(q)]
        assert any(declared), f"{name} records no input figures"


# ---------------------------------------------------------------- the check can fail


def _card(**fields: Any) -> Question:
    base: dict[str, Any] = dict(kind=Kind.NUMERIC, post="h100", lang="en",
                                family="kv-cache-total", seed=1, answer=16.9, unit="GB")
    return Question(**{**base, **fields})


def test_a_hidden_input_is_caught() -> None:
    """80 layers is used but never stated: the walk names it."""
    hidden = _card(prompt="Llama 3.1 70B keeps 8 KV heads of 128 in BF16. KV cache of 32,768"
                          " tokens, in GB?",
                   explanation="2 × 80 × 8 × 128 × 2 B = 327,680 B; × 32,768 = 10.7 GB.",
                   params={"given": {"layers": 80.0, "kv_heads": 8.0, "head_dim": 128.0,
                                     "context": 32768.0}})
    found = problems(hidden)
    assert any("'layers': 80.0" in p for p in found), found
    assert any("['80']" in p for p in found), found
    stated = replace(hidden, prompt=hidden.prompt.replace("keeps", "has 80 layers and"))
    assert problems(stated) == []
    in_given_block = replace(hidden, given=("80 layers",))
    assert problems(in_given_block) == []


def test_the_posts_key_figures_count_as_given() -> None:
    """The hbm-kv-cache session shows its key-figures table (Llama 3.1 70B: 80 layers) first;
    the h100 one does not list the model."""
    prompt = "Llama 3.1 70B keeps 8 KV heads of 128 in BF16. KV cache of 32,768 tokens, in GB?"
    card = _card(prompt=prompt, explanation="2 × 80 × 8 × 128 × 2 B = 327,680 B.",
                 params={"given": {"layers": 80.0}})
    assert problems(replace(card, post="hbm-kv-cache")) == []
    assert problems(card) != []


def test_an_intermediate_used_before_it_is_derived_is_caught() -> None:
    """"516,096 B × 32,768 tokens" without saying where 516,096 comes from."""
    prompt = "126 layers, 8 KV heads of 128, BF16. KV cache of 32,768 tokens, in GB?"
    given = {"layers": 126.0, "kv_heads": 8.0, "head_dim": 128.0, "context": 32768.0}
    bare = _card(prompt=prompt, explanation="516,096 B × 32,768 = 16.9 GB.",
                 params={"given": given})
    assert any("['516,096']" in p for p in problems(bare)), problems(bare)
    worked = replace(bare, explanation="2 × 126 × 8 × 128 × 2 B = 516,096 B; "
                                       "516,096 B × 32,768 = 16.9 GB.")
    assert problems(worked) == []


def test_figures_read_in_every_number_format() -> None:
    text = "80 GB at 3.35 TB/s, 90%, 1.5 × 10^13 tokens, 1,020 GB, H100"
    numbers = written_numbers(text, "en")
    for value in (80e9, 3.35e12, 0.9, 1.5e13, 1017.94):
        assert any(w.matches(value) for w in numbers), value
    assert not any(w.matches(100.0) for w in numbers)  # the H100's digits are a name
    assert not any(w.matches(0.85) for w in numbers)
    spanish = written_numbers("80 GB a 3,35 TB/s, 1,5 × 10^13 tokens, 32\u00a0768", "es")
    for value in (3.35e12, 1.5e13, 32768.0):
        assert any(w.matches(value) for w in spanish), value

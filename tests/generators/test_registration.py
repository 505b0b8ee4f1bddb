"""A family's registration owns its questions' name and post; a draw hands the language once.

The families are written as ``draw(ctx, options)`` over one ``DrawContext``: no family
writes ``post=`` or ``family=`` on its question (its registration does), and no field
call takes the language (the context's formatters are bound to it).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import grimp
import pytest

from studyapp.questions import generators
from studyapp.questions.generators import Family, get_family, register, registered_families
from studyapp.questions.generators.context import DrawContext, drawn, revised
from studyapp.questions.generators.drawing import instance_seed
from studyapp.questions.generators.wording import bytes_per, num, pct, result, sci, shown, yes_no
from studyapp.questions.model import Kind, Part, Question

FAMILIES_DIR = Path(generators.__file__).parent / "families"


@pytest.mark.parametrize("name", list(registered_families()))
def test_every_question_carries_its_familys_name_and_post(name: str) -> None:
    family = get_family(name)
    for index in range(8):
        for lang in ("en", "es"):
            q = family.generate(instance_seed(11, index), lang, {})
            assert (q.family, q.post) == (family.name, family.post)
            assert (q.seed, q.lang) == (instance_seed(11, index), lang)
            for part in q.parts:
                assert (part.question.family, part.question.post) == (family.name, family.post)


def _stray(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """A draw that writes another family's name and post, on itself and on a step."""
    step = Question(kind=Kind.NUMERIC, post="tpu", family="other", prompt="step",
                    explanation="", answer=1.0, unit="GB", seed=ctx.seed, lang=ctx.lang)
    return Question(kind=Kind.SCENARIO, post="tpu", family="other", prompt=ctx.t("gen.word.yes"),
                    explanation="", answer="1", seed=ctx.seed, lang=ctx.lang,
                    parts=(Part(name="one", question=step),))


def test_a_question_cannot_carry_another_post_or_family(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generators, "_REGISTRY", dict(registered_families()))
    family = register(Family(name="stray-family", post="h200", kind=Kind.SCENARIO,
                             description={"en": "stray"}, generate=drawn(_stray), options={}))
    q = family.generate(3, "es", {})
    assert (q.family, q.post) == ("stray-family", "h200")
    assert (q.parts[0].question.family, q.parts[0].question.post) == ("stray-family", "h200")
    assert (q.seed, q.lang, q.prompt) == (3, "es", "sí")
    assert get_family("stray-family") is family


def test_the_context_formats_as_the_wording_does_in_its_language() -> None:
    for lang in ("en", "es"):
        ctx = DrawContext(seed=5, lang=lang)
        for value in (0.0, 0.5, 1.0, 8192.0, 131072.0, 1234.5678, 6.3e24, 2.5e-5):
            assert ctx.num(value) == num(value, lang)
            assert ctx.num(value, 6) == num(value, lang, 6)
            assert ctx.sci(value, 4) == sci(value, lang, 4)
            assert ctx.shown(value) == shown(value, lang)
            assert ctx.result(value) == result(value, lang)
            assert ctx.bytes_per(value) == bytes_per(value, lang)
            assert ctx.pct(value / 1e4) == pct(value / 1e4, lang)
        assert ctx.yes_no(True) == yes_no(True, lang)
        q = ctx.question(kind=Kind.TRUEFALSE, prompt="p", explanation="e", answer=True)
        assert (q.seed, q.lang) == (5, lang)
    assert DrawContext(1, "es").num(131072) == "131\u00a0072"
    assert DrawContext(1, "en").num(131072) == "131,072"


def _family_sources() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8")))
            for path in sorted(FAMILIES_DIR.glob("*.py"))]


def test_no_family_threads_the_language_through_its_calls() -> None:
    """``lang`` is neither a parameter nor an argument in the families: ``ctx`` carries it."""
    found = []
    for path, tree in _family_sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.arg) and node.arg == "lang":
                found.append(f"{path.name}:{node.lineno} parameter")
            if isinstance(node, ast.Call):
                args = [*node.args, *(k.value for k in node.keywords)]
                if any(isinstance(a, ast.Name) and a.id == "lang" for a in args):
                    found.append(f"{path.name}:{node.lineno} argument")
    assert found == []


def test_no_family_writes_post_or_family_on_its_question() -> None:
    found = []
    for path, tree in _family_sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                callee = node.func
                name = callee.attr if isinstance(callee, ast.Attribute) else getattr(
                    callee, "id", "")
                if name in ("Question", "question", "build_parts"):
                    written = {k.arg for k in node.keywords if k.arg} & {"post", "family"}
                    if written:
                        found.append(f"{path.name}:{node.lineno} {sorted(written)}")
    assert found == []


def _circles(graph: grimp.ImportGraph, prefix: str) -> list[tuple[str, ...]]:
    """Every import of a module under ``prefix`` whose target leads back to it."""
    found = []
    for module in sorted(m for m in graph.modules if m == prefix or m.startswith(prefix + ".")):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                found.append((module, *back))
    return found


def test_no_import_circle_in_the_questions_package() -> None:
    """TYPE_CHECKING imports included: the registry and the draw helpers import one way."""
    graph = grimp.build_graph("studyapp", exclude_type_checking_imports=False)
    assert _circles(graph, "studyapp.questions") == []


def test_revised_equals_a_replaced_question_and_refuses_unknown_fields() -> None:
    """``context.revised`` is ``dataclasses.replace`` made cheaper: same value, same refusal."""
    question = get_family("fits-on-gpu").generate(3, "es", {})
    changed = revised(question, post="other", seed=7)
    assert changed == dataclasses.replace(question, post="other", seed=7)
    assert (changed.post, changed.seed, question.post) == ("other", 7, question.post)
    with pytest.raises(TypeError):
        revised(question, postt="other")

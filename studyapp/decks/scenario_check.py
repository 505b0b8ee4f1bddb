"""A scenario card's checks: its steps' names, formulas, units and slips, then the
whole chain computed over sampled params.

Kept apart from ``deck_check`` (the deck and its other cards) as the one card
type whose formulas may name the answers of earlier steps.
"""

from __future__ import annotations

import itertools
from typing import Any

from studyapp.decks.deck_model import CardSpec, PartSpec, numeric_answer
from studyapp.decks.field_checks import FieldChecks, sample_combinations
from studyapp.decks.formula import (
    Formula,
    FormulaError,
    Value,
    format_value,
    number,
    parse_formula,
    parse_template,
)
from studyapp.decks.formula_sampling import GENERATOR_CHECK_SEEDS, TextAt, localized, variants
from studyapp.decks.problems import as_written, problem_message
from studyapp.decks.schema import ByLanguage, ScenarioCard
from studyapp.decks.schema_errors import suggest
from studyapp.decks.step_slip_check import SlipAt, draw_problem, same_answer_problems
from studyapp.decks.yaml_source import PathKey
from studyapp.i18n import strings
from studyapp.questions.model import Tolerance

DEFAULT_STEP_TOLERANCE = Tolerance(relative=0.02)
"""A step's tolerance when it states none (as ``CardSpec._scenario`` grades it)."""


def known_slip_keys() -> list[str]:
    """The slips grading can name (``grading.slip.<key>`` in the strings)."""

    prefix = "grading.slip."
    return sorted(k.removeprefix(prefix) for k in strings("en") if k.startswith(prefix))


class ScenarioChecks(FieldChecks):
    """The checks of texts with formulas and of scenario cards (``DeckCheck`` adds the rest)."""

    def text_formulas(self, variant: TextAt) -> tuple[Formula, ...]:
        """The ``{...}`` formulas of one text, or none when its braces do not parse
        (reported at the text, so every text is read and each problem said once)."""
        try:
            return tuple(parse_template(variant.text).formulas)
        except FormulaError as exc:
            self.at(variant.path, exc.message)
            return ()

    def scenario(self, model: ScenarioCard, path: PathKey, language: str,
                 common: dict[str, Any]) -> CardSpec | None:
        """A scenario's steps: names, formulas over params and earlier steps, units, slips.

        Each problem is reported where it is written (a step's ``answer``,
        ``prompt``, ``unit``...); then the whole chain is computed over sampled
        params, and the first step that fails is named at its ``answer``.
        """
        from studyapp.questions.model import Slip

        before = len(self.problems)
        params = self.params(model.params, (*path, "params"))
        declared = set(model.params)
        broken = declared - set(params)
        slip_keys = known_slip_keys()

        def check_names(formula: Formula, where: PathKey, known: set[str]) -> None:
            for name in sorted(formula.names - known - broken):
                listed = ", ".join(sorted(known)) or problem_message("none")
                self.at(where, problem_message("unknown_name", name=name,
                                               hint=suggest(name, known),
                                               formula=formula.source, params=listed))

        def check_texts(value: str | ByLanguage | None, where: PathKey, known: set[str]) -> None:
            if value is None:
                return
            for variant in variants(value, where, language):
                for formula in self.text_formulas(variant):
                    check_names(formula, variant.path, known)

        check_texts(model.prompt, (*path, "prompt"), declared)
        check_texts(model.explanation, (*path, "explanation"), declared)
        names_so_far: list[str] = []
        all_names = declared | {p.name for p in model.parts}
        parts: list[PartSpec] = []
        for i, raw in enumerate(model.parts):
            where: PathKey = (*path, "parts", i)
            if raw.name in declared or raw.name in names_so_far or raw.name == "answer":
                self.at((*where, "name"), problem_message("part_name_taken", name=raw.name))
            check_texts(raw.prompt, (*where, "prompt"), declared)
            check_texts(raw.method, (*where, "method"), declared)
            check_texts(raw.explanation, (*where, "explanation"), all_names | {"answer"})
            if isinstance(raw.answer, str):
                try:
                    check_names(parse_formula(raw.answer), (*where, "answer"),
                                declared | set(names_so_far))
                except FormulaError as exc:
                    self.at((*where, "answer"), exc.message)
            else:
                self.check_number(raw.answer, (*where, "answer"), signed=raw.signed)
            unit = self.unit(raw.unit, (*where, "unit"))
            tolerance = self.tolerance(raw.tolerance, unit, (*where, "tolerance"))
            slips = []
            for k, slip in enumerate(raw.slips):
                if slip.answer is not None:
                    try:
                        check_names(parse_formula(slip.answer), (*where, "slips", k, "answer"),
                                    declared | set(names_so_far) | {raw.name})
                    except FormulaError as exc:
                        self.at((*where, "slips", k, "answer"), exc.message)
                if slip.key not in slip_keys:
                    self.at((*where, "slips", k, "key"), problem_message(
                        "unknown_slip", key=slip.key, hint=suggest(slip.key, slip_keys),
                        keys=", ".join(sorted(slip_keys))))
                elif not 0 < slip.factor < float("inf") or slip.factor == 1:
                    self.at((*where, "slips", k, "factor"), problem_message("slip_factor"))
                else:
                    slips.append(Slip(slip.key, float(slip.factor), slip.symmetric))
            valid = [SlipAt(k, slip) for k, slip in enumerate(raw.slips)
                     if slip.key in slip_keys and 0 < slip.factor < float("inf")
                     and slip.factor != 1]
            for k, message in same_answer_problems(valid):
                self.at((*where, "slips", k), message)
            names_so_far.append(raw.name)
            parts.append(PartSpec(
                name=raw.name, prompt=localized(raw.prompt, language), answer=raw.answer,
                unit=unit, tolerance=tolerance,
                explanation=None if raw.explanation is None
                else localized(raw.explanation, language),
                method=None if raw.method is None else localized(raw.method, language),
                slips=tuple(slips), signed=raw.signed))
        if len(self.problems) != before:
            return None
        spec = CardSpec(type="scenario", prompt=localized(model.prompt, language),
                        explanation=None if model.explanation is None
                        else localized(model.explanation, language),
                        params=params, parts=tuple(parts), **common)
        slip_said: set[tuple[int, int]] = set()
        for names in sample_combinations(params):
            env: dict[str, Value] = dict(names)
            for i, part in enumerate(parts):
                try:
                    env[part.name] = numeric_answer(part.answer, env, signed=part.signed)
                except FormulaError as exc:
                    drawn = ", ".join(f"{k}={format_value(v)}" for k, v in names.items())
                    self.at((*path, "parts", i, "answer"), problem_message(
                        "with_values", detail=exc.message, values=drawn)
                        if drawn else exc.message)
                    return None
                for k, slip in enumerate(model.parts[i].slips):
                    found = None if (i, k) in slip_said else draw_problem(
                        slip, float(number(env[part.name])), env, names, part.unit,
                        part.tolerance or DEFAULT_STEP_TOLERANCE)
                    if found is not None:
                        slip_said.add((i, k))
                        self.at((*path, "parts", i, "slips", k), found)
        if slip_said:
            return None
        for seed, lang in itertools.product(GENERATOR_CHECK_SEEDS, ("en", "es")):
            try:
                spec.instantiate(seed, lang)
            except Exception as exc:  # a text that cannot render with some draw
                self.at(path, problem_message("card_fails", id=model.id,
                                              detail=as_written(str(exc))))
                return None
        return spec

"""The deck and its cards: shapes, ids, generators, formulas over sampled params.

The sampling itself is ``formula_sampling``; a scenario's steps are
``scenario_check``; the fields every card shares are ``field_checks``.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, TypeAdapter, ValidationError

from studyapp.decks.deck_model import (
    AuthoredSlip,
    CardSpec,
    Deck,
    DeckSource,
    ParamSpec,
)
from studyapp.decks.field_checks import MAX_FORMULA_CHECKS
from studyapp.decks.formula import EntryView, Formula, FormulaError, parse_formula
from studyapp.decks.formula_sampling import (
    GENERATOR_CHECK_SEEDS,
    TextAt,
    checks_needed,
    localized,
    sample_key,
    sample_problems,
    variants,
)
from studyapp.decks.language_check import deck_languages
from studyapp.decks.problems import Problem, ProblemMessage, as_written, problem_message
from studyapp.decks.scenario_check import ScenarioChecks
from studyapp.decks.schema import (
    ByLanguage,
    CardModel,
    ChoiceCard,
    DeckFile,
    GeneratedCard,
    NumericCard,
    RecallCard,
    ScenarioCard,
    TextCard,
    TrueFalseCard,
)
from studyapp.decks.schema_errors import schema_problems, suggest
from studyapp.decks.yaml_source import PathKey, SourceMap

_CARD_ADAPTER: TypeAdapter[Any] = TypeAdapter(CardModel)


def _family_post(raw: Any) -> str:
    """A generated card's post in a deck without one: its family's post ("" for an
    authored card, which then belongs to its deck alone)."""
    generator = raw.get("generator") if isinstance(raw, dict) else None
    if not isinstance(generator, str):
        return ""
    from studyapp.questions.generators import registered_families

    family = registered_families().get(generator)
    return family.post if family is not None else ""


class _DeckHeader(DeckFile):
    """The deck's own fields; cards are checked one by one so one bad card hides nothing."""

    cards: list[Any] = Field(min_length=1)  # type: ignore[assignment]


class DeckCheck(ScenarioChecks):
    """All the checks for one parsed file; collects problems, builds the Deck."""

    def __init__(self, path: Path, data: Any, source_map: SourceMap, source: DeckSource) -> None:
        super().__init__(path, data, source_map, source)
        self._sampled: dict[Hashable, list[tuple[PathKey, ProblemMessage]]] = {}
        self.skipped: list[tuple[str, Problem]] = []
        """Each card left out for its problems: its id and its first problem."""
        self.languages: tuple[str, ...] = ()
        """The languages the deck is read in (``language_check.deck_languages``)."""
        self._checks = 0  # formula evaluations the sampling needs, counted before it runs
        self._over = False

    def run(self, *, skip_failing_cards: bool = False) -> Deck | None:
        """The deck, or None when anything has a problem.

        With ``skip_failing_cards`` (a deck read back from a database, which
        nobody checked here) a card with problems is left out and named in
        ``skipped``; the deck is still None when its header, its card ids or
        every card has one.
        """
        data = self.data
        if not isinstance(data, dict):
            self.at((), problem_message("deck_not_mapping"))
            return None
        header: _DeckHeader | None = None
        try:
            header = _DeckHeader.model_validate(data)
        except ValidationError as exc:
            for path, at_key, message in schema_problems(exc, data, (), self.map):
                self.at(path, message, key=at_key)
        raw_language, raw_post, raw_id = data.get("language"), data.get("post"), data.get("deck")
        language = raw_language if raw_language in ("es", "en") else "en"
        post = raw_post if isinstance(raw_post, str) else None
        if post is not None:
            self.check_post(post, ("post",))
        raw_cards = data.get("cards")
        cards: list[CardSpec] = []
        deck_problems = len(self.problems)
        if isinstance(raw_cards, list):
            self.check_card_ids(raw_cards)
            deck_problems = len(self.problems)
            deck_id = raw_id if isinstance(raw_id, str) else ""
            self.languages = deck_languages(data)
            for index, raw in enumerate(raw_cards):
                before = len(self.problems)
                card = self.card(raw, ("cards", index), deck_id, language, post or "")
                if card is not None:
                    cards.append(card)
                elif len(self.problems) > before:
                    card_id = raw.get("id") if isinstance(raw, dict) else None
                    self.skipped.append((str(card_id), self.problems[before]))
        if header is None or (self.problems and not skip_failing_cards):
            return None
        if deck_problems or not cards:  # the deck's own problems, or no card left
            return None
        return Deck(
            id=header.deck,
            title=localized(header.title, header.language),
            language=header.language,
            post=header.post,
            cards=tuple(cards),
            path=self.path,
            source=self.source,
            course=None if header.course is None else localized(header.course, header.language),
            summary=(None if header.summary is None
                     else localized(header.summary, header.language)),
        )

    def check_card_ids(self, raw_cards: list[Any]) -> None:
        first: dict[str, PathKey] = {}
        for index, raw in enumerate(raw_cards):
            if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
                continue
            path: PathKey = ("cards", index, "id")
            card_id = raw["id"]
            if card_id in first:
                line, col = self.map.value(first[card_id])
                self.at(path, problem_message("duplicate_card", id=card_id, line=line, col=col))
            else:
                first[card_id] = path

    # one card
    def card(
        self, raw: Any, path: PathKey, deck_id: str, language: str, deck_post: str
    ) -> CardSpec | None:
        before = len(self.problems)
        try:
            model = _CARD_ADAPTER.validate_python(raw)
        except ValidationError as exc:
            for where, at_key, message in schema_problems(exc, raw, path, self.map):
                self.at(where, message, key=at_key)
            model = _without_unknown_keys(exc, raw)
            if model is None:
                return None
        if model.post is not None:
            self.check_post(model.post, (*path, "post"))
        line, col = self.map.value(path)
        common: dict[str, Any] = {
            "id": model.id,
            "post": model.post or deck_post or _family_post(raw),
            "fact": model.fact,
            "tags": tuple(model.tags),
            "anki_guid": model.anki.guid if model.anki else None,
            "anki_cloze": model.anki.cloze if model.anki else None,
            "deck": deck_id,
            "language": language,
            "languages": self.languages,
            "by_language": frozenset(
                [*([""] if isinstance(getattr(model, "prompt", None), ByLanguage) else []),
                 *(part.name for part in getattr(model, "parts", ())
                   if isinstance(part.prompt, ByLanguage))]),
            "path": self.path,
            "line": line,
            "col": col,
        }
        spec: CardSpec | None
        if isinstance(model, GeneratedCard):
            self.check_generated(model, path)
            spec = CardSpec(type="generated", generator=model.generator,
                            options=dict(model.options), **common)  # fmt: skip
        elif isinstance(model, ScenarioCard):
            spec = self.scenario(model, path, language, common)
        else:
            spec = self.authored(model, path, language, common)
        return spec if len(self.problems) == before else None

    def check_generated(self, model: GeneratedCard, path: PathKey) -> None:
        from studyapp.catalog import UnknownIdError

        try:
            from studyapp.questions.generators import get_family

            family = get_family(model.generator)
        except UnknownIdError as exc:
            hint = (problem_message("did_you_mean", names=", ".join(exc.close))
                    if exc.close else "")  # fmt: skip
            known = (problem_message("generators_known", names=", ".join(exc.known))
                     if exc.known else "")  # fmt: skip
            self.at((*path, "generator"), problem_message(
                "unknown_generator", name=model.generator, hint=hint, known=known))
            return
        except ImportError as exc:
            self.at((*path, "generator"), problem_message("generators_unloadable",
                                                          detail=str(exc)))
            return
        accepted = list(family.options)
        unknown = [name for name in model.options if name not in family.options]
        for name in unknown:
            listed = ", ".join(accepted) if accepted else problem_message("none")
            self.at((*path, "options", name), problem_message(
                "unknown_option", generator=family.name, name=name,
                hint=suggest(name, accepted), options=listed), key=True)
        if unknown:
            return
        for name, value in model.options.items():
            refusal = option_refusal(family, name, value)
            if refusal is not None:
                self.at((*path, "options", name), refusal)
                return
        for seed, lang in itertools.product(GENERATOR_CHECK_SEEDS, ("en", "es")):
            try:
                family.generate(seed, lang, dict(model.options))
            except Exception as exc:  # a family's own error, shown to the deck author
                where = (*path, "options") if model.options else (*path, "generator")
                self.at(where, problem_message("generator_fails", generator=family.name,
                                               detail=as_written(str(exc))))
                return

    def authored(
        self,
        model: ChoiceCard | TrueFalseCard | NumericCard | TextCard | RecallCard,
        path: PathKey,
        language: str,
        common: dict[str, Any],
    ) -> CardSpec | None:
        before = len(self.problems)
        params = self.params(model.params, (*path, "params"))
        declared = set(model.params)
        catalog_params = {n: p.values[0] for n, p in params.items() if p.kind == "catalog"}
        broken_params = declared - set(params)

        def check_formula(formula: Formula, where: PathKey, answer_known: bool) -> None:
            known = declared | ({"answer"} if answer_known else set())
            for name in sorted(formula.names - known):
                if name in broken_params:
                    continue
                listed = ", ".join(sorted(known)) or problem_message("none")
                self.at(where, problem_message("unknown_name", name=name,
                                               hint=suggest(name, known),
                                               formula=formula.source, params=listed))
            for name, field_name in sorted(formula.fields):
                if name not in declared or name in broken_params:
                    continue
                entry = catalog_params.get(name)
                if not isinstance(entry, EntryView):
                    self.at(where, problem_message("not_a_draw", name=name, field=field_name))
                elif field_name not in entry.field_names():
                    self.at(where, problem_message(
                        "unknown_field", table=entry.table, field=field_name,
                        hint=suggest(field_name, entry.field_names())))

        # every text field with {...}, by language
        texts: list[tuple[TextAt, bool]] = []
        texts += [(v, False) for v in variants(model.prompt, (*path, "prompt"), language)]
        if model.explanation is not None:
            expl = variants(model.explanation, (*path, "explanation"), language)
            texts += [(v, True) for v in expl]
        if isinstance(model, ChoiceCard):
            for i, choice in enumerate(model.choices):
                texts += [(v, False) for v in variants(choice, (*path, "choices", i), language)]
        texts += [(v, False) for v in self.feedback_texts(model, path, language)]
        if isinstance(model, TextCard | RecallCard):
            texts += [(v, False) for v in variants(model.answer, (*path, "answer"), language)]
        if isinstance(model, TextCard):
            for i, accepted in enumerate(model.accept):
                texts += [(v, False) for v in variants(accepted, (*path, "accept", i), language)]
        for variant, answer_known in texts:
            for formula in self.text_formulas(variant):
                check_formula(formula, variant.path, answer_known)

        formulas_ok = len(self.problems) == before
        answer: Any = None
        extra: dict[str, Any] = {}
        if isinstance(model, TrueFalseCard) and isinstance(model.answer, str) \
                and model.answer.strip().isidentifier() and model.answer.strip() not in params:
            # a word such as "maybe" or "verdadero": not a formula over the params
            self.at((*path, "answer"), problem_message("truefalse_answer",
                                                       value=model.answer.strip()))
            formulas_ok = False
        elif isinstance(model, TrueFalseCard | NumericCard) and isinstance(model.answer, str):
            try:
                check_formula(parse_formula(model.answer), (*path, "answer"), False)
            except FormulaError as exc:
                self.at((*path, "answer"), exc.message)
                formulas_ok = False
            formulas_ok = formulas_ok and len(self.problems) == before
        signed = isinstance(model, NumericCard) and model.signed
        if formulas_ok:
            self.sample(model.type, model.answer, params, path, [v for v, _ in texts],
                        signed=signed)
        if isinstance(model, ChoiceCard):
            answer = self.choice_answer(model, path, language)
            extra["choices"] = tuple(localized(c, language) for c in model.choices)
        elif isinstance(model, NumericCard):
            answer = model.answer
            extra["signed"] = model.signed
            if not isinstance(answer, str):
                self.check_number(answer, (*path, "answer"), signed=model.signed)
        elif isinstance(model, TrueFalseCard):
            answer = model.answer
        else:
            answer = localized(model.answer, language)
            if isinstance(model, TextCard):
                extra["accept"] = tuple(localized(a, language) for a in model.accept)
        extra.update(self.authored_feedback(model, path, language, check_formula))
        if isinstance(model, NumericCard):
            extra["unit"] = self.unit(model.unit, (*path, "unit"))
            extra["tolerance"] = self.tolerance(model.tolerance, extra["unit"],
                                                (*path, "tolerance"))  # fmt: skip
        if len(self.problems) != before:
            return None
        return CardSpec(
            type=model.type,
            prompt=localized(model.prompt, language),
            explanation=None if model.explanation is None
            else localized(model.explanation, language),
            answer=answer,
            params=params,
            **extra,
            **common,
        )
    def feedback_texts(self, model: Any, path: PathKey, language: str) -> list[TextAt]:
        """The messages of a numeric card's ``slips`` and a choice card's ``feedback``."""
        found: list[TextAt] = []
        if isinstance(model, NumericCard):
            for i, slip in enumerate(model.slips):
                found += variants(slip.message, (*path, "slips", i, "message"), language)
        if isinstance(model, ChoiceCard):
            for i, note in enumerate(model.feedback):
                if note is not None:
                    found += variants(note, (*path, "feedback", i), language)
        return found

    def authored_feedback(self, model: Any, path: PathKey, language: str,
                          check_formula: Any) -> dict[str, Any]:
        """``slips`` of a numeric card and ``feedback`` of a choice card, checked."""
        if isinstance(model, NumericCard) and model.slips:
            seen: dict[str, int] = {}
            slips = []
            for i, slip in enumerate(model.slips):
                where: PathKey = (*path, "slips", i)
                if slip.name in seen:
                    self.at((*where, "name"), problem_message(
                        "slip_repeated", name=slip.name, first=seen[slip.name]))
                seen.setdefault(slip.name, i)
                if isinstance(slip.answer, str):
                    try:
                        check_formula(parse_formula(slip.answer), (*where, "answer"), False)
                    except FormulaError as exc:
                        self.at((*where, "answer"), exc.message)
                slips.append(AuthoredSlip(slip.name, slip.answer,
                                          localized(slip.message, language)))
            return {"slips": tuple(slips)}
        if isinstance(model, ChoiceCard) and model.feedback:
            if len(model.feedback) != len(model.choices):
                self.at((*path, "feedback"), problem_message(
                    "feedback_count", count=len(model.feedback), choices=len(model.choices)))
            return {"feedback": tuple(None if note is None else localized(note, language)
                                      for note in model.feedback)}
        return {}

    def choice_answer(self, model: ChoiceCard, path: PathKey, language: str) -> int | None:
        where: PathKey = (*path, "answer")
        options = [localized(c, language) for c in model.choices]
        for lang in ("es", "en"):
            seen: dict[str, int] = {}
            for i, choice in enumerate(options):
                text = choice.get(lang)
                if text is None:
                    continue
                if text in seen:
                    self.at((*path, "choices", i), problem_message(
                        "choice_repeated", index=i, first=seen[text], text=text))
                seen.setdefault(text, i)
        if isinstance(model.answer, int):
            if 0 <= model.answer < len(options):
                return model.answer
            self.at(where, problem_message("answer_index", index=model.answer,
                                           count=len(options), last=len(options) - 1))
            return None
        for i, choice in enumerate(options):
            if model.answer in choice.values():
                return i
        listed = list(dict.fromkeys(pick for c in options for pick in c.values()))
        self.at(where, problem_message("answer_not_a_choice", answer=model.answer,
                                       hint=suggest(model.answer, listed)))
        return None

    def sample(
        self,
        card_type: str,
        answer_source: Any,
        params: Mapping[str, ParamSpec],
        path: PathKey,
        texts: list[TextAt],
        *,
        signed: bool = False,
    ) -> None:
        """Every formula of the card over its parameters; the first failure of each reported.

        Cards written from one pattern (same formulas, texts and params) give
        the same outcome: it is worked out once per deck and reported again
        at each card's own position.
        """
        kind = "numeric-signed" if signed and card_type == "numeric" else card_type
        key = sample_key(kind, answer_source, params, path, texts)
        found = self._sampled.get(key) if key is not None else None
        if found is None:
            needed = checks_needed(kind, answer_source, params, path, texts)
            self._checks += needed
            if self._checks > MAX_FORMULA_CHECKS:
                if not self._over:  # said once, at the card that crosses the limit
                    self._over = True
                    self.at((*path, "params") if params else path, problem_message(
                        "too_many_checks", card=needed, total=self._checks,
                        limit=MAX_FORMULA_CHECKS))
                return
            found = sample_problems(kind, answer_source, params, path, texts)
            if key is not None:
                self._sampled[key] = found
        for where, message in found:
            self.at((*path, *where), message)


def _without_unknown_keys(error: ValidationError, raw: Any) -> Any:
    """The card validated again without its unknown keys, so later checks still run."""
    items = error.errors(include_url=False)
    if not isinstance(raw, dict) or any(i["type"] != "extra_forbidden" for i in items):
        return None
    unknown = {i["loc"][-1] for i in items if len(i["loc"]) == 2}
    if len(unknown) != len(items):
        return None
    try:
        return _CARD_ADAPTER.validate_python({k: v for k, v in raw.items() if k not in unknown})
    except ValidationError:
        return None




def option_refusal(family: Any, name: str, value: Any) -> ProblemMessage | None:
    """Why a generated card's option value cannot be drawn, as ``generate --option`` says it."""
    from studyapp.questions.generators.options import OptionError, Words, check_options

    def message(words: Words) -> ProblemMessage:
        return ProblemMessage(words.key, tuple((field, message(v) if isinstance(v, Words) else v)
                                        for field, v in words.fields))

    try:
        check_options(family, {name: value}, "en")
    except OptionError as exc:
        return message(exc.words)
    return None

"""The deck file format as pydantic models: validation and the JSON Schema.

These models check shape and types only. What needs the catalog, the
generator registry or formula evaluation is checked afterwards by the
loader, which also maps every error here back to a ``line:col``.

Tagged unions use callable discriminators whose tags are written ``<...>`` so
that the loader can tell a union branch from a real key in an error's path.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    model_validator,
)
from pydantic_core import PydanticCustomError

from studyapp.deck_ids import DECK_ID_PATTERN, MAX_DECK_ID_LENGTH

LANGUAGES: tuple[str, ...] = ("es", "en")


CARD_TYPES: tuple[str, ...] = ("choice", "truefalse", "numeric", "text", "generated", "recall",
                               "scenario")

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._\-]*$"

UNION_TAGS = frozenset(
    {
        "<text>", "<by-language>",
        "<pick-one>", "<range>", "<catalog>", "<constant>",
        *(f"<{kind}>" for kind in CARD_TYPES),
    }
)  # fmt: skip
"""Branch names pydantic puts in error paths; they are not keys in the file."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ByLanguage(_Strict):
    """The same text in each language; at least one is given."""

    es: StrictStr | None = None
    en: StrictStr | None = None

    @model_validator(mode="after")
    def _at_least_one(self) -> ByLanguage:
        if self.es is None and self.en is None:
            raise PydanticCustomError("by_language_empty",
                                      "give the text in at least one language (es, en)")
        return self


def _text_branch(value: Any) -> str | None:
    if isinstance(value, str):
        return "<text>"
    if isinstance(value, dict | ByLanguage):
        return "<by-language>"
    return None


LocalizedText = Annotated[
    Annotated[StrictStr, Tag("<text>")] | Annotated[ByLanguage, Tag("<by-language>")],
    Discriminator(
        _text_branch,
        custom_error_type="localized_text",
        custom_error_message="expected text, or text by language like {es: ..., en: ...}",
    ),
]

Scalar = StrictBool | StrictInt | StrictFloat | StrictStr


class RangeParam(_Strict):
    """Evenly spaced numbers from ``min`` to ``max`` (inclusive), ``step`` apart."""

    min: StrictInt | StrictFloat
    max: StrictInt | StrictFloat
    step: StrictInt | StrictFloat = 1


class CatalogDraw(_Strict):
    """One catalog entry from table ``from``, optionally filtered by ``where``."""

    from_: StrictStr = Field(alias="from")
    where: dict[str, Scalar | list[Scalar]] = Field(default_factory=dict)


def _param_branch(value: Any) -> str | None:
    if isinstance(value, list):
        return "<pick-one>"
    if isinstance(value, dict):
        return "<catalog>" if "from" in value else "<range>"
    if isinstance(value, bool | int | float | str):
        return "<constant>"
    return None


ParamSpecModel = Annotated[
    Annotated[list[Scalar], Tag("<pick-one>"), Field(min_length=1)]
    | Annotated[RangeParam, Tag("<range>")]
    | Annotated[CatalogDraw, Tag("<catalog>")]
    | Annotated[Scalar, Tag("<constant>")],
    Discriminator(
        _param_branch,
        custom_error_type="param_spec",
        custom_error_message=(
            "a parameter is a constant, a list to pick from, {min, max, step}, "
            "or {from: <catalog table>, where: {...}}"
        ),
    ),
]


TAG_PATTERN = r"^\S+$"


class AnkiOrigin(_Strict):
    """The Anki note a card was converted from: an export gives the note back its guid, and
    a cloze note's cards go back as one note."""

    guid: StrictStr = Field(min_length=1, max_length=64)
    cloze: StrictStr | None = Field(None, max_length=100_000,
                                    description="A cloze note's text, its deletions marked")


class _CardBase(_Strict):
    id: str = Field(pattern=ID_PATTERN, max_length=100)
    anki: AnkiOrigin | None = Field(
        None, description="The Anki note the card came from (`deck from-anki` writes it)")
    post: StrictStr | None = None
    fact: str | None = Field(
        None, pattern=ID_PATTERN, max_length=100,
        description="Cards naming the same fact are siblings: once one is answered, "
                    "the others wait until the next study day")
    tags: list[Annotated[str, Field(pattern=TAG_PATTERN, max_length=100)]] = Field(
        default_factory=list, max_length=50,
        description="Words to find the card by (`studyapp cards tag:NAME`); "
                    "`a::b` nests, as in Anki")


class _AuthoredCard(_CardBase):
    prompt: LocalizedText
    explanation: LocalizedText | None = None
    params: dict[str, ParamSpecModel] = Field(default_factory=dict)


class ChoiceCard(_AuthoredCard):
    """Pick one of ``choices``; ``answer`` is the right choice's text or 0-based index.

    ``feedback`` (optional) lists, choice by choice, what to tell a student who
    picks it (``null`` for none)."""

    type: Literal["choice"]
    choices: list[LocalizedText] = Field(min_length=2, max_length=26)
    answer: StrictInt | StrictStr
    feedback: list[LocalizedText | None] = Field(default_factory=list)


class SlipModel(_Strict):
    """A common wrong answer of a numeric card: its value (a formula) and what to say."""

    name: StrictStr = Field(min_length=1, max_length=64)
    answer: StrictInt | StrictFloat | StrictStr
    message: LocalizedText


class TrueFalseCard(_AuthoredCard):
    """``answer`` is true/false, or a formula such as ``gpu.memory_gb > 100``."""

    type: Literal["truefalse"]
    answer: StrictBool | StrictStr


class NumericCard(_AuthoredCard):
    """``answer`` is a formula over ``params``; graded within ``tolerance``."""

    type: Literal["numeric"]
    answer: StrictInt | StrictFloat | StrictStr
    signed: StrictBool = False  # the answer may be negative (a difference, a change)
    unit: StrictStr | None = None
    tolerance: StrictStr | StrictInt | StrictFloat | None = None
    slips: list[SlipModel] = Field(default_factory=list)


class TextCard(_AuthoredCard):
    """A short answer compared case- and space-insensitively with ``accept``."""

    type: Literal["text"]
    answer: LocalizedText
    accept: list[LocalizedText] = Field(default_factory=list)


class RecallCard(_AuthoredCard):
    """Self-graded: the learner recalls, is shown ``answer``, and rates Again/Hard/Good/Easy."""

    type: Literal["recall"]
    answer: LocalizedText


class GeneratedCard(_CardBase):
    """A built-in generator family; each review draws fresh numbers."""

    type: Literal["generated"]
    generator: StrictStr
    options: dict[str, Any] = Field(default_factory=dict)


PART_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"


class PartSlip(_Strict):
    """A likely slip in a step: the factor it leaves in the answer and the slip it names
    (``kv_pair``, ``bits``, ``dtype_bytes``, ``prefix``, ``binary``, ``per_direction``...).

    ``factor`` is the wrong answer divided by the right one; ``answer`` (optional) is
    the wrong answer itself as a formula, checked against ``factor`` for every draw."""

    key: StrictStr
    factor: StrictInt | StrictFloat = Field(
        description="The wrong answer divided by the right one (counted only K of K and V: 0.5)")
    symmetric: StrictBool = False
    answer: StrictStr | None = Field(
        None, description="The wrong answer the slip gives, as a formula over the params, "
                          "the earlier steps and this step's name; checked against factor")


class ScenarioPart(_Strict):
    """One graded step: ``answer`` is a formula over ``params`` and the earlier steps' names."""

    name: str = Field(pattern=PART_NAME_PATTERN, max_length=60,
                      description="The step's name, for the formulas of later steps")
    prompt: LocalizedText
    answer: StrictInt | StrictFloat | StrictStr
    signed: StrictBool = False  # the step's answer may be negative
    unit: StrictStr | None = None
    tolerance: StrictStr | StrictInt | StrictFloat | None = None
    explanation: LocalizedText | None = Field(
        None, description="The worked step; {answer} and every step's name may be used")
    method: LocalizedText | None = Field(None, description="The step's hint: its method")
    slips: list[PartSlip] = Field(default_factory=list)


class ScenarioCard(_AuthoredCard):
    """A problem in 3-6 steps, one card: later steps are graded against the learner's own
    earlier answers too (error carried forward)."""

    type: Literal["scenario"]
    parts: list[ScenarioPart] = Field(min_length=3, max_length=6)


def _card_branch(value: Any) -> str | None:
    if isinstance(value, dict) and value.get("type") in CARD_TYPES:
        return f"<{value['type']}>"
    return None


CardModel = Annotated[
    Annotated[ChoiceCard, Tag("<choice>")]
    | Annotated[TrueFalseCard, Tag("<truefalse>")]
    | Annotated[NumericCard, Tag("<numeric>")]
    | Annotated[TextCard, Tag("<text>")]
    | Annotated[GeneratedCard, Tag("<generated>")]
    | Annotated[RecallCard, Tag("<recall>")]
    | Annotated[ScenarioCard, Tag("<scenario>")],
    Discriminator(
        _card_branch,
        custom_error_type="card_type",
        custom_error_message=f"a card needs a type: {', '.join(CARD_TYPES)}",
    ),
]


class DeckFile(_Strict):
    """A deck as written in YAML (docs/architecture.md, section "Decks")."""

    model_config = ConfigDict(
        title="studyapp deck",
        json_schema_extra={"description": "An instructor deck for studyapp."},
    )

    deck: str = Field(pattern=DECK_ID_PATTERN, max_length=MAX_DECK_ID_LENGTH,
                      description="Stable deck id: lowercase letters, digits and '-'")
    title: LocalizedText
    language: Literal["es", "en"] = Field(description="Language of plain (non-mapping) strings")
    post: StrictStr | None = Field(
        default=None,
        description="Default post slug for the cards; none for a course deck of its own",
    )
    course: LocalizedText | None = Field(
        default=None, description="The course a deck without a post is listed under")
    summary: LocalizedText | None = Field(
        default=None, description="Markdown shown before the deck's first session")
    cards: list[CardModel] = Field(min_length=1)


def deck_json_schema() -> dict[str, Any]:
    """JSON Schema for editors (``studyapp deck schema``)."""
    schema = DeckFile.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema

"""Problems found in a deck file, each tied to a position an editor can jump to.

A problem's words are a ``ProblemMessage``: a key of the ``decks.problem.*`` strings
(content/i18n/deck_problems.<lang>.yaml) and its fields, so the same problem
reads in English (``str(problem)``, JSON, CI) or in the reader's language
(``problem.render(lang)``). Fields may be messages themselves ("did you mean
…" hints, a formula's failure inside "card 'x': …"); they are rendered in the
same language.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from studyapp.i18n import strings

KEY_PREFIX = "decks.problem."
AS_WRITTEN = f"{KEY_PREFIX}as_written"
"""Text studyapp did not compose (a library's own words): shown as is in every language."""

Fields = tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class ProblemMessage:
    """The words of a problem as a key and its fields; hashable and picklable."""

    key: str
    fields: Fields = ()

    def render(self, lang: str = "en") -> str:
        """The text in ``lang`` (English when ``lang`` has no such key)."""

        template = strings(lang).get(self.key)
        if template is None:
            template = strings("en").get(self.key)
        if template is None:  # a key without text is a bug; show what is known
            return f"{self.key} {dict(self.fields)}"
        values = {name: value.render(lang) if isinstance(value, ProblemMessage) else value
                  for name, value in self.fields}  # fmt: skip
        return template.format(**values)

    def __str__(self) -> str:
        return self.render("en")


def problem_message(name: str, /, **fields: object) -> ProblemMessage:
    """The message ``decks.problem.<name>`` with ``fields`` (values must be hashable)."""
    return ProblemMessage(KEY_PREFIX + name, tuple(fields.items()))


def as_written(text: str) -> ProblemMessage:
    """Words studyapp did not compose, kept in English in every language."""
    return ProblemMessage(AS_WRITTEN, (("text", text),))


def either(options: Sequence[object]) -> object:
    """``a or b or c`` in the reader's language (one option is itself; none is "")."""
    if not options:
        return ""
    if len(options) == 1:
        return options[0]
    return problem_message("either", first=options[0], rest=either(options[1:]))


@dataclass(frozen=True, order=True)
class Problem:
    """One problem at ``path:line:col`` (1-based), the form editors and CI read.

    ``message`` is the English text: ``str()``, ordering, equality and JSON
    use it, as they always have. ``key`` and ``fields`` say it again in any
    language (``render``).
    """

    path: Path
    line: int
    col: int
    message: str
    key: str = field(default=AS_WRITTEN, compare=False)
    fields: Fields = field(default=(), compare=False)

    @classmethod
    def at(cls, path: Path, line: int, col: int, message: ProblemMessage | str) -> Problem:
        """The problem with ``message`` (a plain string is kept as written)."""
        words = as_written(message) if isinstance(message, str) else message
        return cls(path, line, col, words.render("en"), words.key, words.fields)

    @property
    def words(self) -> ProblemMessage:
        if self.key == AS_WRITTEN and not self.fields:
            return as_written(self.message)
        return ProblemMessage(self.key, self.fields)

    def message_in(self, lang: str) -> str:
        """The message alone, in ``lang``."""
        return self.message if lang == "en" else self.words.render(lang)

    def render(self, lang: str = "en") -> str:
        """``path:line:col: message`` with the message in ``lang``."""
        return f"{self.path}:{self.line}:{self.col}: {self.message_in(lang)}"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


class DeckError(ValueError):
    """A deck that cannot be used; ``problems`` lists every reason found."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems) or "invalid deck")

    def render(self, lang: str = "en") -> str:
        """Every problem, one a line, in ``lang``."""
        return "\n".join(p.render(lang) for p in self.problems) or str(self)


def sorted_unique(problems: Iterable[Problem]) -> list[Problem]:
    """Problems in file order, each reported once."""
    return sorted(set(problems))

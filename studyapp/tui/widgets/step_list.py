"""A scenario's answered steps, above the step being asked.

Each step is two rows: its number and prompt, then the mark, what the learner
typed and the verdict. A row is a fixed column and a text that wraps beside
it, so a wrapped line stays under its own text (a hanging indent) instead of
running back to the margin, where it would read as the next step.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.containers import HorizontalGroup, VerticalGroup
from textual.content import Content
from textual.widgets import Label, Static


@dataclass(frozen=True)
class AnsweredStep:
    """One answered step as the list shows it (plain text made safe by the screen)."""

    number: int
    prompt: Content
    mark: str  # ✓ right, ↪ right from the learner's own earlier answers, ✗ wrong
    style: str  # the mark's colour, a theme variable
    verdict: Content  # what was typed, then the verdict's message


class StepList(VerticalGroup):
    """The steps answered so far, each a numbered prompt over its indented verdict."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.answered: list[AnsweredStep] = []

    def add(self, step: AnsweredStep) -> None:
        """Show one more answered step, under the others."""
        self.answered.append(step)
        self.mount(
            HorizontalGroup(Label(f"{step.number}. ", classes="step-number"),
                            Static(step.prompt, classes="step-text"), classes="step-row"),
            HorizontalGroup(Label(Content.styled(step.mark + " ", f"bold {step.style}"),
                                  classes="step-mark"),
                            Static(step.verdict, classes="step-text"),
                            classes="step-row step-verdict"))

    def clear(self) -> None:
        """No step answered: a new question."""
        self.answered = []
        self.remove_children()

    @property
    def text(self) -> str:
        """Every step as plain text, one row a line (what a screen reader or a test reads)."""
        return "\n".join(
            f"{s.number}. {s.prompt.plain}\n   {s.mark} {s.verdict.plain}" for s in self.answered)


__all__ = ["AnsweredStep", "StepList"]

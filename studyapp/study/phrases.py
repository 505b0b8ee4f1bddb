"""Words every face shows the same way: waits, choices, the study day, failures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from studyapp.i18n import strings, t
from studyapp.questions.misconceptions import misconception_of
from studyapp.questions.model import Kind, Question
from studyapp.srs.scheduler import format_interval
from studyapp.study.views import SCENARIO_PARTS, SHOWN_CHOICES, ComingBack


def numbered_choice(question: Question, shown: str, limit: int | None = None) -> str:
    """A choice as every face numbers it ("2) HBM3e"), cut to ``limit`` characters.

    Grading names a choice by letter ("b) HBM3e"); the options are listed by
    number, so the answer shown beside them uses the same number. Other
    answers come back unchanged.
    """
    if question.kind is not Kind.CHOICE:
        return shown
    return _renumbered(shown, question.choices, bare=True, limit=limit)


def logged_choice(stored: str | None, params: Mapping[str, Any] | None) -> str | None:
    """A past answer's stored choice ("b) HBM3e", grading's form) numbered as the learner
    saw the options ("2) HBM3e"); anything else comes back unchanged.

    A history lists the shown choices by number, so its expected answer must
    use the same number.
    """
    shown = params.get(SHOWN_CHOICES) if isinstance(params, Mapping) else None
    if not stored or not isinstance(shown, list):
        return stored
    return _renumbered(stored, shown)


def logged_parts(params: Mapping[str, Any] | None, lang: str) -> list[str]:
    """A past scenario answer's steps, one line each: what was answered, right or not, the
    true value when wrong, a named slip, and "from your answer" for error carried forward."""
    steps = params.get(SCENARIO_PARTS) if isinstance(params, Mapping) else None
    if not isinstance(steps, list):
        return []
    lines = []
    for n, step in enumerate(steps, 1):
        if not isinstance(step, Mapping):
            continue
        mark = "✓" if step.get("correct") else "✗"
        line = f"{n}. {step.get('name', '?')}: {step.get('given') or step.get('response')} {mark}"
        if not step.get("correct"):
            line += " " + t("study.part.expected", lang, expected=step.get("expected", "—"))
        if step.get("carried"):
            line += " · " + t("study.part.carried", lang)
        slips = step.get("slips") or []
        if slips:
            line += " · " + t("study.part.slip", lang, slips=", ".join(map(str, slips)))
        if step.get("hint"):
            line += " · " + t("study.part.hint", lang)
        lines.append(line)
    return lines


def _renumbered(answer: str, choices: Sequence[object], *, bare: bool = False,
                limit: int | None = None) -> str:
    """``answer`` in letter form ("b) HBM3e"), or the bare choice text when ``bare``,
    as the numbered option it names, cut to ``limit``; anything else unchanged."""
    for n, choice in enumerate(choices):
        if answer == f"{chr(ord('a') + n)}) {choice}" or (bare and answer == choice):
            text = str(choice)
            if limit is not None and len(text) > limit:
                text = text[: max(1, limit - 1)].rstrip() + "…"
            return f"{n + 1}) {text}"
    return answer


def wait_text(delta: timedelta, lang: str) -> str:
    """How long until a card is back: "now", "9 min", "3h", "2d"."""
    minutes = delta.total_seconds() / 60
    if minutes < 1:
        return t("study.wait.now", lang)
    if minutes < 60:
        return t("study.wait.minutes", lang, minutes=round(minutes))
    return format_interval(delta, lang)


def coming_back_text(coming: ComingBack | None, lang: str) -> str | None:
    """ "3 cards within the hour, next in 9 min" (None when no learning card waits)."""
    if coming is None or coming.next_in is None:
        return None
    wait = wait_text(coming.next_in, lang)
    if coming.within_hour == 0:
        return t("study.comes_back.later", lang, wait=wait)
    key = "study.comes_back.one" if coming.within_hour == 1 else "study.comes_back.many"
    return t(key, lang, count=coming.within_hour, wait=wait)


def describe_failure(exc: BaseException, lang: str = "en") -> str | None:
    """One line for a database failure met after opening (corrupt page, lost server, a
    permission the class's roles do not give), or None."""
    from studyapp.store import describe_database_error  # SQLAlchemy: loaded on failure only
    from studyapp.study.roles import refusal

    return refusal(exc, lang) or describe_database_error(exc)


def _counted(what: str, n: int, lang: str) -> str:
    """"once", "twice", "3 times" (``what`` is ``times`` or ``cards``)."""
    return t(f"study.slips.{what}.{min(n, 3)}", lang, n=n)


def slips_text(key: str, slips: int, cards: int, lang: str) -> str:
    """"You counted K only twice in this session, on two different cards": a sitting's
    slips into one misconception, in the learner's words (a misconception with its own
    ``misconception.<key>.did`` says what was done, any other is named)."""
    own = f"misconception.{key}.did"
    did = (t(own, lang) if own in strings(lang) or own in strings("en")
           else t("study.slips.did", lang, name=misconception_of(key).name(lang)))
    return t("study.slips.line", lang, did=did, times=_counted("times", slips, lang),
             cards=_counted("cards", cards, lang))

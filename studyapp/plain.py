"""``studyapp study --plain``: a line-by-line study loop on stdin/stdout.

For screen readers, scripts and dumb terminals. Same service, scheduling and
storage as the TUI. Every line printed is plain text: deck text is shown
literally, never as markup, with control characters made visible.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from datetime import datetime
from typing import TextIO

from studyapp.i18n import field_labels, t, unit_label
from studyapp.numbers import format_number
from studyapp.questions.model import Kind, Question
from studyapp.srs.scheduler import CardStage, Rating, format_interval
from studyapp.study import (
    CourseView,
    Outcome,
    Presented,
    StudySession,
    numbered_choice,
    slips_text,
)
from studyapp.study.exam import ExamResult, ExamSheet, TimeUp, result_lines
from studyapp.text import explains, tolerate_encodings, typed_answer, visible


def render_question(presented: Presented, lang: str) -> list[str]:
    from studyapp.study import wait_text

    q = presented.question
    marks = []
    if presented.learning:
        marks.append(t("plain.learning", lang, count=presented.learning))
    if presented.early_by is not None:
        marks.append(t("plain.early", lang, wait=wait_text(presented.early_by, lang)))
    head = f"[{presented.number}/{presented.total}]"
    if marks:
        head += " " + " · ".join(marks) + " ·"
    flag = f" · {t('plain.flag', lang, flag=presented.flag)}" if presented.flag else ""
    lines = [f"{head} "
             + t("plain.heading", lang, post=visible(presented.place or q.post),
                 kind=t(f"kind.{q.kind_name}", lang))
             + flag]
    if q.given:
        lines.append(t("plain.given", lang))
        lines.extend(f"  - {visible(line)}" for line in q.given)
    lines.append(visible(q.prompt))
    if q.kind is Kind.CHOICE:
        for n, choice in enumerate(q.choices):
            lines.append(f"  {n + 1}) {visible(choice)}")
        lines.append(t("plain.hint.choice", lang))
    elif q.kind is Kind.TRUEFALSE:
        lines.append(t("plain.hint.yesno" if q.yes_no else "plain.hint.truefalse", lang))
    elif q.kind is Kind.SCENARIO:
        lines.append(t("plain.hint.scenario", lang, count=len(q.parts)))
    elif q.kind is Kind.NUMERIC and q.conversion and q.unit:
        lines.append(t("plain.hint.conversion", lang, unit=unit_label(q.unit, lang)))
    elif q.kind is Kind.NUMERIC:
        unit = unit_label(q.unit, lang) if q.unit else "-"
        lines.append(t("plain.hint.numeric", lang, unit=unit))
    elif q.kind is Kind.RECALL:
        lines.append(t("anki.recall.hint_plain", lang))
    else:
        lines.append(t("plain.hint.text", lang))
    return lines


def post_summary_lines(slug: str, lang: str) -> list[str]:
    """A post's title, tagline and summary as plain text (shown before first study)."""
    from studyapp.catalog.posts import figures_rows, load_post

    post = load_post(slug, lang)
    lines = [post.title, post.tagline, ""]
    lines += markdown_as_text(post.body.strip().splitlines())
    if post.figures is not None:
        rows = figures_rows(post, labels=field_labels(lang))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        lines.append("")
        lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
                  for row in rows]
    return [visible(line) for line in lines]


def course_summary_lines(view: CourseView) -> list[str]:
    """A course deck's title, course and summary as plain text (shown before its first
    session, as a post's summary is)."""
    lines = [view.title] + ([view.course] if view.course != view.title else []) + [""]
    lines += markdown_as_text(view.summary.strip().splitlines())
    return [visible(line) for line in lines] + [""]


_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")


def markdown_as_text(lines: list[str]) -> list[str]:
    """A post body's Markdown as a reader of plain text wants it.

    Headings become their text, emphasis and code marks go, links show their
    address in brackets, and tables line up in columns: a screen reader
    should not read "hash hash" or "star star".
    """
    out: list[str] = []
    table: list[list[str]] = []

    def flush_table() -> None:
        if table:
            widths = [max(len(row[i]) if i < len(row) else 0 for row in table)
                      for i in range(max(len(row) for row in table))]
            out.extend("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False))
                       .rstrip() for row in table)
            table.clear()

    for line in lines:
        stripped = line.strip()
        if stripped.startswith("|"):
            if not _TABLE_RULE.match(stripped):
                table.append([_inline(cell.strip()) for cell in stripped.strip("|").split("|")])
            continue
        flush_table()
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*$", stripped)
        out.append(_inline(heading.group(1)) if heading else _inline(line))
    flush_table()
    return out


def _inline(text: str) -> str:
    """One line without inline Markdown marks."""
    text = _LINK.sub(r"\1 (\2)", text)
    text = _EMPHASIS.sub(lambda m: m.group(2) or m.group(3), text)
    return text.replace("`", "")


TRUE_KEYS = frozenset({"1", "y", "s", "v"})
FALSE_KEYS = frozenset({"2", "n", "f"})
"""True/false by one key: 1/2, y/n, and in Spanish s/n or v/f (verdadero/falso)."""


def _normalise_truefalse(question: Question, line: str) -> str:
    """In plain mode true/false is also offered as 1) true 2) false, and v/f."""
    key = line.strip().lower()
    if question.kind is Kind.TRUEFALSE and key in TRUE_KEYS | FALSE_KEYS:
        return "true" if key in TRUE_KEYS else "false"
    return line


def run_plain(session: StudySession, *, stdin: TextIO | None = None,
              stdout: TextIO | None = None) -> int:
    """Ask until the limit or the queue ends, or input ends. Returns the exit code."""
    tolerate_encodings()
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    lang = session.lang
    reason = session.service.read_only
    if reason:
        out.write(t("plain.read_only", lang, reason=reason) + "\n")

    def say(*lines: str) -> None:
        for line in lines:
            out.write(line + "\n")
        out.flush()

    def read(prompt: str) -> str | None:
        out.write(prompt)
        out.flush()
        line = inp.readline()
        if not line:
            return None
        return typed_answer(line)  # answers, ratings and "!" read the same however pasted

    say(*(visible(notice) for notice in session.notices()))  # answers kept earlier, sent
    try:
        _loop(session, say, read, lang)
    finally:
        say(*(visible(notice) for notice in session.finish()))
    say("")
    if not session.practice and session.answered:
        from studyapp.study import coming_back_text

        text = coming_back_text(session.service.coming_back(), lang)
        if text:
            say(t("plain.comes_back", lang, text=text))
    say(t("plain.session", lang, answered=session.answered, correct=session.correct))
    say(*(slips_text(*made, lang) for made in session.slips_made()))
    return 0


def _loop(session: StudySession, say: Callable[..., None], read: Callable[[str], str | None],
          lang: str) -> None:
    """Ask until the session runs out of questions or the input ends."""
    while True:
        presented = session.next()
        say(*(visible(notice) for notice in session.notices()))
        if presented is None:
            if session.answered == 0:
                say(*_nothing_to_study(session, lang))
            return
        say("", *render_question(presented, lang))
        if presented.question.kind is Kind.SCENARIO:
            scenario = _ask_steps(session, presented.question, say, read, lang)
            if scenario is None:  # input ended: a wrong step said so far is kept as Again
                if session.settle() is not None:
                    say("", t("plain.eof_steps", lang))
                return
            outcome = scenario
            verdict = outcome.verdict
        while presented.question.kind is not Kind.SCENARIO:
            line = read("> ")
            if line is None:
                return
            if line.strip() == ANOTHER and session.can_another:
                presented = session.another()  # this question waits; the missed one again
                say("", t("plain.another", lang), *render_question(presented, lang))
                continue
            if line.strip() == "!" and session.can_overrule:
                # "I was right" about the previous answer, typed at this prompt
                if session.overrule():
                    say(t("plain.overruled", lang))
                continue
            outcome = session.submit(_normalise_truefalse(presented.question, line))
            say(*(visible(notice) for notice in session.notices()))
            verdict = outcome.verdict
            if verdict.correct is None:
                say(visible(verdict.message))
                continue
            break
        say(visible(verdict.message) or (t("plain.right", lang) if verdict.correct
                                          else t("plain.wrong", lang)))
        recall = presented.question.kind is Kind.RECALL
        if verdict.given and not recall and presented.question.kind is not Kind.SCENARIO:
            q = presented.question
            say(t("plain.compare", lang, given=visible(numbered_choice(q, verdict.given)),
                  expected=visible(numbered_choice(q, verdict.expected))))
        if explains(presented.question.explanation, verdict.expected):
            say(t("plain.explanation", lang), visible(presented.question.explanation))
        if outcome.counted:  # what the scenario's steps counted for (study.ladders)
            say(visible(outcome.counted))
        if outcome.needs_rating:
            if not _rate(session, outcome, say, read, lang, recall=recall):
                return
        elif outcome.can_overrule:
            say(t("plain.continue", lang))
        if session.can_another:
            say(t("plain.another_hint", lang, key=ANOTHER))


def render_step(question: Question, index: int, lang: str) -> list[str]:
    """One scenario step: ``step k/K: prompt`` and how to answer it."""
    part = question.parts[index].question
    lines = [t("plain.step", lang, number=index + 1, total=len(question.parts),
               prompt=visible(part.prompt))]
    if part.kind is Kind.CHOICE:
        lines += [f"  {n + 1}) {visible(choice)}" for n, choice in enumerate(part.choices)]
        lines.append(t("plain.hint.choice", lang))
    else:
        lines.append(t("plain.hint.numeric", lang, unit=part.unit or "-"))
    lines.append(t("plain.hint.method", lang))
    return lines


def _ask_steps(session: StudySession, question: Question, say: Callable[..., None],
               read: Callable[[str], str | None], lang: str) -> Outcome | None:
    """A scenario's steps, one line each; ``?`` shows the step's method. None: input ended.

    After each step its verdict (and, when wrong, the expected value) is printed,
    so the learner goes on from their own answer; the last step's outcome is the
    scenario's.
    """
    while True:
        index = session.part_index
        assert index is not None
        say("", *render_step(question, index, lang))
        while True:
            line = read("> ")
            if line is None:
                return None
            if line.strip() == "!" and session.can_overrule and index == 0:
                if session.overrule():
                    say(t("plain.overruled", lang))
                continue
            if line.strip() == "?":
                method = session.show_method()
                if method:
                    say(t("plain.method", lang, method=visible(method)),
                        t("plain.rate_capped_step", lang))
                continue
            outcome = session.submit(line)
            say(*(visible(notice) for notice in session.notices()))
            if outcome.verdict.retry:
                say(visible(outcome.verdict.message))
                continue
            break
        step = outcome.part
        assert step is not None
        say(visible(step.verdict.message))
        if not step.correct and not step.carried:
            part = question.parts[index].question
            say(t("plain.compare", lang, given=visible(numbered_choice(part, step.verdict.given)),
                  expected=visible(numbered_choice(part, step.verdict.expected))))
        if outcome.parts_left == 0:
            return outcome


ANOTHER = "+"
"""Typed at the prompt after a miss on a method card: its family again with new numbers."""

MORE_NEW = 10
"""New cards ``--more-new`` is suggested with, as many as the app's m key adds."""


def _nothing_to_study(session: StudySession, lang: str) -> list[str]:
    """Why the session is empty, and the options that study on anyway."""
    if session.practice:
        return [t("plain.nothing_to_practise", lang)]
    if session.service.overview(with_streak=False).new_limit_reached:
        return [t("plain.nothing_due", lang), t("plain.more_new_hint", lang, more=MORE_NEW),
                t("plain.practice_hint", lang)]
    return [t("plain.nothing_left", lang), t("plain.practice_hint", lang)]


def rating_name(rating: Rating, lang: str, *, recall: bool = False) -> str:
    """A right answer rated Again means "I guessed", in the words the terminal app uses;
    on a self-graded card it is plain Again (forgot)."""
    guessed = rating is Rating.AGAIN and not recall
    return t("rating.guessed" if guessed else f"rating.{rating.name.lower()}", lang)


def _rate(session: StudySession, outcome: Outcome, say: Callable[..., None],
          read: Callable[[str], str | None], lang: str, *, recall: bool = False) -> bool:
    """Ask for a rating of a right answer (or of a self-graded card); False when input ends."""
    offered = [r for r in Rating if r <= outcome.max_rating]
    default = min(Rating.GOOD, outcome.max_rating)
    options = "  ".join(  # no intervals while the server is away and the card unknown
        f"{r.value}={rating_name(r, lang, recall=recall)}"
        + (f" ({format_interval(outcome.intervals[r], lang)})" if r in outcome.intervals else "")
        for r in offered)
    default_name = rating_name(default, lang, recall=recall)
    say(t("anki.recall.rate" if recall else "plain.rate", lang, options=options,
          default=default_name))
    if outcome.max_rating < Rating.EASY:
        say(t("plain.rate_capped_by_step" if outcome.capped_by_step
              else "plain.rate_capped_step" if outcome.capped_by_method else "plain.rate_capped",
              lang))
    while True:
        line = read("> ")
        if line is None:
            if recall:  # a self-graded card is what its rating says: none was given
                say("", t("plain.eof_unrated", lang))
                return False
            session.rate(default)  # as Enter would: the learner saw "Right."
            say("", t("plain.eof_rated", lang, rating=default_name))
            return False
        choice = line.strip()
        if choice == "":
            session.rate(default)
            return True
        if choice.isascii() and choice.isdigit() and int(choice) in [r.value for r in offered]:
            session.rate(Rating(int(choice)))
            return True
        say(t("plain.rate_again", lang, last=offered[-1].value, default=default_name))


# ---------------------------------------------------------------- mock exam


def run_exam_plain(sheet: ExamSheet, now: Callable[[], datetime], lang: str, *,
                   stdin: TextIO | None = None, stdout: TextIO | None = None) -> ExamResult:
    """The paper line by line: no verdicts while it runs; an empty answer leaves a question
    blank; the result, per post and per misconception, with every worked solution at the end.
    """
    tolerate_encodings()
    inp, out = stdin or sys.stdin, stdout or sys.stdout

    def say(*lines: str) -> None:
        out.write("".join(line + "\n" for line in lines))
        out.flush()

    def read() -> str | None:
        out.write("> ")
        out.flush()
        line = inp.readline()
        return None if not line else typed_answer(line)

    total = len(sheet.items)
    say(t("exam.plain.start", lang, count=total, minutes=_minutes(sheet.minutes, lang)))
    for index, item in enumerate(sheet.items):
        left = sheet.left(now())
        if left.total_seconds() <= 0:
            say("", t("exam.time_up", lang))
            break
        q = item.question
        presented = Presented(index + 1, total, item.key[0], item.key[1], q, CardStage.NEW,
                              place=item.post)
        say("", t("exam.plain.left", lang, left=_minutes(left.total_seconds() / 60, lang)),
            *render_question(presented, lang))
        if not _exam_answer(sheet, index, q, say, read, now, lang):
            break
    result = sheet.hand_in(now())
    say("", *result_lines(result, lang))
    return result


def _exam_answer(sheet: ExamSheet, index: int, q: Question, say: Callable[..., None],
                 read: Callable[[], str | None], now: Callable[[], datetime], lang: str) -> bool:
    """One question (every step of a scenario); False when the input ended or time ran out."""
    steps = len(q.parts) if q.kind is Kind.SCENARIO else 1
    while sheet.step(index) < steps and not sheet.answered(index):
        if q.kind is Kind.SCENARIO:
            say(*render_step(q, sheet.step(index), lang)[:-1])  # no method hint in an exam
        line = read()
        if line is None:
            return False
        if not line.strip():
            return True  # left blank: counted wrong at the end
        try:
            message = sheet.answer(index, _normalise_truefalse(
                q.parts[sheet.step(index)].question if q.kind is Kind.SCENARIO else q, line),
                now())
        except TimeUp:
            say(t("exam.time_up", lang))
            return False
        if message:
            say(visible(message))
    return True


def _minutes(value: float, lang: str) -> str:
    return format_number(max(value, 0.0), lang, 2)

"""Edits that never break a deck: the ``$EDITOR`` loop over a temporary copy.

The instructor's editor opens a copy of the deck file at the card's line
(``$VISUAL`` or ``$EDITOR``, else ``vi``, called as ``EDITOR +LINE FILE``).
When the editor ends, the copy is validated. A good copy replaces the file
(by rename: never half a file); a copy with problems reopens the editor at the
first problem's line, the problems written above the deck as ``# studyapp:``
comment lines (removed before the copy is checked again). Saving an empty
file, or leaving the editor without changing the copy, gives up: the file
keeps its last good text.

Which file is edited: the source file a deck was added from (``deck add``
records it), and the installed copy is refreshed from it; an installed copy
with no known source (or changed since it was added) is edited where it is, and
the instructor is told that the next ``deck add`` of the source would replace
it; a built-in deck is first copied into the user's deck folder, where the
copy overrides it and keeps every card's progress.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from studyapp import locations
from studyapp.decks.deck_loader import check_deck_file
from studyapp.decks.deck_model import Deck, DeckSource
from studyapp.decks.problems import Problem, ProblemMessage, problem_message
from studyapp.decks.provenance import edited_since_install, installed_from, record_install
from studyapp.i18n import t

EditorRun = Callable[[Path, int], int]
"""Runs the editor on a file at a line and returns its exit code."""

MAX_ROUNDS = 50
"""Reopenings before the loop gives up on its own (an editor that never fixes anything)."""

EditStatus = Literal["saved", "unchanged", "gave_up", "editor_failed"]


@dataclass(frozen=True)
class EditPlan:
    """What one edit opens and where a good result goes."""

    deck: str
    path: Path  # the file the instructor's edit replaces
    line: int
    source: DeckSource  # how that file is checked
    installed: Path | None = None  # the installed copy refreshed from ``path``
    notes: tuple[ProblemMessage, ...] = ()  # what the instructor is told before the editor opens
    original: Path | None = None  # where the text starts while ``path`` does not exist yet


@dataclass(frozen=True)
class EditOutcome:
    """How an edit ended: the file written or kept, and the last problems seen."""

    status: EditStatus
    plan: EditPlan
    rounds: int
    problems: tuple[Problem, ...] = ()
    deck: Deck | None = None  # the deck as saved
    editor_code: int = 0
    lines_opened: tuple[int, ...] = field(default=())

    @property
    def live(self) -> Path:
        """The file study loads the deck from."""
        return self.plan.installed or self.plan.path


def editor_command(path: Path, line: int) -> list[str]:
    """``$VISUAL``/``$EDITOR`` (``vi`` when neither is set) ``+LINE FILE``."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return [*shlex.split(editor), f"+{line}", str(path)]


def editor_name() -> str:
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"


def user_copy_of_builtin(deck: Deck) -> Path:
    """The user's ``<id>.yaml`` copy of a built-in deck, made (by rename) if missing."""
    folder = locations.user_decks_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{deck.id}.yaml"
    if not target.exists():
        _write_by_rename(deck.path, target, prefix=".copying-")
    return target


def plan_edit(deck: Deck, line: int) -> EditPlan:
    """Which file an edit of ``deck`` opens (see the module's text)."""
    if deck.source == "builtin":  # saved as the user's copy, which then overrides it
        copy = locations.user_decks_dir() / f"{deck.id}.yaml"
        return EditPlan(deck.id, copy, line, "user", original=deck.path,
                        notes=(problem_message("edit_builtin_copied", path=str(copy)),))
    if deck.source != "user":
        return EditPlan(deck.id, deck.path, line, deck.source)
    record = installed_from(deck.id)
    if _inside(deck.path, locations.data_dir() / "published"):
        # the database's copy: what every profile studies changes only with `deck publish`
        if record is not None and record.source.is_file():
            return EditPlan(deck.id, record.source, line, "file", notes=(problem_message(
                "edit_published_source", path=str(record.source)),))
        return EditPlan(deck.id, deck.path, line, "user", notes=(problem_message(
            "edit_published_copy", path=str(deck.path)),))
    if record is not None and record.source.is_file() \
            and edited_since_install(deck.id, deck.path) is None:
        return EditPlan(deck.id, record.source, line, "file", installed=deck.path,
                        notes=(problem_message("edit_source", path=str(record.source),
                                               installed=str(deck.path)),))
    note = problem_message("edit_installed_copy_unknown", path=str(deck.path)) \
        if record is None else \
        problem_message("edit_installed_copy", path=str(deck.path), source=str(record.source))
    return EditPlan(deck.id, deck.path, line, "user", notes=(note,))


NOTE_PREFIX = "# studyapp: "
"""Lines at the top of a reopened copy that say what to fix; removed before it is checked."""

MAX_NOTED = 10
"""Problems written at the top of a reopened copy (the first ones; the rest follow a fix)."""


def edit_until_valid(plan: EditPlan, run_editor: EditorRun, *, lang: str = "en",
                     on_problems: Callable[[tuple[Problem, ...], int], None] | None = None,
                     max_rounds: int = MAX_ROUNDS) -> EditOutcome:
    """Open a copy of ``plan.path`` until it validates, or the instructor gives up.

    A copy with problems is reopened with them written at its top, as
    ``# studyapp: `` comment lines (in ``lang``), and the editor at the first
    problem's line; those lines are removed again before the copy is checked.
    ``on_problems(problems, line)`` is told before the editor reopens at ``line``.
    """
    start = plan.path if plan.path.exists() or plan.original is None else plan.original
    original = start.read_bytes()
    folder = Path(tempfile.mkdtemp(prefix="studyapp-edit-"))
    try:
        copy = folder / plan.path.name
        copy.write_bytes(original)
        line, shown, lines = plan.line, original, []
        problems: tuple[Problem, ...] = ()
        for rounds in range(1, max_rounds + 1):
            lines.append(line)
            code = run_editor(copy, line)
            if code != 0:
                return EditOutcome("editor_failed", plan, rounds, problems, editor_code=code,
                                   lines_opened=tuple(lines))
            after = copy.read_bytes()
            if after == original and rounds == 1:
                return EditOutcome("unchanged", plan, rounds, lines_opened=tuple(lines))
            body = _without_notes(after)
            if not body.strip() or after == shown:
                return EditOutcome("gave_up", plan, rounds, problems, lines_opened=tuple(lines))
            copy.write_bytes(body)
            deck, found = _check(copy, plan)
            if deck is not None and not found:
                _write_by_rename(copy, plan.path, prefix=".saving-")
                if plan.installed is not None:
                    _write_by_rename(plan.path, plan.installed, prefix=".installing-")
                    record_install(plan.deck, plan.path, plan.installed)
                return EditOutcome("saved", plan, rounds, (), deck, lines_opened=tuple(lines))
            problems = tuple(replace(p, path=plan.path) for p in found)
            notes = _notes(problems, lang)
            shown = notes + body
            copy.write_bytes(shown)
            line = (problems[0].line if problems else 1) + notes.count(b"\n")
            if on_problems is not None and rounds < max_rounds:
                on_problems(problems, line)
        return EditOutcome("gave_up", plan, max_rounds, problems, lines_opened=tuple(lines))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _notes(problems: tuple[Problem, ...], lang: str) -> bytes:
    """The ``# studyapp:`` lines that head a reopened copy: what to fix, at its shifted line."""

    noted = problems[:MAX_NOTED]
    shift = 1 + len(noted)
    lines = [t("decks.edit.note_header", lang, n=len(problems))]
    lines += [t("decks.edit.note_problem", lang, line=p.line + shift, col=p.col,
                message=" ".join(p.message_in(lang).split())) for p in noted]
    return "".join(f"{NOTE_PREFIX}{text}\n" for text in lines).encode("utf-8")


def _without_notes(text: bytes) -> bytes:
    """The copy without the ``# studyapp:`` lines at its top."""
    prefix = NOTE_PREFIX.encode("utf-8")
    rest = text
    while rest.startswith(prefix):
        _, newline, rest = rest.partition(b"\n")
        if not newline:
            return b""
    return rest


def _check(copy: Path, plan: EditPlan) -> tuple[Deck | None, list[Problem]]:
    """The copy's deck and problems; an edit keeps the deck's id."""
    deck, problems = check_deck_file(copy, plan.source)
    if deck is not None and not problems and deck.id != plan.deck:
        text = copy.read_text(encoding="utf-8", errors="replace")
        match = re.search(r"^deck\s*:", text, flags=re.MULTILINE)
        line = text.count("\n", 0, match.start()) + 1 if match else 1
        message = problem_message("edit_keeps_id", id=plan.deck, new=deck.id)
        return None, [Problem.at(copy, line, 1, message)]
    return deck, problems


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def _write_by_rename(source: Path, target: Path, *, prefix: str) -> None:
    """Copy ``source`` over ``target`` through a temporary file and a rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=prefix, suffix=".tmp")
    os.close(fd)
    try:
        shutil.copyfile(source, temp)
        if target.exists():
            shutil.copymode(target, temp)  # the file keeps its permissions
        os.replace(temp, target)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


__all__ = ["MAX_ROUNDS", "EditOutcome", "EditPlan", "EditorRun", "edit_until_valid",
           "editor_command", "editor_name", "plan_edit", "user_copy_of_builtin"]

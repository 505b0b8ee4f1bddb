"""Answers not yet in the database: graded answers not yet recorded, and every
answer given while the database server was away.

A right answer waits for the learner's rating; a scenario with a wrong step
waits for its last step. Either is held here the moment it is graded (the
scenario's copy replaced at each step); the transaction that records it
removes it (``Answer.held_id``). Whatever an app that is gone still holds
(it was killed, the machine lost power) is recorded, as the rating Enter
would have given or as the scenario's Again, the next time the profile is
opened or its progress read (``studyapp.study.held``), so an answer given is
never lost.

When the server of a class database cannot be reached, answers (right and
wrong, and right ones waiting for their rating) are kept in a file on this
machine instead (``KeptAnswers``) and written, oldest first, when it is back;
each keeps its review uid, so one sent twice (a reply lost on the way) is
written once.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, fields
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select

from studyapp.store.database import Store
from studyapp.store.progress import Answer, StateFor, record_answer
from studyapp.store.tables import HeldAnswer

_KEPT = tuple(f.name for f in fields(Answer) if f.name not in ("state", "held_id"))
ABANDONED_ELSEWHERE = timedelta(hours=24)
"""A held answer of another machine's app is taken as abandoned after this long."""


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name (Linux), or none."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def _started(pid: int) -> str:
    """When process ``pid`` started (Linux), so a reused pid is not taken for the holder."""
    fields = _stat(pid)
    return fields[19] if len(fields) > 19 else ""


def this_process() -> dict[str, Any]:
    """Who holds an answer: this machine, this process and when it started."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "started": _started(os.getpid())}


def holder_alive(holder: dict[str, Any], held_at: datetime, now: datetime) -> bool:
    """Is the app that held an answer still running (and may still rate it)?"""
    if holder.get("host") != socket.gethostname():
        return now - held_at < ABANDONED_ELSEWHERE
    pid = holder.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    fields = _stat(pid)
    if fields[:1] == ["Z"]:  # killed, not yet reaped by its parent (a server's tab)
        return False
    return _started(pid) == str(holder.get("started", ""))


def _as_json(answer: Answer) -> dict[str, Any]:
    data = {key: value for key, value in asdict(answer).items() if key in _KEPT}
    data["reviewed_at"] = answer.reviewed_at.isoformat()
    if data.get("params") is not None:
        data["params"] = dict(data["params"])
    return data


def _from_json(data: dict[str, Any], held_id: int | None) -> Answer:
    values: dict[str, Any] = {key: data[key] for key in _KEPT if key in data}
    values["reviewed_at"] = datetime.fromisoformat(str(data["reviewed_at"]))
    return Answer(**values, state=None, held_id=held_id)


def hold_answer(store: Store, profile_id: int, answer: Answer, now: datetime) -> int:
    """Keep a right answer until its rating is recorded; the held row's id."""
    with store.transaction() as session:
        row = HeldAnswer(profile_id=profile_id,
                         answer={**_as_json(answer), "holder": this_process()}, held_at=now)
        session.add(row)
        session.flush()
        return row.id


def release_answer(store: Store, held_id: int, profile_id: int | None = None) -> None:
    """Forget a held answer that will not be recorded (a practice answer, a skipped card);
    with ``profile_id``, only if it is that profile's."""
    released = delete(HeldAnswer).where(HeldAnswer.id == held_id)
    if profile_id is not None:
        released = released.where(HeldAnswer.profile_id == profile_id)
    with store.transaction() as session:
        session.execute(released)


def holding_profiles(store: Store) -> set[int]:
    """The profiles with held answers (live or abandoned): the few a report looks at."""
    with store.sessions() as session:
        return set(session.execute(select(HeldAnswer.profile_id).distinct()).scalars())


def abandoned_answers(store: Store, profile_id: int, now: datetime) -> list[Answer]:
    """Held answers whose app is gone, oldest first, each knowing its held row.

    Another tab or process of the same profile may be holding an answer it is
    about to rate: those are left alone.
    """
    with store.sessions() as session:
        rows = session.execute(select(HeldAnswer.id, HeldAnswer.answer, HeldAnswer.held_at)
                               .where(HeldAnswer.profile_id == profile_id)
                               .order_by(HeldAnswer.held_at, HeldAnswer.id)).all()
    return [_from_json(dict(data), held_id) for held_id, data, held_at in rows
            if not holder_alive(dict(data).get("holder") or {}, held_at, now)]


class KeptFileError(Exception):
    """The file of kept answers cannot be read; it was moved aside (the message says where)."""


@dataclass(frozen=True)
class Kept:
    """One answer kept on this machine: ``waiting`` for its rating, or ready to send."""

    id: int
    answer: Answer
    waiting: bool = False
    holder: dict[str, Any] | None = None
    kept_at: datetime | None = None


def _kept_from_json(entry: Any) -> Kept:
    """One entry of the file, checked: a wrong type is a ValueError, never a bad write."""
    if not isinstance(entry, dict) or not isinstance(entry.get("answer"), dict):
        raise ValueError("an entry is not an answer")
    local_id, data = entry.get("id"), entry["answer"]
    held_id = entry.get("held_id")
    if not isinstance(local_id, int) or isinstance(local_id, bool) or local_id <= 0:
        raise ValueError("an entry has no id")
    if held_id is not None and (not isinstance(held_id, int) or isinstance(held_id, bool)):
        raise ValueError("an entry's held id is not a number")
    for key, kind in (("deck_id", str), ("card_key", str), ("post", str), ("rating", int),
                      ("correct", bool), ("reviewed_at", str), ("uid", str)):
        if not isinstance(data.get(key), kind):
            raise ValueError(f"an answer's {key} is missing or of the wrong type")
    if not 1 <= data["rating"] <= 4:
        raise ValueError("an answer's rating is not 1 to 4")
    for key, kinds in (("family", (str,)), ("prompt", (str,)), ("response", (str,)),
                       ("expected", (str,)), ("lang", (str,)), ("duration_ms", (int,)),
                       ("seed", (int,)), ("params", (dict,)), ("overridden", (bool,)),
                       ("looked_at_post", (bool,))):
        if data.get(key) is not None and not isinstance(data[key], kinds):
            raise ValueError(f"an answer's {key} is of the wrong type")
    answer = _from_json(data, held_id)
    if answer.reviewed_at.tzinfo is None:
        raise ValueError("an answer's time has no time zone")
    holder = entry.get("holder")
    kept_at = entry.get("kept_at")
    return Kept(local_id, answer, bool(entry.get("waiting")),
                holder if isinstance(holder, dict) else None,
                datetime.fromisoformat(kept_at) if isinstance(kept_at, str) else None)


def _kept_as_json(kept: Kept) -> dict[str, Any]:
    return {"id": kept.id, "answer": _as_json(kept.answer), "held_id": kept.answer.held_id,
            "waiting": kept.waiting, "holder": kept.holder,
            "kept_at": kept.kept_at.isoformat() if kept.kept_at else None}


class KeptAnswers:
    """Answers given while the database server was away, in a file on this machine.

    One file per database and profile, readable by its owner only, replaced
    whole at each change (a crash leaves the old one or the new one); a lock
    file beside it keeps two processes of the same learner from sending the
    same answers or losing each other's. Ids are local (1, 2, ...) and never
    reused within the file.
    """

    def __init__(self, path: Path, database: str, profile: str) -> None:
        self.path = path
        self.database = database
        self.profile = profile

    def __bool__(self) -> bool:
        """Whether anything may be kept (cheap: the file exists)."""
        return self.path.exists()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        """The file's contents, locked; written back whole when the block changes them."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)
            except ImportError:  # pragma: no cover - Windows: one process at a time
                pass
            content = self._read()
            before = json.dumps(content, sort_keys=True)
            yield content
            if json.dumps(content, sort_keys=True) != before:
                self._write(content)
        finally:
            os.close(fd)

    def _read(self) -> dict[str, Any]:
        empty: dict[str, Any] = {"database": self.database, "profile": self.profile,
                                 "next": 1, "answers": [], "released": []}
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return empty
        try:
            content = json.loads(text)
            if not isinstance(content, dict):
                raise ValueError("not an object")
            entries = content.get("answers")
            released = content.get("released", [])
            if not isinstance(entries, list) or not isinstance(released, list):
                raise ValueError("no list of answers")
            for entry in entries:
                _kept_from_json(entry)
            if not all(isinstance(held, int) and not isinstance(held, bool)
                       for held in released):
                raise ValueError("a released id is not a number")
            if not isinstance(content.get("next"), int):
                content["next"] = 1 + max((e["id"] for e in entries), default=0)
        except (ValueError, TypeError, KeyError) as exc:
            aside = self.path.with_name(self.path.name + ".unreadable")
            os.replace(self.path, aside)
            raise KeptFileError(f"{self.path}: {exc}; it was moved to {aside}") from None
        content.setdefault("released", [])
        return content

    def _write(self, content: dict[str, Any]) -> None:
        if not content["answers"] and not content["released"]:
            self.path.unlink(missing_ok=True)
            return
        fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.",
                                    suffix=".partial")  # 0600: the learner's answers
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(content, handle, ensure_ascii=False, indent=1)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def entries(self) -> list[Kept]:
        """Every kept answer, oldest first."""
        with self._locked() as content:
            return [_kept_from_json(entry) for entry in content["answers"]]

    def keep(self, answer: Answer, now: datetime, *, waiting: bool = False) -> int:
        """Keep ``answer`` (with its uid); its local id. ``waiting``: for its rating."""
        with self._locked() as content:
            local_id = int(content["next"])
            content["next"] = local_id + 1
            kept = Kept(local_id, answer, waiting, this_process() if waiting else None, now)
            content["answers"].append(_kept_as_json(kept))
            return local_id

    def rated(self, local_id: int, answer: Answer) -> bool:
        """A waiting answer is rated: ``answer`` takes its place, ready to send."""
        with self._locked() as content:
            for index, entry in enumerate(content["answers"]):
                if entry.get("id") == local_id:
                    old = _kept_from_json(entry)
                    content["answers"][index] = _kept_as_json(
                        Kept(local_id, answer, False, None, old.kept_at))
                    return True
        return False

    def drop(self, local_id: int) -> bool:
        """Forget a kept answer (undone, or a waiting one skipped); False when not kept."""
        with self._locked() as content:
            before = len(content["answers"])
            content["answers"] = [e for e in content["answers"] if e.get("id") != local_id]
            return len(content["answers"]) < before

    def release_later(self, held_id: int) -> None:
        """A right answer held in the database will not be recorded: release it when back."""
        with self._locked() as content:
            if held_id not in content["released"]:
                content["released"].append(held_id)

    def ready(self) -> int:
        """How many kept answers would be sent now (not those waiting in a live app)."""
        if not self:
            return 0
        now = datetime.now().astimezone()
        return sum(1 for kept in self.entries() if not _still_waiting(kept, now))

    def send(self, store: Store, profile_id: int, state_for: Callable[[Answer], StateFor],
             sent: dict[int, int]) -> None:
        """Write every kept answer, oldest first, each in its own transaction.

        Each one written leaves the file at once, and ``sent`` maps its local id
        to its review log's id; a lost connection stops here with the rest
        still kept (call again). An answer waiting for its rating in a live app
        stays; one whose app is gone is recorded as Enter would have.
        """
        with self._locked() as content:
            for held_id in list(content["released"]):
                release_answer(store, held_id, profile_id)
                content["released"].remove(held_id)
                self._write(content)
            now = datetime.now().astimezone()
            for entry in list(content["answers"]):
                kept = _kept_from_json(entry)
                if _still_waiting(kept, now):
                    continue
                answer = kept.answer
                sent[kept.id] = record_answer(store, profile_id, answer, state_for(answer),
                                              maybe_recorded=True)
                content["answers"].remove(entry)
                self._write(content)


def _still_waiting(kept: Kept, now: datetime) -> bool:
    """A right answer whose live app may still rate it."""
    return kept.waiting and holder_alive(kept.holder or {}, kept.kept_at or now, now)


__all__ = ["KeptAnswers", "KeptFileError", "abandoned_answers", "hold_answer",
           "holding_profiles", "release_answer", "this_process"]

"""Right answers graded but not yet rated, kept in the database until they are.

A right answer waits for the learner's rating. It is held here the moment it
is graded; the transaction that records the rating removes it
(``Answer.held_id``). Whatever is still held when a profile is opened again
(the app was killed, the machine lost power) is recorded as the rating Enter
would have given, so an answer graded right is never lost.
"""

from __future__ import annotations

import os
import socket
from dataclasses import asdict, fields
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select

from studyapp.store.database import Store
from studyapp.store.models import HeldAnswer
from studyapp.store.progress import Answer

_KEPT = tuple(f.name for f in fields(Answer) if f.name not in ("state", "held_id"))
ABANDONED_ELSEWHERE = timedelta(hours=24)
"""A held answer of another machine's app is taken as abandoned after this long."""


def _started(pid: int) -> str:
    """When process ``pid`` started (Linux), so a reused pid is not taken for the holder."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


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
    return _started(pid) == str(holder.get("started", ""))


def _as_json(answer: Answer) -> dict[str, Any]:
    data = {key: value for key, value in asdict(answer).items() if key in _KEPT}
    data["reviewed_at"] = answer.reviewed_at.isoformat()
    if data.get("params") is not None:
        data["params"] = dict(data["params"])
    return data


def _from_json(data: dict[str, Any], held_id: int) -> Answer:
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


def release_answer(store: Store, held_id: int) -> None:
    """Forget a held answer that will not be recorded (a practice answer, a skipped card)."""
    with store.transaction() as session:
        session.execute(delete(HeldAnswer).where(HeldAnswer.id == held_id))


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


__all__ = ["abandoned_answers", "hold_answer", "release_answer", "this_process"]

"""A profile's progress written into an exported Anki package (``export --with-history``).

genanki writes the notes and cards as new; this fills in what Anki keeps of
each card's study, in the columns and the review log Anki reads when a
package is imported with "Import any learning progress" ticked:

- the card's stage, due date, counts, flag and suspension, and its FSRS
  memory state in ``cards.data`` (``s``, ``d``, ``dr``, ``lrt``), as Anki
  23.10+ stores it;
- every answer as a revlog row: an answer that came from Anki keeps its
  revlog id, kind, ease factor and interval (``anki-<id>`` uids), one given
  here gets its time in milliseconds as id and its stage as kind; Forget, Set
  due date and rescheduling go back as the rows they were;
- a note that came from Anki keeps its note id (its card keys name it).

A review card's due is a day number counted from ``col.crt``: the collection
is dated at the start of today's study day, so day ``n`` is ``n`` study days
from today, and Anki moves it onto its own day count on import. A generated
card is one card here and several draws there: its state and answers go on
its first draw, the other draws stay new siblings.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING, Any

from studyapp.srs.calendar import day_start, study_day
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store.progress_files import iter_records

if TYPE_CHECKING:
    from studyapp.store.database import Store

_NOTE_ID = re.compile(r"^note-(\d+)-")
_ANKI_UID = re.compile(r"^anki-(\d+)$")
_REVLOG_KIND = {0: 0, 1: 0, 2: 1, 3: 2}  # stage answered in → Anki revlog type
_SM2_FACTOR = 2500  # Anki's starting ease; FSRS ignores it


@dataclass
class Progress:
    """A profile's cards, answers and schedule changes by (deck id, card key)."""

    cards: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    reviews: dict[tuple[str, str], list[dict[str, Any]]] = field(
        default_factory=lambda: defaultdict(list))
    changes: dict[tuple[str, str], list[dict[str, Any]]] = field(
        default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, records: Iterable[tuple[str, dict[str, Any]]]) -> Progress:
        """From ``iter_records`` (the progress export's records)."""
        progress = cls()
        for kind, record in records:
            key = (record.get("deck_id", ""), record.get("card_key", ""))
            if kind == "card":
                progress.cards[key] = record
            elif kind == "review":
                progress.reviews[key].append(record)
            elif kind == "change":
                progress.changes[key].append(record)
        return progress

    @classmethod
    def of_profile(cls, store: Store, profile_id: int) -> Progress:
        """A profile's progress as stored."""
        return cls.of(iter_records(store, profile_id))


def _moment(value: Any) -> datetime | None:
    if value is None:
        return None
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _unique(wanted: int, used: set[int]) -> int:
    while wanted in used:
        wanted += 1
    used.add(wanted)
    return wanted


class _Writer:
    def __init__(self, conn: sqlite3.Connection, settings: SchedulerSettings,
                 now: datetime, zone: tzinfo | None) -> None:
        self.conn, self.settings, self.zone = conn, settings, zone
        self.rollover = settings.day_rollover_hour
        self.today = study_day(now, self.rollover, zone)
        self.revlog_ids: set[int] = set()
        self.reviews = 0

    def day(self, moment: datetime) -> int:
        """Study days from today (Anki's day number with ``col.crt`` today)."""
        return (study_day(moment, self.rollover, self.zone) - self.today).days

    def schedule(self, card_id: int, card: Mapping[str, Any],
                 answers: Sequence[Mapping[str, Any]]) -> None:
        stage = int(card["stage"])
        due, last = _moment(card["due"]), _moment(card.get("last_review"))
        assert due is not None
        stability, difficulty = card.get("stability"), card.get("difficulty")
        factor = next((int(a["anki"]["factor"]) for a in reversed(answers)
                       if a.get("anki") and a["anki"].get("factor")), _SM2_FACTOR)
        data: dict[str, Any] = {}
        if stability is not None and difficulty is not None:
            data = {"s": round(float(stability), 4), "d": round(float(difficulty), 4),
                    "dr": self.settings.desired_retention}
        if last is not None:
            data["lrt"] = int(last.timestamp())
        interval = (max(1, self.day(due) - self.day(last)) if last is not None
                    else max(1, round(float(stability or 1))))
        if stage == 0:
            kind, queue, due_value, interval, left = 0, 0, 0, 0, 0
        elif stage == 2:
            kind, queue, due_value, left = 2, 2, self.day(due), 0
        else:
            steps = (self.settings.learning_steps_s if stage == 1
                     else self.settings.relearning_steps_s)
            kind, queue, due_value = stage, 1, int(due.timestamp())
            left = max(1, len(steps) - int(card.get("step") or 0))
            interval = 0 if stage == 1 else interval
        if card.get("suspended"):
            queue = -1
        self.conn.execute(
            "UPDATE cards SET type=?, queue=?, due=?, ivl=?, factor=?, reps=?, lapses=?, "
            "left=?, flags=?, data=? WHERE id=?",
            (kind, queue, due_value, interval, factor if stage else 0, int(card.get("reps") or 0),
             int(card.get("lapses") or 0), left, int(card.get("flag") or 0),
             json.dumps(data, separators=(",", ":")) if stage else "", card_id))

    def log(self, card_id: int, answers: Sequence[Mapping[str, Any]],
            changes: Sequence[Mapping[str, Any]]) -> None:
        rows = []
        for answer in answers:
            at = _moment(answer["reviewed_at"])
            assert at is not None
            anki = answer.get("anki") or {}
            match = _ANKI_UID.match(str(answer.get("uid", "")))
            state = answer.get("state_before")
            kind = int(anki["type"]) if anki else _REVLOG_KIND.get(
                int(state) if state is not None else 2, 1)
            wanted = int(match.group(1)) if match else int(at.timestamp() * 1000)
            rows.append((_unique(wanted, self.revlog_ids), card_id, int(answer["rating"]),
                         int(anki.get("ivl", 0)), int(anki.get("factor", 0)),
                         min(int(answer.get("duration_ms") or 0), 2**31 - 1), kind))
        for change in changes:
            at = _moment(change["changed_at"])
            assert at is not None
            match = _ANKI_UID.match(str(change.get("uid", "")))
            wanted = int(match.group(1)) if match else int(at.timestamp() * 1000)
            rows.append((_unique(wanted, self.revlog_ids), card_id, 0,
                         int(change.get("interval") or 0), int(change.get("factor") or 0), 0,
                         int(change["kind"])))
        rows.sort()
        last_interval = 0
        for row_id, cid, ease, interval, factor, taken, kind in rows:
            self.conn.execute("INSERT INTO revlog VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)",
                              (row_id, cid, ease, interval, last_interval, factor, taken, kind))
            last_interval = interval if ease else last_interval
            self.reviews += int(ease > 0)


def write_progress(conn: sqlite3.Connection,
                   placed: Mapping[str, Sequence[tuple[int, str, str]]], progress: Progress,
                   settings: SchedulerSettings, now: datetime,
                   zone: tzinfo | None = None) -> tuple[int, int]:
    """Fill the genanki collection in ``conn`` with ``progress``; (cards, answers) written.

    ``placed``: note guid → (card ordinal, deck id, card key) of each studyapp
    card the note holds (a generated card: its first draw only).
    """
    writer = _Writer(conn, settings, now, zone)
    crt = int(day_start(writer.today, settings.day_rollover_hour, zone).timestamp())
    conf = json.loads(conn.execute("SELECT conf FROM col").fetchone()[0])
    conf["schedVer"] = 2  # without it Anki reads the log as v1's and moves Good to Easy
    # Anki counts the package's days in the zone it was made in, from its rollover hour
    offset = datetime.fromtimestamp(crt, UTC).astimezone(zone).utcoffset()
    conf["creationOffset"] = -int(offset.total_seconds() // 60) if offset is not None else 0
    conf["rollover"] = settings.day_rollover_hour
    conn.execute("UPDATE col SET crt = ?, conf = ?", (crt, json.dumps(conf)))
    notes = dict(conn.execute("SELECT guid, id FROM notes").fetchall())
    taken = set(notes.values())
    written = 0
    for guid, cards in placed.items():
        note_id = notes.get(guid)
        if note_id is None:
            continue
        match = next((m for _, _, key in cards if (m := _NOTE_ID.match(key))), None)
        if match is not None and int(match.group(1)) not in taken:  # Anki's own note id back
            taken.add(int(match.group(1)))
            conn.execute("UPDATE notes SET id = ? WHERE id = ?", (int(match.group(1)), note_id))
            conn.execute("UPDATE cards SET nid = ? WHERE nid = ?", (int(match.group(1)), note_id))
            note_id = int(match.group(1))
        ordinals = dict(conn.execute("SELECT ord, id FROM cards WHERE nid = ?", (note_id,)))
        for ordinal, deck_id, key in cards:
            card_id = ordinals.get(ordinal)
            card = progress.cards.get((deck_id, key))
            if card_id is None:
                continue
            answers = progress.reviews.get((deck_id, key), [])
            if card is not None:
                writer.schedule(card_id, card, answers)
                written += 1
            writer.log(card_id, answers, progress.changes.get((deck_id, key), []))
    return written, writer.reviews


__all__ = ["Progress", "write_progress"]

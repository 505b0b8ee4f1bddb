"""A profile's own rows: the profile and its settings, its deck switches, the posts read.

Every function takes the profile id and touches only that profile's rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from studyapp.store.database import Store
from studyapp.store.tables import (
    CardState,
    DeckChoice,
    PostRead,
    Profile,
    ReviewLog,
    ScheduleChange,
)


@dataclass(frozen=True)
class ProfileInfo:
    id: int
    name: str
    settings: Mapping[str, Any]


def ensure_profile(store: Store, name: str, default_settings: Mapping[str, Any],
                   now: datetime) -> ProfileInfo:
    """The profile named ``name``, created with ``default_settings`` the first time.

    On a read-only database a profile that does not exist yet is not created:
    it has no rows to read, and id 0 matches none.
    """
    if store.read_only:
        with store.sessions() as session:
            found = session.scalar(select(Profile).where(Profile.name == name))
            if found is None:
                return ProfileInfo(0, name, dict(default_settings))
            return ProfileInfo(found.id, found.name, dict(found.settings or {}))
    try:
        with store.transaction() as session:
            profile = session.scalar(select(Profile).where(Profile.name == name))
            if profile is None:
                profile = Profile(name=name, created_at=now, settings=dict(default_settings))
                session.add(profile)
                session.flush()
            return ProfileInfo(profile.id, profile.name, dict(profile.settings or {}))
    except IntegrityError:
        # Another process created it between our read and our insert (two
        # first runs at once): theirs stands, read it.
        with store.sessions() as session:
            found = session.scalar(select(Profile).where(Profile.name == name))
            if found is None:
                raise
            return ProfileInfo(found.id, found.name, dict(found.settings or {}))


def save_profile_settings(store: Store, profile_id: int, settings: Mapping[str, Any]) -> None:
    with store.transaction() as session:
        session.execute(update(Profile).where(Profile.id == profile_id)
                        .values(settings=dict(settings)))


def deck_choices(store: Store, profile_id: int) -> dict[str, bool]:
    """The learner's own on/off per deck id (decks not listed keep their default)."""
    with store.sessions() as session:
        return {d: bool(e) for d, e in session.execute(select(
            DeckChoice.deck_id, DeckChoice.enabled).where(DeckChoice.profile_id == profile_id))}


def set_deck_choice(store: Store, profile_id: int, deck_id: str, enabled: bool,
                    now: datetime) -> None:
    with store.transaction() as session:
        choice = session.scalar(select(DeckChoice).where(
            DeckChoice.profile_id == profile_id, DeckChoice.deck_id == deck_id))
        if choice is None:
            session.add(DeckChoice(profile_id=profile_id, deck_id=deck_id, enabled=enabled,
                                   changed_at=now))
        else:
            choice.enabled = enabled
            choice.changed_at = now


def mark_post_read(store: Store, profile_id: int, post: str, now: datetime) -> None:
    with store.transaction() as session:
        read = session.scalar(select(PostRead).where(PostRead.profile_id == profile_id,
                                                     PostRead.post == post))
        if read is None:
            session.add(PostRead(profile_id=profile_id, post=post, first_read_at=now,
                                 last_read_at=now, times=1))
        else:
            read.last_read_at = now
            read.times += 1


def posts_read(store: Store, profile_id: int) -> set[str]:
    with store.sessions() as session:
        return set(session.scalars(select(PostRead.post).where(
            PostRead.profile_id == profile_id)))


def delete_profile_data(session: Session, profile_id: int) -> None:
    """Used by tests and imports that replace a profile wholesale."""
    session.execute(delete(ReviewLog).where(ReviewLog.profile_id == profile_id))
    session.execute(delete(ScheduleChange).where(ScheduleChange.profile_id == profile_id))
    session.execute(delete(CardState).where(CardState.profile_id == profile_id))
    session.execute(delete(DeckChoice).where(DeckChoice.profile_id == profile_id))

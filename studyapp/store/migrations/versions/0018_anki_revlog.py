"""Anki's review log kept whole: each imported answer's kind, and the schedule changes.

Revision ID: 0018_anki_revlog
Revises: 0013_review_traps

An answer imported from Anki keeps what Anki's FSRS reads from its revlog
entry (``anki``: its ``type`` — learning, review, relearning, filtered —,
ease ``factor`` and interval ``ivl``), so memory states leave out cram
answers as Anki does. Entries that are no answer (Forget, Set due date,
rescheduling: types 4 and 5) go to ``schedule_changes``, outside the answers
every statistic counts; a Forget there cuts the history FSRS reads.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018_anki_revlog"
down_revision = "0017_implicit_reviews"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("review_logs", sa.Column("anki", sa.JSON, nullable=True))
    op.create_table(
        "schedule_changes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("profile_id", sa.Integer,
                  sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("card_id", sa.Integer,
                  sa.ForeignKey("card_states.id", ondelete="CASCADE"), nullable=False),
        sa.Column("uid", sa.String(64), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.Integer, nullable=False),
        sa.Column("factor", sa.Integer, nullable=False, server_default="0"),
        sa.Column("interval", sa.Integer, nullable=False, server_default="0"),
        sa.UniqueConstraint("profile_id", "uid", name="uq_schedule_changes_profile_uid"),
    )
    op.create_index("ix_schedule_changes_card", "schedule_changes", ["card_id", "changed_at"])


def downgrade() -> None:
    op.drop_index("ix_schedule_changes_card", "schedule_changes")
    op.drop_table("schedule_changes")
    if op.get_bind().dialect.name == "sqlite":  # in place: a batch copy loses the triggers
        op.execute("ALTER TABLE review_logs DROP COLUMN anki")
    else:
        op.drop_column("review_logs", "anki")

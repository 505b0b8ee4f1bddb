"""Right answers held until the learner rates them, so a killed app loses none.

Revision ID: 0008_held_answers
Revises: 0007_previous_review

A right answer waits for its rating (Again/Hard/Good/Easy). Until now it
lived only in memory: closing the tab, SIGTERM or SIGKILL lost it. It is now
written here when it is graded and removed in the same transaction that
records its rating; whatever is left when the app opens again is recorded
as Good (Hard if the post was open), as Enter would have.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_held_answers"
down_revision = "0007_previous_review"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "held_answers",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("profile_id", sa.Integer,
                  sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("answer", sa.JSON, nullable=False),
        sa.Column("held_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_held_answers_profile", "held_answers", ["profile_id"])


def downgrade() -> None:
    op.drop_index("ix_held_answers_profile", "held_answers")
    op.drop_table("held_answers")

"""Initial schema: profiles, card states, review logs, post reads.

Revision ID: 0001_initial
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "profiles",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
    )
    op.create_table(
        "card_states",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("profile_id", sa.Integer,
                  sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("deck_id", sa.String(200), nullable=False),
        sa.Column("card_key", sa.String(200), nullable=False),
        sa.Column("post", sa.String(64), nullable=False),
        sa.Column("family", sa.String(100), nullable=True),
        sa.Column("state", sa.Integer, nullable=False),
        sa.Column("step", sa.Integer, nullable=True),
        sa.Column("stability", sa.Float, nullable=True),
        sa.Column("difficulty", sa.Float, nullable=True),
        sa.Column("due", TS, nullable=False),
        sa.Column("last_review", TS, nullable=True),
        sa.Column("reps", sa.Integer, nullable=False),
        sa.Column("lapses", sa.Integer, nullable=False),
        sa.Column("suspended", sa.Boolean, nullable=False),
        sa.Column("leech", sa.Boolean, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("profile_id", "deck_id", "card_key", name="uq_card_states_key"),
    )
    op.create_index("ix_card_states_due", "card_states", ["profile_id", "suspended", "due"])
    op.create_index("ix_card_states_post", "card_states", ["profile_id", "post"])
    op.create_table(
        "review_logs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("profile_id", sa.Integer,
                  sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("card_id", sa.Integer,
                  sa.ForeignKey("card_states.id", ondelete="CASCADE"), nullable=False),
        sa.Column("reviewed_at", TS, nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("duration_ms", sa.Integer, nullable=True),
        sa.Column("state_before", sa.Integer, nullable=True),
        sa.Column("previous", sa.JSON, nullable=True),
        sa.Column("seed", sa.Integer, nullable=True),
        sa.Column("params", sa.JSON, nullable=True),
        sa.Column("prompt", sa.Text, nullable=True),
        sa.Column("response", sa.Text, nullable=True),
        sa.Column("expected", sa.Text, nullable=True),
        sa.Column("lang", sa.String(8), nullable=True),
        sa.Column("uid", sa.String(64), nullable=False, unique=True),
    )
    op.create_index("ix_review_logs_profile_time", "review_logs", ["profile_id", "reviewed_at"])
    op.create_index("ix_review_logs_card", "review_logs", ["card_id", "reviewed_at"])
    op.create_table(
        "post_reads",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("profile_id", sa.Integer,
                  sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("post", sa.String(64), nullable=False),
        sa.Column("first_read_at", TS, nullable=False),
        sa.Column("last_read_at", TS, nullable=False),
        sa.Column("times", sa.Integer, nullable=False),
        sa.UniqueConstraint("profile_id", "post", name="uq_post_reads"),
    )


def downgrade() -> None:
    op.drop_table("post_reads")
    op.drop_table("review_logs")
    op.drop_table("card_states")
    op.drop_table("profiles")

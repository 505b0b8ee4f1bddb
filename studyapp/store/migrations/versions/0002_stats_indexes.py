"""Covering index for progress statistics: per-card answer counts without the table.

Revision ID: 0002_stats_indexes
Revises: 0001_initial

``studyapp stats`` sums answers per card (then per post) over every review
log of a profile; with this index the database reads only the index, which
is several times smaller than the logs with their prompts and parameters.
"""

from __future__ import annotations

from alembic import op

from studyapp.store.migrations.statistics import refresh_statistics

revision = "0002_stats_indexes"
down_revision = "0001_initial"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_review_logs_profile_card", "review_logs",
                    ["profile_id", "card_id", "correct", "duration_ms", "state_before"])
    refresh_statistics()


def downgrade() -> None:
    op.drop_index("ix_review_logs_profile_card", table_name="review_logs")

"""Review log flags: an answer the learner overruled, and one given after opening the post.

Revision ID: 0004_review_flags
Revises: 0002_stats_indexes

``overridden``: graded wrong, then the learner said "I was right"; it is
kept as a right answer rated Hard, and marked so a report can tell.
``looked_at_post``: the post was opened while the question was asked, so
the rating was capped at Hard. Both default to false for older answers.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_review_flags"
down_revision = "0003_session_queue"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("review_logs") as batch:
        batch.add_column(sa.Column("overridden", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column("looked_at_post", sa.Boolean, nullable=False,
                                   server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("review_logs") as batch:
        batch.drop_column("looked_at_post")
        batch.drop_column("overridden")

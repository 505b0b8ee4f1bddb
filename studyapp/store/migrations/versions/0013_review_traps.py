"""The traps each answer met and avoided, stored with it, for the learner's misconceptions.

Revision ID: 0013_review_traps
Revises: 0012_review_verdicts

``traps`` lists the slip keys a right answer's question (or a scenario's right
steps) could have shown, comma-joined; with ``slip`` (the slip a wrong answer
showed) it is the evidence a learner's misconceptions are estimated from. A
partial index keeps those few rows apart from the whole log. Answers stored
before this revision did not keep what their question could catch: their
``traps`` stays NULL.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_review_traps"
down_revision = "0012_review_verdicts"
branch_labels = None
depends_on = None

EVIDENCE = "traps IS NOT NULL OR (slip IS NOT NULL AND slip <> '')"


def upgrade() -> None:
    op.add_column("review_logs", sa.Column("traps", sa.String(400), nullable=True))
    op.create_index("ix_review_logs_traps", "review_logs", ["profile_id", "reviewed_at"],
                    sqlite_where=sa.text(EVIDENCE), postgresql_where=sa.text(EVIDENCE))


def downgrade() -> None:
    op.drop_index("ix_review_logs_traps", table_name="review_logs")
    if op.get_bind().dialect.name == "sqlite":  # in place: a batch copy loses the triggers
        op.execute("ALTER TABLE review_logs DROP COLUMN traps")
    else:
        op.drop_column("review_logs", "traps")

"""A regraded answer's notice to its student, and the class report's unnamed-slip index.

Revision ID: 0015_regrade_notices
Revises: 0013_review_traps

``regraded`` holds the verdict a regrade gave an answer (``right`` or
``wrong``) until the student has been told once ("regraded: your answer was
right"); it is then cleared. It lives on the answer's own row, so a regrade
writes it in the same statement as the verdict (row security lets a login
write only its own rows: a notice is never written apart from its answer). Two
partial indexes keep the few rows each reader wants apart from the whole log:
a student's notices, and the wrong answers whose slip is not named yet (older
answers, graded again by the class report).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_regrade_notices"
down_revision = "0013_review_traps"
branch_labels = None
depends_on = None

NOTICE = "regraded IS NOT NULL"
UNNAMED = "verdict = 'wrong' AND slip IS NULL AND response IS NOT NULL"


def upgrade() -> None:
    op.add_column("review_logs", sa.Column("regraded", sa.String(8), nullable=True))
    op.create_index("ix_review_logs_regraded", "review_logs", ["profile_id"],
                    sqlite_where=sa.text(NOTICE), postgresql_where=sa.text(NOTICE))
    op.create_index("ix_review_logs_unnamed", "review_logs", ["card_id"],
                    sqlite_where=sa.text(UNNAMED), postgresql_where=sa.text(UNNAMED))


def downgrade() -> None:
    op.drop_index("ix_review_logs_unnamed", table_name="review_logs")
    op.drop_index("ix_review_logs_regraded", table_name="review_logs")
    if op.get_bind().dialect.name == "sqlite":  # in place: a batch copy loses the triggers
        op.execute("ALTER TABLE review_logs DROP COLUMN regraded")
    else:
        op.drop_column("review_logs", "regraded")

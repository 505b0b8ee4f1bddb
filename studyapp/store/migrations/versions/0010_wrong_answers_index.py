"""A partial index of wrong answers, so the class report reads them without the log rows.

Revision ID: 0010_wrong_answers_index
Revises: 0009_published_decks

The class report counts, per card, the wrong answers a class gave and the
slips and choices stored with them. Wrong answers are about one in eight
log rows; this index holds only them, with the columns the report groups
by, so a class of thirty with 20,000 answers each is read from the index
instead of 600,000 rows with their prompts. PostgreSQL keeps the extra
columns as INCLUDE (``params`` is JSON, which has no b-tree order).
"""

from __future__ import annotations

from alembic import op

from studyapp.store.migrations.statistics import refresh_statistics

revision = "0010_wrong_answers_index"
down_revision = "0009_published_decks"
branch_labels = None
depends_on = None

WHERE = "correct = false AND response IS NOT NULL"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE INDEX ix_review_logs_wrong ON review_logs (card_id) "
                   f"INCLUDE (response, params, seed, lang) WHERE {WHERE}")
    else:  # SQLite stores booleans as 0 and 1 and covers with key columns
        op.execute("CREATE INDEX ix_review_logs_wrong ON review_logs "
                   "(card_id, response, params, seed, lang) "
                   "WHERE correct = 0 AND response IS NOT NULL")
    refresh_statistics()


def downgrade() -> None:
    op.drop_index("ix_review_logs_wrong", table_name="review_logs")

"""A covering partial index of wrong answers, by card and the marks the report counts.

Revision ID: 0019_class_answer_index
Revises: 0018_anki_revlog

The class report counts each card's wrong answers by verdict, slip, language,
answer and carried steps (``store.item_answers.response_counts``). Revision
0010's index of wrong answers carries each answer's JSON params and no
verdict, so PostgreSQL read the whole log instead (400,000 rows and their
prompts for a class of 200 with 2,000 answers each). This index holds
exactly the columns counted, in the order they are grouped by, so the count
is an index-only scan grouped as it is read, the log rows left alone.
"""

from __future__ import annotations

from alembic import op

revision = "0019_class_answer_index"
down_revision = "0018_anki_revlog"
branch_labels = None
depends_on = None

COLUMNS = "card_id, verdict, slip, lang, response, answer, carried"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"CREATE INDEX ix_review_logs_answers ON review_logs ({COLUMNS}) "
                   "INCLUDE (profile_id) WHERE correct = false AND response IS NOT NULL")
    else:  # SQLite stores booleans as 0 and 1 and covers with key columns
        op.execute(f"CREATE INDEX ix_review_logs_answers ON review_logs ({COLUMNS}, "
                   "profile_id) WHERE correct = 0 AND response IS NOT NULL")
    op.execute("ANALYZE review_logs")


def downgrade() -> None:
    op.drop_index("ix_review_logs_answers", table_name="review_logs")

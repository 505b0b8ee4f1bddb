"""Covering partial indexes for the class report: wrong answers by card, slips by student.

Revision ID: 0019_class_report_indexes
Revises: 0018_anki_revlog

The class report counts each card's wrong answers by verdict, slip, language,
answer and carried steps (``store.item_answers.response_counts``). Revision
0010's index of wrong answers carries each answer's JSON params and no
verdict, so PostgreSQL read the whole log instead (400,000 rows and their
prompts for a class of 200 with 2,000 answers each). ``ix_review_logs_answers``
holds exactly the columns counted, in the order they are grouped by, so the
count is an index-only scan grouped as it is read.

The class's misconceptions count each student's named slips of the last
weeks, with the cards they were on (``store.trap_answers.class_slips``);
revision 0013's index finds those answers but the count read each one's row
for its slip and card. ``ix_review_logs_slips`` holds them, by student and slip.
"""

from __future__ import annotations

from alembic import op

revision = "0019_class_report_indexes"
down_revision = "0018_anki_revlog"
branch_labels = None
depends_on = None

ANSWERS = "card_id, verdict, slip, lang, response, answer, carried"
NAMED = "slip IS NOT NULL AND slip <> ''"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"CREATE INDEX ix_review_logs_answers ON review_logs ({ANSWERS}) "
                   "INCLUDE (profile_id) WHERE correct = false AND response IS NOT NULL")
        op.execute("CREATE INDEX ix_review_logs_slips ON review_logs "
                   f"(profile_id, slip, reviewed_at) INCLUDE (card_id) WHERE {NAMED}")
    else:  # SQLite stores booleans as 0 and 1 and covers with key columns
        op.execute(f"CREATE INDEX ix_review_logs_answers ON review_logs ({ANSWERS}, "
                   "profile_id) WHERE correct = 0 AND response IS NOT NULL")
        op.execute("CREATE INDEX ix_review_logs_slips ON review_logs "
                   f"(profile_id, slip, reviewed_at, card_id) WHERE {NAMED}")
    op.execute("ANALYZE review_logs")


def downgrade() -> None:
    op.drop_index("ix_review_logs_slips", table_name="review_logs")
    op.drop_index("ix_review_logs_answers", table_name="review_logs")

"""Each review-stage answer knows when its card was last answered in review stage.

Revision ID: 0007_previous_review
Revises: 0006_card_stats

True retention counts only a card's first review of each study day. It
grouped every review of the last 30 days by card, one sort per day; now
``review_logs.previous_review_at`` holds, for an answer given in review stage
(``state_before`` 2), the time of the same card's previous review-stage
answer, so "first of its day" is one comparison with the day's start, read
from the retention index alone. Answers are ordered by (reviewed_at, id), so
of two at the same instant only the first is the first of its day. Triggers
keep the chain right for every writer: an answer, its undo, an import of
answers older than the newest (the next answer's link moves too), a bulk load.
The upgrade backfills it from the logs.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_previous_review"
down_revision = "0006_card_stats"
branch_labels = None
depends_on = None

# The card's review-stage answer just before / just after row R, in (reviewed_at, id)
# order; the first term of each is a plain range on ix_review_logs_card.
_BEFORE = """SELECT p.reviewed_at FROM review_logs p
        WHERE p.card_id = {r}.card_id AND p.state_before = 2 AND p.reviewed_at <= {r}.reviewed_at
            AND (p.reviewed_at < {r}.reviewed_at OR p.id < {r}.id)
        ORDER BY p.reviewed_at DESC, p.id DESC LIMIT 1"""
_AFTER = """SELECT n.id FROM review_logs n
        WHERE n.card_id = {r}.card_id AND n.state_before = 2 AND n.reviewed_at >= {r}.reviewed_at
            AND (n.reviewed_at > {r}.reviewed_at OR n.id > {r}.id)
        ORDER BY n.reviewed_at, n.id LIMIT 1"""
_ADDED = f"""UPDATE review_logs SET previous_review_at = ({_BEFORE.format(r="NEW")})
        WHERE id = NEW.id;
        UPDATE review_logs SET previous_review_at = NEW.reviewed_at
        WHERE id = ({_AFTER.format(r="NEW")});"""
_REMOVED = f"""UPDATE review_logs SET previous_review_at = OLD.previous_review_at
        WHERE id = ({_AFTER.format(r="OLD")});"""

SQLITE_TRIGGERS = (
    f"""CREATE TRIGGER review_previous_added AFTER INSERT ON review_logs
        WHEN NEW.state_before = 2 BEGIN
        {_ADDED}
    END""",
    f"""CREATE TRIGGER review_previous_removed AFTER DELETE ON review_logs
        WHEN OLD.state_before = 2 BEGIN
        {_REMOVED}
    END""",
)
POSTGRES_TRIGGERS = (
    f"""CREATE FUNCTION review_previous_added() RETURNS trigger AS $$
    BEGIN
        {_ADDED}
        RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    f"""CREATE FUNCTION review_previous_removed() RETURNS trigger AS $$
    BEGIN
        {_REMOVED}
        RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER review_previous_added AFTER INSERT ON review_logs
        FOR EACH ROW WHEN (NEW.state_before = 2) EXECUTE FUNCTION review_previous_added()""",
    """CREATE TRIGGER review_previous_removed AFTER DELETE ON review_logs
        FOR EACH ROW WHEN (OLD.state_before = 2) EXECUTE FUNCTION review_previous_removed()""",
)
BACKFILL = """UPDATE review_logs SET previous_review_at = chain.previous
    FROM (SELECT id, LAG(reviewed_at) OVER (PARTITION BY card_id
                                            ORDER BY reviewed_at, id) AS previous
          FROM review_logs WHERE state_before = 2) AS chain
    WHERE chain.id = review_logs.id AND chain.previous IS NOT NULL"""
RETENTION_BEFORE = ["profile_id", "reviewed_at", "state_before", "card_id", "rating",
                    "stability_before"]
RETENTION = ["profile_id", "reviewed_at", "state_before", "previous_review_at", "card_id",
             "rating", "stability_before"]


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.add_column("review_logs", sa.Column("previous_review_at", sa.DateTime(timezone=True),
                                           nullable=True))
    op.execute(BACKFILL)
    op.drop_index("ix_review_logs_retention", table_name="review_logs")
    op.create_index("ix_review_logs_retention", "review_logs", RETENTION)
    for statement in SQLITE_TRIGGERS if sqlite else POSTGRES_TRIGGERS:
        op.execute(statement)


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    for trigger in ("review_previous_added", "review_previous_removed"):
        if sqlite:
            op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        else:
            op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON review_logs")
            op.execute(f"DROP FUNCTION IF EXISTS {trigger}()")
    op.drop_index("ix_review_logs_retention", table_name="review_logs")
    op.create_index("ix_review_logs_retention", "review_logs", RETENTION_BEFORE)
    if sqlite:  # in place: a batch copy of the table would lose revision 0006's triggers
        op.execute("ALTER TABLE review_logs DROP COLUMN previous_review_at")
    else:
        op.drop_column("review_logs", "previous_review_at")

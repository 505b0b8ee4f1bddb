"""Per-card answer sums and each review's stability before it, kept by the database.

Revision ID: 0006_card_stats
Revises: 0005_review_uid_per_profile

``stats`` summed a million review logs per card and read every recent log's
JSON to split young from mature cards. Now ``card_stats`` holds each card's
reviews, right answers and time, and its answers as a new card (the class
report's first tries); ``review_hours`` the reviews of each UTC hour (the
heat map's days, whatever the time zone and rollover); and
``review_logs.stability_before`` the stability the JSON holds, with a narrow
index the retention query reads alone. Triggers on review_logs keep them
right for every writer: an answer, its undo, an import, a bulk load. The
upgrade backfills them from the logs.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_card_stats"
down_revision = "0005_review_uid_per_profile"
branch_labels = None
depends_on = None

SQLITE_TRIGGERS = (
    """CREATE TRIGGER card_stats_review_added AFTER INSERT ON review_logs BEGIN
        INSERT INTO card_stats (card_id, profile_id, reviews, correct, duration_ms,
                                first_answers, first_correct)
        VALUES (NEW.card_id, NEW.profile_id, 1, CASE WHEN NEW.correct THEN 1 ELSE 0 END,
                COALESCE(NEW.duration_ms, 0), CASE WHEN NEW.state_before = 0 THEN 1 ELSE 0 END,
                CASE WHEN NEW.state_before = 0 AND NEW.correct THEN 1 ELSE 0 END)
        ON CONFLICT (card_id) DO UPDATE SET reviews = reviews + 1,
            correct = correct + excluded.correct,
            duration_ms = duration_ms + excluded.duration_ms,
            first_answers = first_answers + excluded.first_answers,
            first_correct = first_correct + excluded.first_correct;
        UPDATE review_logs SET stability_before = json_extract(NEW.previous, '$.stability')
        WHERE id = NEW.id AND NEW.previous IS NOT NULL;
        INSERT INTO review_hours (profile_id, hour, reviews)
        VALUES (NEW.profile_id,
                CAST(strftime('%s', substr(NEW.reviewed_at, 1, 13) || ':00:00') AS INTEGER)
                / 3600, 1)
        ON CONFLICT (profile_id, hour) DO UPDATE SET reviews = reviews + 1;
    END""",
    """CREATE TRIGGER card_stats_review_removed AFTER DELETE ON review_logs BEGIN
        UPDATE card_stats SET reviews = reviews - 1,
            correct = correct - CASE WHEN OLD.correct THEN 1 ELSE 0 END,
            duration_ms = duration_ms - COALESCE(OLD.duration_ms, 0),
            first_answers = first_answers - CASE WHEN OLD.state_before = 0 THEN 1 ELSE 0 END,
            first_correct = first_correct
                - CASE WHEN OLD.state_before = 0 AND OLD.correct THEN 1 ELSE 0 END
        WHERE card_id = OLD.card_id;
        UPDATE review_hours SET reviews = reviews - 1
        WHERE profile_id = OLD.profile_id AND hour =
            CAST(strftime('%s', substr(OLD.reviewed_at, 1, 13) || ':00:00') AS INTEGER) / 3600;
    END""",
)
POSTGRES_TRIGGERS = (
    """CREATE FUNCTION card_stats_review_added() RETURNS trigger AS $$
    BEGIN
        INSERT INTO card_stats (card_id, profile_id, reviews, correct, duration_ms,
                                first_answers, first_correct)
        VALUES (NEW.card_id, NEW.profile_id, 1, CASE WHEN NEW.correct THEN 1 ELSE 0 END,
                COALESCE(NEW.duration_ms, 0), CASE WHEN NEW.state_before = 0 THEN 1 ELSE 0 END,
                CASE WHEN NEW.state_before = 0 AND NEW.correct THEN 1 ELSE 0 END)
        ON CONFLICT (card_id) DO UPDATE SET reviews = card_stats.reviews + 1,
            correct = card_stats.correct + excluded.correct,
            duration_ms = card_stats.duration_ms + excluded.duration_ms,
            first_answers = card_stats.first_answers + excluded.first_answers,
            first_correct = card_stats.first_correct + excluded.first_correct;
        INSERT INTO review_hours (profile_id, hour, reviews)
        VALUES (NEW.profile_id, floor(extract(epoch from NEW.reviewed_at) / 3600)::bigint, 1)
        ON CONFLICT (profile_id, hour) DO UPDATE SET reviews = review_hours.reviews + 1;
        RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    """CREATE FUNCTION card_stats_review_removed() RETURNS trigger AS $$
    BEGIN
        UPDATE card_stats SET reviews = reviews - 1,
            correct = correct - CASE WHEN OLD.correct THEN 1 ELSE 0 END,
            duration_ms = duration_ms - COALESCE(OLD.duration_ms, 0),
            first_answers = first_answers - CASE WHEN OLD.state_before = 0 THEN 1 ELSE 0 END,
            first_correct = first_correct
                - CASE WHEN OLD.state_before = 0 AND OLD.correct THEN 1 ELSE 0 END
        WHERE card_id = OLD.card_id;
        UPDATE review_hours SET reviews = reviews - 1
        WHERE profile_id = OLD.profile_id
            AND hour = floor(extract(epoch from OLD.reviewed_at) / 3600)::bigint;
        RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    """CREATE FUNCTION review_stability_before() RETURNS trigger AS $$
    BEGIN
        NEW.stability_before := (NEW.previous ->> 'stability')::double precision;
        RETURN NEW;
    END $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER card_stats_review_added AFTER INSERT ON review_logs
        FOR EACH ROW EXECUTE FUNCTION card_stats_review_added()""",
    """CREATE TRIGGER card_stats_review_removed AFTER DELETE ON review_logs
        FOR EACH ROW EXECUTE FUNCTION card_stats_review_removed()""",
    """CREATE TRIGGER review_stability_before BEFORE INSERT ON review_logs
        FOR EACH ROW EXECUTE FUNCTION review_stability_before()""",
)
BACKFILL_STATS = """INSERT INTO card_stats (card_id, profile_id, reviews, correct, duration_ms,
                                             first_answers, first_correct)
    SELECT card_id, MIN(profile_id), COUNT(*),
           SUM(CASE WHEN correct THEN 1 ELSE 0 END), COALESCE(SUM(duration_ms), 0),
           SUM(CASE WHEN state_before = 0 THEN 1 ELSE 0 END),
           SUM(CASE WHEN state_before = 0 AND correct THEN 1 ELSE 0 END)
    FROM review_logs GROUP BY card_id"""


SQLITE_HOUR = ("CAST(strftime('%s', substr(review_logs.reviewed_at, 1, 13) || ':00:00') "
               "AS INTEGER) / 3600")
POSTGRES_HOUR = "floor(extract(epoch from review_logs.reviewed_at) / 3600)::bigint"


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "card_stats",
        sa.Column("card_id", sa.Integer,
                  sa.ForeignKey("card_states.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("profile_id", sa.Integer,
                  sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("reviews", sa.Integer, nullable=False, server_default="0"),
        sa.Column("correct", sa.Integer, nullable=False, server_default="0"),
        sa.Column("duration_ms", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("first_answers", sa.Integer, nullable=False, server_default="0"),
        sa.Column("first_correct", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_index("ix_card_stats_profile", "card_stats", ["profile_id"])
    op.create_table(
        "review_hours",
        sa.Column("profile_id", sa.Integer,
                  sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("hour", sa.BigInteger, primary_key=True),
        sa.Column("reviews", sa.Integer, nullable=False, server_default="0"),
    )
    op.add_column("review_logs", sa.Column("stability_before", sa.Float, nullable=True))
    op.execute(BACKFILL_STATS)
    hour = SQLITE_HOUR if sqlite else POSTGRES_HOUR
    op.execute(f"INSERT INTO review_hours (profile_id, hour, reviews) "
               f"SELECT profile_id, {hour}, COUNT(*) FROM review_logs "
               f"GROUP BY profile_id, {hour}")
    if sqlite:
        op.execute("UPDATE review_logs SET stability_before = "
                   "json_extract(previous, '$.stability') WHERE previous IS NOT NULL")
    else:
        op.execute("UPDATE review_logs SET stability_before = "
                   "(previous ->> 'stability')::double precision WHERE previous IS NOT NULL")
    op.create_index("ix_review_logs_retention", "review_logs",
                    ["profile_id", "reviewed_at", "state_before", "card_id", "rating",
                     "stability_before"])
    for statement in SQLITE_TRIGGERS if sqlite else POSTGRES_TRIGGERS:
        op.execute(statement)


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        op.execute("DROP TRIGGER IF EXISTS card_stats_review_added")
        op.execute("DROP TRIGGER IF EXISTS card_stats_review_removed")
    else:
        for trigger in ("card_stats_review_added", "card_stats_review_removed",
                        "review_stability_before"):
            op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON review_logs")
            op.execute(f"DROP FUNCTION IF EXISTS {trigger}()")
    op.drop_index("ix_review_logs_retention", table_name="review_logs")
    with op.batch_alter_table("review_logs") as batch:
        batch.drop_column("stability_before")
    op.drop_table("review_hours")
    op.drop_index("ix_card_stats_profile", table_name="card_stats")
    op.drop_table("card_stats")

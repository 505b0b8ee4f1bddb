"""Review ids unique per profile, not across the database.

Revision ID: 0005_review_uid_per_profile
Revises: 0004_review_flags

An export imported into another profile of the same database must add its
reviews there; with ids unique database-wide they were all taken as
"already there". A review is now the same review only within one profile.
"""

from __future__ import annotations

from alembic import op

revision = "0005_review_uid_per_profile"
down_revision = "0004_review_flags"
branch_labels = None
depends_on = None

# SQLite keeps 0001's UNIQUE(uid) unnamed: batch mode names it so it can be dropped
NAMING = {"uq": "uq_%(table_name)s_%(column_0_name)s"}


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("review_logs", naming_convention=NAMING,
                                  recreate="always") as batch:
            batch.drop_constraint("uq_review_logs_uid", type_="unique")
            batch.create_unique_constraint("uq_review_logs_profile_uid", ["profile_id", "uid"])
        return
    op.drop_constraint("review_logs_uid_key", "review_logs", type_="unique")
    op.create_unique_constraint("uq_review_logs_profile_uid", "review_logs",
                                ["profile_id", "uid"])


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("review_logs", recreate="always") as batch:
            batch.drop_constraint("uq_review_logs_profile_uid", type_="unique")
            batch.create_unique_constraint("uq_review_logs_uid", ["uid"])
        return
    op.drop_constraint("uq_review_logs_profile_uid", "review_logs", type_="unique")
    op.create_unique_constraint("review_logs_uid_key", "review_logs", ["uid"])

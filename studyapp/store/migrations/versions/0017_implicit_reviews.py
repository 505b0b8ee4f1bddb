"""Reviews a scenario's steps gave a one-step card, kept apart from the learner's answers.

Revision ID: 0017_implicit_reviews
Revises: 0013_review_traps

A scenario step that asks a one-step family's computation counts for that
family's card (``study.ladders``): a right step is a Good review of it, a
wrong one brings it back on the next study day. Those reviews are written to
``review_logs`` with ``implicit`` true and no stage of their own
(``state_before`` NULL, so true retention and its chain read only direct
answers); the card-stats triggers skip them, so the class's item statistics
and the reviews per hour count each answer once, where it was given.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017_implicit_reviews"
down_revision = "0015_regrade_notices"
branch_labels = None
depends_on = None

_TRIGGERS = {"card_stats_review_added": ("INSERT", "NEW"),
             "card_stats_review_removed": ("DELETE", "OLD")}


def _sqlite_triggers(*, skipping: bool) -> list[str]:
    """Revision 0006's SQLite triggers, read back from the schema, with or without the
    condition that skips implicit rows."""
    bind = op.get_bind()
    found = []
    for name, (_, row) in _TRIGGERS.items():
        sql = bind.execute(sa.text("SELECT sql FROM sqlite_master WHERE type = 'trigger' "
                                   "AND name = :name"), {"name": name}).scalar_one()
        plain = sql.replace(f" WHEN NOT {row}.implicit BEGIN", " BEGIN")
        found.append(plain.replace("ON review_logs BEGIN",
                                   f"ON review_logs WHEN NOT {row}.implicit BEGIN", 1)
                     if skipping else plain)
    return found


def _retrigger(*, skipping: bool) -> None:
    if op.get_bind().dialect.name == "sqlite":
        statements = _sqlite_triggers(skipping=skipping)
        for name in _TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        for statement in statements:
            op.execute(statement)
        return
    for name, (event, row) in _TRIGGERS.items():
        op.execute(f"DROP TRIGGER IF EXISTS {name} ON review_logs")
        when = f" WHEN (NOT {row}.implicit)" if skipping else ""
        op.execute(f"CREATE TRIGGER {name} AFTER {event} ON review_logs "
                   f"FOR EACH ROW{when} EXECUTE FUNCTION {name}()")


def upgrade() -> None:
    op.add_column("review_logs", sa.Column("implicit", sa.Boolean(), nullable=False,
                                           server_default=sa.false()))
    _retrigger(skipping=True)


def downgrade() -> None:
    _retrigger(skipping=False)
    if op.get_bind().dialect.name == "sqlite":  # in place: a batch copy loses the triggers
        op.execute("ALTER TABLE review_logs DROP COLUMN implicit")
    else:
        op.drop_column("review_logs", "implicit")

"""Buried and flagged cards, and which decks each learner studies.

Revision ID: 0003_session_queue
Revises: 0002_stats_indexes

``card_states.buried_until``: a card answered today buries its siblings
(cards sharing a ``fact:``) until the next study day starts; the card
browser buries by hand the same way. ``card_states.flag``: 0 none, 1..4 a
coloured flag. ``deck_choices``: a learner's own on/off for a deck; decks
without a row keep their default (post decks on, example decks off).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_session_queue"
down_revision = "0002_stats_indexes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("card_states") as batch:
        batch.add_column(sa.Column("buried_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("flag", sa.Integer, nullable=False, server_default="0"))
    op.create_table(
        "deck_choices",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("profile_id", sa.Integer,
                  sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("deck_id", sa.String(200), nullable=False),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("profile_id", "deck_id", name="uq_deck_choices"),
    )


def downgrade() -> None:
    op.drop_table("deck_choices")
    with op.batch_alter_table("card_states") as batch:
        batch.drop_column("flag")
        batch.drop_column("buried_until")

"""Decks published into the database, so a class studies one stored version.

Revision ID: 0009_published_decks
Revises: 0008_held_answers
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_published_decks"
down_revision = "0008_held_answers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "published_decks",
        sa.Column("deck_id", sa.String(200), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("published_decks")

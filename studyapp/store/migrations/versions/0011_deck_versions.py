"""Every published version of a deck, so publishing keeps a history.

Revision ID: 0011_deck_versions
Revises: 0010_wrong_answers_index

``published_decks`` keeps the version a class studies; this table keeps the
text of every version, with who published it. Its primary key (deck,
version) lets one publish only win a number. The versions published before
are carried over (their publisher and card count were not recorded).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_deck_versions"
down_revision = "0010_wrong_answers_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "published_deck_versions",
        sa.Column("deck_id", sa.String(200), primary_key=True),
        sa.Column("version", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_by", sa.String(200), nullable=True),
        sa.Column("login", sa.String(200), nullable=True),
        sa.Column("cards", sa.Integer(), nullable=True),
    )
    op.execute("INSERT INTO published_deck_versions (deck_id, version, content, published_at) "
               "SELECT deck_id, version, content, published_at FROM published_decks")


def downgrade() -> None:
    op.drop_table("published_deck_versions")

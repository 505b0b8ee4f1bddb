"""Each answer's verdict, named slip and carried-forward steps stored with it.

Revision ID: 0012_review_verdicts
Revises: 0011_deck_versions

The class report counts answers by verdict and slip per card in SQL instead
of reading and grading wrong answers one at a time. Older answers get their
verdict from ``correct``, and their slip, picked choice and carried steps from
the notes in their params (``studyapp.store.verdicts``); a wrong answer stored
before slips were noted keeps ``slip`` NULL, to be named by grading it again.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_review_verdicts"
down_revision = "0011_deck_versions"
branch_labels = None
depends_on = None

BATCH = 2000


def upgrade() -> None:
    from studyapp.store.verdicts import answer_marks

    op.add_column("review_logs", sa.Column("verdict", sa.String(8), nullable=False,
                                           server_default="right"))
    op.add_column("review_logs", sa.Column("slip", sa.String(200), nullable=True))
    op.add_column("review_logs", sa.Column("carried", sa.Integer(), nullable=False,
                                           server_default="0"))
    op.add_column("review_logs", sa.Column("answer", sa.Text(), nullable=True))
    conn = op.get_bind()
    conn.execute(sa.text("UPDATE review_logs SET verdict = 'wrong' WHERE correct = :no"),
                 {"no": False})
    conn.execute(sa.text("UPDATE review_logs SET slip = '' WHERE correct = :yes"),
                 {"yes": True})
    # the notes kept in params: wrong answers and scenarios (a small share of the log)
    logs = sa.table("review_logs", sa.column("id", sa.Integer), sa.column("correct", sa.Boolean),
                    sa.column("params", sa.JSON), sa.column("slip", sa.String),
                    sa.column("carried", sa.Integer), sa.column("answer", sa.Text))
    noted = sa.or_(logs.c.correct.is_(False), sa.cast(logs.c.params, sa.Text).like('%"parts"%'))
    last = 0
    while True:
        rows = conn.execute(sa.select(logs.c.id, logs.c.correct, logs.c.params)
                            .where(noted, logs.c.id > last).order_by(logs.c.id)
                            .limit(BATCH)).all()
        if not rows:
            break
        for log_id, correct, params in rows:
            marks = answer_marks(bool(correct), params)
            conn.execute(sa.update(logs).where(logs.c.id == log_id).values(
                slip=marks["slip"], carried=marks["carried"], answer=marks["answer"]))
        last = rows[-1][0]
    # the few answers overruled or with a carried-forward step, for the class report
    op.create_index("ix_review_logs_flagged", "review_logs", ["card_id"],
                    postgresql_where=sa.text("overridden OR carried > 0"),
                    sqlite_where=sa.text("overridden OR carried > 0"))


def downgrade() -> None:
    op.drop_index("ix_review_logs_flagged", table_name="review_logs")
    for column in ("answer", "carried", "slip", "verdict"):
        if op.get_bind().dialect.name == "sqlite":  # in place: a batch copy of the table
            op.execute(f"ALTER TABLE review_logs DROP COLUMN {column}")  # loses its triggers
        else:
            op.drop_column("review_logs", column)

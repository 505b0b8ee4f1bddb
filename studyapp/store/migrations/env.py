"""Alembic environment: migrations run on the connection studyapp passes in."""

from __future__ import annotations

from alembic import context

from studyapp.store.tables import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()

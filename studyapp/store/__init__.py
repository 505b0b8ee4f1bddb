"""Storage: SQLAlchemy models, safe opening and migrations.

Nothing outside this package imports SQLAlchemy.
"""

from studyapp.store.database import (
    HEAD,
    REVISIONS,
    DatabaseFailure,
    Reconnect,
    ServerAway,
    Store,
    StoreError,
    describe_database_error,
    open_store,
)

__all__ = ["HEAD", "REVISIONS", "DatabaseFailure", "Reconnect", "ServerAway", "Store", "StoreError",
           "describe_database_error", "open_store"]

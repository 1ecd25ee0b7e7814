"""Persistence behind one interface: SQLite (the embedded default) and PostgreSQL.

See docs/storage.md for the schema, the ledger and the crash-safety argument.
"""

from __future__ import annotations

from baccarat.store.ops import Escrow, Grant, Settle, Void
from baccarat.store.records import (
    Applied,
    AuditReport,
    BetRecord,
    RoundRecord,
    ShoeRecord,
    User,
)
from baccarat.store.store import Store, open_store
from baccarat.store.url import default_db_url

__all__ = [
    "Applied",
    "AuditReport",
    "BetRecord",
    "Escrow",
    "Grant",
    "RoundRecord",
    "Settle",
    "ShoeRecord",
    "Store",
    "User",
    "Void",
    "default_db_url",
    "open_store",
]

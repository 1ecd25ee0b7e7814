"""Persistence behind one interface: SQLite (the embedded default) and PostgreSQL.

See docs/storage.md for the schema, the ledger and the crash-safety argument.
"""

from __future__ import annotations

from baccarat.store.ops import (
    EXPECTED_VOIDS,
    VOID_CRASH,
    VOID_ESCROW_REFUSED,
    VOID_SETTLEMENT_REFUSED,
    VOID_SHUTDOWN,
    VOID_WALLET,
    Escrow,
    Grant,
    Settle,
    Unescrowed,
    Void,
)
from baccarat.store.records import (
    Applied,
    AuditReport,
    BetRecord,
    RoundRecord,
    ShoeRecord,
    ShoeRound,
    User,
)
from baccarat.store.store import Store, open_store
from baccarat.store.url import default_db_url

__all__ = [
    "EXPECTED_VOIDS",
    "VOID_CRASH",
    "VOID_ESCROW_REFUSED",
    "VOID_SETTLEMENT_REFUSED",
    "VOID_SHUTDOWN",
    "VOID_WALLET",
    "Applied",
    "AuditReport",
    "BetRecord",
    "Escrow",
    "Grant",
    "RoundRecord",
    "Settle",
    "ShoeRecord",
    "ShoeRound",
    "Store",
    "Unescrowed",
    "User",
    "Void",
    "default_db_url",
    "open_store",
]

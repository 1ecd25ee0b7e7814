"""The store: one interface over SQLite and PostgreSQL.

Every method is synchronous and thread-safe; the server calls them through
``asyncio.to_thread`` (or awaits :meth:`Store.submit` via ``asyncio.wrap_future``).
Ledger writes (escrow, settle, void, grant) go through one writer thread that commits
whatever has queued up in one transaction (group commit).

The methods come from one class per concern: ``users`` (accounts, preferences, sessions),
``ledger`` (coins), ``tables`` (epochs and seats), ``archive`` (shoes and rounds) and
``operators`` (roles, bans, the console's sessions and the operator log) and ``approvals``
(operators' grants and the ones waiting for a second operator), ``endpoints`` (where
the running servers' consoles answer ``baccarat admin``), ``platform`` (the operator's
platform: its users' launches and transfers), ``risks`` (what the risk view reads: settled
rounds, login addresses).
"""

from __future__ import annotations

import sqlalchemy as sa
from argon2 import PasswordHasher

from baccarat.errors import BaccaratError
from baccarat.store import accounts
from baccarat.store.approvals import Approvals
from baccarat.store.archive import Archive
from baccarat.store.commitments import Commitments
from baccarat.store.console_reads import ConsoleReads
from baccarat.store.endpoints import Endpoints
from baccarat.store.engine import make_engine, migrate
from baccarat.store.ledger import Ledger
from baccarat.store.opening import refusal, verify_ours
from baccarat.store.operators import Operators
from baccarat.store.platform import PlatformAccounts
from baccarat.store.risks import Risks
from baccarat.store.tables import Tables
from baccarat.store.url import default_db_url, driver_url
from baccarat.store.users import Users
from baccarat.store.wallet import WalletCalls
from baccarat.store.writer import Writer


class Store(
    Users,
    Ledger,
    Tables,
    Archive,
    Commitments,
    Operators,
    ConsoleReads,
    Approvals,
    Endpoints,
    PlatformAccounts,
    WalletCalls,
    Risks,
):
    """Accounts, sessions, the ledger, shoes and rounds, in one database."""

    def __init__(
        self, url: str, *, hasher: PasswordHasher | None = None, create: bool = True
    ) -> None:
        self.url = url
        self.engine = make_engine(url, create=create)
        self._hasher = hasher or accounts.password_hasher()
        try:
            if not create:
                verify_ours(self.engine)
            migrate(self.engine)
        except sa.exc.SQLAlchemyError as exc:
            self.engine.dispose()
            raise refusal(self.engine, exc) from None
        except BaccaratError:
            self.engine.dispose()
            raise
        self._writer = Writer(self.engine)

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    @property
    def commits(self) -> int:
        """Ledger transactions committed by the writer so far."""
        return self._writer.commits

    @property
    def writes(self) -> int:
        """Ledger operations those transactions carried."""
        return self._writer.writes

    def close(self) -> None:
        """Finish queued writes and release the database."""
        self._writer.close()
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(
    url: str | None = None, *, hasher: PasswordHasher | None = None, create: bool = True
) -> Store:
    """Open (and migrate) the store at ``url``; the default SQLite file when None. Without
    ``create``, only a database this program made is opened (``no_database`` otherwise); a
    database that cannot be opened is a ``BaccaratError`` saying why in one line."""
    url = url or default_db_url()
    driver_url(url)  # refuse a malformed URL before touching anything
    return Store(url, hasher=hasher, create=create)


__all__ = ["Store", "open_store"]

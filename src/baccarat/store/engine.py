"""Engines for both back ends, and the migrations applied when a store opens."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from baccarat.errors import InvalidInput, NotFound
from baccarat.store.standby import drop_on_standby
from baccarat.store.url import driver_url, is_sqlite, sqlite_path

MIGRATIONS = Path(__file__).parent / "migrations"
READ_ONLY = "baccarat_read_only"
"""Execution option marking a connection that only reads."""
IDLE_IN_TRANSACTION_MS = 2000
"""PostgreSQL ends a session idle inside a write transaction this long (each takes
milliseconds here); its transaction rolls back and its locks go."""
_MIGRATING = "baccarat_migrating"
"""Execution option of the migrations' connection (it may think between statements)."""
_PG_MIGRATION_LOCK = 0x6BACCA7  # any fixed number: serialises concurrent migrations


def make_engine(url: str, *, create: bool = False) -> sa.Engine:
    """An engine for ``url``; SQLite gets WAL, full fsync and write transactions. An SQLite
    file that does not exist is made (with its directory) only when ``create`` is set: else
    ``no_database``, so a mistyped path is said, not answered from an empty new file."""
    url = driver_url(url)
    if not is_sqlite(url):
        return _pg_engine(url)
    path = sqlite_path(url)
    if path is not None:
        verify_sqlite_file(path, create=create)
    engine = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Take transaction control from the driver so BEGIN IMMEDIATE below is honoured.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        # A writer takes the write lock up front: a deferred transaction that later wants
        # to write fails with "database is locked" instead of waiting for the other writer.
        # A reader stays deferred, so in WAL mode it never waits for a writer.
        reading = conn.get_execution_options().get(READ_ONLY, False)
        conn.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")

    return engine


def verify_sqlite_file(path: Path, *, create: bool) -> None:
    """Refuse an SQLite path that cannot be a database file (``not_a_database``), or one that
    does not exist unless ``create`` (``no_database``); with ``create``, make its directory."""
    if path.is_dir():
        raise InvalidInput(
            "not_a_database",
            f"{path} is a directory, not a database file: name the file, sqlite:///DIR/FILE.db.",
        )
    if not create:
        if not path.exists():
            raise NotFound(
                "no_database",
                f"There is no database at {path}: check the path (only baccarat serve "
                "creates a database).",
            )
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidInput(
            "not_a_database", f"{path} cannot be made: {exc.strerror} ({exc.filename})."
        ) from None


def _pg_engine(url: str) -> sa.Engine:
    """A PostgreSQL engine whose pool drops a connection that a failover left behind: one
    whose server went away (checked before each use) or turned out read-only."""
    engine = sa.create_engine(url, pool_size=8, max_overflow=8, pool_pre_ping=True)
    drop_on_standby(engine)

    @sa.event.listens_for(engine, "begin")
    def _on_pg_begin(conn: sa.Connection) -> None:
        # A process frozen inside a write (SIGSTOP, a paused VM) would hold its row
        # locks for as long as it is frozen, and a takeover of its table would wait for
        # ever: the server ends a writing session idle that long, rolling it back.
        options = conn.get_execution_options()
        if not options.get(READ_ONLY, False) and not options.get(_MIGRATING, False):
            conn.exec_driver_sql(
                f"SET LOCAL idle_in_transaction_session_timeout = {IDLE_IN_TRANSACTION_MS}"
            )

    return engine


def migrate(engine: sa.Engine) -> None:
    """Bring the database's schema to the newest revision."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.connect() as conn, conn.execution_options(**{_MIGRATING: True}).begin():
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


@contextmanager
def reading(engine: sa.Engine, *, snapshot: bool = False) -> Iterator[sa.Connection]:
    """A connection for reads; ``snapshot`` makes every statement see the same moment."""
    with engine.connect() as conn:
        conn.execution_options(**{READ_ONLY: True})
        if snapshot and conn.dialect.name == "postgresql":
            # Read committed would let the audit sum postings and balances at different
            # moments while the server writes; one snapshot sees one consistent ledger.
            conn.execution_options(isolation_level="REPEATABLE READ")
        yield conn

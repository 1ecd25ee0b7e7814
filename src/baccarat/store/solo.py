"""The lock a server holds on its database: a server alone (without Redis) holds it alone,
the nodes of a system (``--redis``) share it, so a server of the other kind is refused.

A server alone is the whole system: it voids the rounds left in escrow and takes every
table, raising each table's epoch. A second ``baccarat serve`` started on the same database
by mistake (a second terminal, a restart that overlaps the old process, a node started
without ``--redis``) would do the same to the running ones, whose every escrow would then be
refused. So every server first takes this lock (exclusive alone, shared as a node), and one
that cannot is refused at start, in one line, before it writes anything.

The lock is the operating system's or the database's, never a row with a time-to-live: it
goes with the process that held it, however that process ends, so a restart after a crash
starts at once. SQLite: ``flock`` on a file beside the database (SQLite's own locks are per
transaction). PostgreSQL: a session-level advisory lock on a connection kept for it, keyed
by the schema too, so systems in different schemas of one database do not meet.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
from pathlib import Path
from typing import IO

import sqlalchemy as sa

from baccarat.errors import Conflict
from baccarat.store.url import is_sqlite, sqlite_path

log = logging.getLogger("baccarat.store")

PG_LOCK_KEY = 0x6BACCA8
"""The advisory lock's key (any fixed number; the migrations' lock is another)."""

TAKEN = (
    "another baccarat server is running alone on this database ({where}); stop it first, or "
    "run every server with --redis to share the tables"
)
NODES_RUNNING = (
    "baccarat nodes (--redis) are running on this database ({where}); a server alone would "
    "take their tables: start this one with their --redis"
)


class SoloLock:
    """Held from :meth:`take` until :meth:`release` (or the process ends)."""

    def __init__(self, engine: sa.Engine, url: str, *, shared: bool = False) -> None:
        self.engine = engine
        self.url = url
        self.shared = shared
        """A node of a system (``--redis``): the lock is shared with the other nodes."""
        self._file: IO[bytes] | None = None
        self._conn: sa.Connection | None = None

    def take(self) -> None:
        """Take the lock, or raise ``Conflict('server_running')`` saying who holds it."""
        if is_sqlite(self.url):
            self._take_file()
        else:
            self._take_advisory()

    def _take_file(self) -> None:
        path = sqlite_path(self.url)
        if path is None:
            return  # an in-memory database: no other process can open it
        handle = Path(f"{path}.lock").open("a+b")  # noqa: SIM115 (open as long as held)
        try:
            fcntl.flock(handle, (fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read(64).decode(errors="replace").strip()
            handle.close()
            # Only a server alone writes its process id: none means nodes share the lock.
            raise _refusal(not holder, f"process {holder}" if holder else "its nodes") from None
        if not self.shared:
            handle.truncate(0)
            handle.write(str(os.getpid()).encode())
            handle.flush()
        self._file = handle

    def _take_advisory(self) -> None:
        how = "pg_try_advisory_lock_shared" if self.shared else "pg_try_advisory_lock"
        conn = self.engine.connect()
        try:
            got = conn.scalar(
                sa.text(f"SELECT {how}(:k, hashtext(current_schema()))"), {"k": PG_LOCK_KEY}
            )
            holder = None if got else _advisory_holder(conn)
            conn.commit()  # the lock is the session's; no transaction stays open
        except Exception:
            conn.close()
            raise
        if not got:
            conn.close()
            nodes, where = holder or (False, "a client of it")
            raise _refusal(nodes, where)
        self._conn = conn

    def kept(self) -> bool:
        """Check the lock is still held; take it again if its connection was lost (a
        database restart ends the session, and its lock with it). False if another server
        took it meanwhile."""
        if is_sqlite(self.url):
            return True  # flock goes only with this process
        if self._conn is not None:
            try:
                self._conn.scalar(sa.text("SELECT 1"))
                self._conn.commit()
                return True
            except Exception:
                self._end_session()
        # No session holds it: lost with the database, and a try during the outage failed.
        try:
            self._take_advisory()
        except Conflict:
            return False
        log.warning("the server's lock on the database was taken again after an outage")
        return True

    def release(self) -> None:
        """Give the lock back (a clean stop)."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None
        self._end_session()

    def _end_session(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                # Invalidated, not put back in the pool: the session ends, its lock with it.
                self._conn.invalidate()
                self._conn.close()
            self._conn = None


def _refusal(nodes: bool, where: str) -> Conflict:
    """Why this server cannot start beside those that hold the lock (``nodes``: shared)."""
    return Conflict("server_running", (NODES_RUNNING if nodes else TAKEN).format(where=where))


def _advisory_holder(conn: sa.Connection) -> tuple[bool, str] | None:
    """Who holds the advisory lock, as PostgreSQL knows them: whether nodes share it, and
    one holder's address and application."""
    row = conn.execute(
        sa.text(
            "SELECT l.mode, a.client_addr, a.application_name, a.pid FROM pg_locks l "
            "JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.classid = :k AND l.objsubid = 2 "
            "AND l.objid = hashtext(current_schema())::oid AND l.granted LIMIT 1"
        ),
        {"k": PG_LOCK_KEY},
    ).first()
    if row is None:
        return None
    mode, addr, app, pid = row
    where = f"a connection from {addr or 'a local socket'}, backend pid {pid}"
    return mode == "ShareLock", where + (f", {app}" if app else "")

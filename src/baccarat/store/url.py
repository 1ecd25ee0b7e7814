"""Database URLs: the default SQLite file, and the driver each back end uses."""

from __future__ import annotations

import os
from pathlib import Path

from baccarat.errors import InvalidInput
from baccarat.store import conninfo


def default_db_path() -> Path:
    """Where the embedded database lives when no URL is given (XDG data directory)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "baccarat" / "baccarat.db"


def default_db_url() -> str:
    """The URL of the default SQLite database (honours ``BACCARAT_DB`` when set)."""
    env = os.environ.get("BACCARAT_DB")
    if env:
        return env
    return f"sqlite:///{default_db_path()}"


def driver_url(url: str) -> str:
    """The SQLAlchemy URL for ``url``: PostgreSQL goes through psycopg 3, and libpq's forms
    with several hosts (``postgresql://U@H1:P1,H2:P2/DB``, ``host=H1,H2 ...``) as libpq
    reads them (``baccarat.store.conninfo``)."""
    if url.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        if conninfo.several_hosts(url):
            return conninfo.from_uri(url)
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if url.startswith(("sqlite:///", "sqlite+pysqlite:///")):
        return url
    if conninfo.is_keywords(url):
        return conninfo.from_keywords(url)
    raise InvalidInput(
        "bad_db_url",
        f"{url!r} is not a database URL; use sqlite:///PATH or postgresql://USER@HOST/DB.",
    )


def is_sqlite(url: str) -> bool:
    """Whether ``url`` names an SQLite database."""
    return url.startswith("sqlite")


def sqlite_path(url: str) -> Path | None:
    """The file an SQLite URL names (None for an in-memory database)."""
    rest = url.split(":///", 1)[1].split("?", 1)[0]
    if rest in ("", ":memory:"):
        return None
    return Path(rest)

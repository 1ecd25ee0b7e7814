"""Database URLs: the default SQLite file, and the driver each back end uses."""

from __future__ import annotations

import os
from pathlib import Path

from baccarat.errors import InvalidInput


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
    """The SQLAlchemy URL for ``url``: PostgreSQL goes through psycopg 3."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if url.startswith(("postgresql+psycopg://", "sqlite:///", "sqlite+pysqlite:///")):
        return url
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

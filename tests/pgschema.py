"""A private PostgreSQL schema per test, shared by the storage, server and cluster suites.

Each test gets an empty schema reached through ``search_path``, dropped afterwards, so
parallel runs and suites sharing the database never see each other's rows.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import uuid
from collections.abc import Iterator

import psycopg
import pytest

PG_URL = os.environ.get("BACCARAT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def with_search_path(url: str, schema: str) -> str:
    """``url`` with its connections' search_path set to ``schema``."""
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}"


@contextlib.contextmanager
def private_schema(prefix: str = "t") -> Iterator[str]:
    """A URL to a new, empty schema, dropped on exit (skip the test if PostgreSQL is down)."""
    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    try:
        with psycopg.connect(PG_URL, connect_timeout=3, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
    except psycopg.OperationalError:
        pytest.skip(f"PostgreSQL is not reachable at {PG_URL}")
    try:
        yield with_search_path(PG_URL, schema)
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


_migrated: str | None = None
_TEMPLATE = "template_0123456789abcdef"


def _migrated_sql() -> str:
    """The script of a schema migrated to the newest revision, as ``pg_dump`` writes it, with
    ``_TEMPLATE`` for its name (made once per process: replaying the migrations through
    alembic takes most of a second, running this script a few milliseconds)."""
    global _migrated
    if _migrated is None:
        from baccarat.store import open_store

        with private_schema("tmpl") as url:
            open_store(url).close()
            name = url.rsplit("%3D", 1)[1]
            dump = subprocess.run(
                ["pg_dump", "--no-owner", "--no-privileges", "--inserts", "-n", name, PG_URL],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
        # (the dump's psql-only lines, such as \restrict, are not SQL)
        lines = [line for line in dump.stdout.splitlines() if not line.startswith("\\")]
        _migrated = "\n".join(lines).replace(name, _TEMPLATE)
    return _migrated


@contextlib.contextmanager
def migrated_schema(prefix: str = "t") -> Iterator[str]:
    """A URL to a new schema already migrated to the newest revision, dropped on exit."""
    script = _migrated_sql()
    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(script.replace(_TEMPLATE, schema).encode())
    try:
        yield with_search_path(PG_URL, schema)
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")

"""A private PostgreSQL schema per test, shared by the storage, server and cluster suites.

Each test gets an empty schema reached through ``search_path``, dropped afterwards, so
parallel runs and suites sharing the database never see each other's rows.
"""

from __future__ import annotations

import contextlib
import os
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

"""Bulk writes of a batch's rows: executemany on SQLite, one ``unnest`` statement on PostgreSQL.

On PostgreSQL, psycopg sends an executemany as one pipelined statement per row, and the
Python cost of each row is what limits group commit; passing one array per column to a
single ``INSERT ... SELECT FROM unnest(...)`` (or ``UPDATE ... FROM unnest(...)``) costs
one statement per table per batch instead (bench/bench_store.py measures the difference).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa


def _pg_type(col: sa.Column[Any]) -> str:
    kind = col.type
    if isinstance(kind, sa.BigInteger):
        return "bigint"
    if isinstance(kind, sa.Integer):
        return "integer"
    if isinstance(kind, sa.Float):
        return "float8"
    return "text"  # strings, and JSON sent as its text


def _arrays(
    table: sa.Table, rows: list[dict[str, Any]], cols: Sequence[str]
) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for c in cols:
        if isinstance(table.c[c].type, sa.JSON):
            out[c] = [None if r[c] is None else json.dumps(r[c]) for r in rows]
        else:
            out[c] = [r[c] for r in rows]
    return out


def _unnest(table: sa.Table, cols: Sequence[str]) -> str:
    casts = ", ".join(f"CAST(:{c} AS {_pg_type(table.c[c])}[])" for c in cols)
    names = ", ".join(f'"{c}"' for c in cols)
    return f"unnest({casts}) AS v({names})"


def _value(table: sa.Table, col: str) -> str:
    return f'v."{col}"::json' if isinstance(table.c[col].type, sa.JSON) else f'v."{col}"'


def insert_rows(conn: sa.Connection, table: sa.Table, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` (dicts with the same keys) into ``table``."""
    if not rows:
        return
    if conn.dialect.name != "postgresql":
        conn.execute(_insert(table), rows)
        return
    cols = tuple(rows[0])
    conn.execute(_pg_insert(table, cols), _arrays(table, rows, cols))


# Each statement is built once per shape: SQLAlchemy then keys and compiles it once.


@functools.cache
def _insert(table: sa.Table) -> sa.Insert:
    return sa.insert(table)


@functools.cache
def _pg_insert(table: sa.Table, cols: tuple[str, ...]) -> sa.TextClause:
    names = ", ".join(f'"{c}"' for c in cols)
    values = ", ".join(_value(table, c) for c in cols)
    unnest = _unnest(table, cols)
    return sa.text(f'INSERT INTO "{table.name}" ({names}) SELECT {values} FROM {unnest}')


def update_rows(
    conn: sa.Connection,
    table: sa.Table,
    key: str,
    rows: list[dict[str, Any]],
    *,
    where: str = "",
    fixed: dict[str, str] | None = None,
) -> None:
    """Set each row's columns where ``table.key`` equals the row's ``key`` value.

    ``fixed`` sets columns to SQL literals for every row; ``where`` adds a condition
    written in SQL over ``table``'s columns.
    """
    if not rows:
        return
    cols = tuple(rows[0])
    shape = (table, key, cols, where, tuple((fixed or {}).items()))
    if conn.dialect.name == "postgresql":
        conn.execute(_pg_update(*shape), _arrays(table, rows, cols))
        return
    # SQLite: executemany of one UPDATE, each row's values bound under a prefixed name.
    conn.execute(_update(*shape), [{f"b_{c}": r[c] for c in cols} for r in rows])


@functools.cache
def _pg_update(
    table: sa.Table, key: str, cols: tuple[str, ...], where: str, fixed: tuple[tuple[str, str], ...]
) -> sa.TextClause:
    sets = [f'"{c}" = {_value(table, c)}' for c in cols if c != key]
    sets += [f'"{c}" = {v}' for c, v in fixed]
    t = f'"{table.name}"'
    cond = f'{t}."{key}" = v."{key}"' + (f" AND {where}" if where else "")
    unnest = _unnest(table, cols)
    return sa.text(f"UPDATE {t} SET {', '.join(sets)} FROM {unnest} WHERE {cond}")


@functools.cache
def _update(
    table: sa.Table, key: str, cols: tuple[str, ...], where: str, fixed: tuple[tuple[str, str], ...]
) -> sa.Update:
    values: dict[str, Any] = {
        c: sa.bindparam(f"b_{c}", type_=table.c[c].type) for c in cols if c != key
    }
    values.update({c: sa.literal_column(v) for c, v in fixed})
    stmt = sa.update(table).where(table.c[key] == sa.bindparam(f"b_{key}")).values(values)
    return stmt.where(sa.text(where)) if where else stmt

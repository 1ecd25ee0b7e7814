"""The load test's accounts: real users, real ledger grants, real sessions, made in bulk.

A full table is a dealer, seven bettors and a spectator. Every account is an ordinary user
(one password hash, computed once and shared, since every account has the same password),
its coins come from the mint by a ``Grant`` through the ledger's own batch engine, and its
session is an ordinary session row, so ``baccarat audit`` checks them like any other. Only the
cost is bulk: a few statements for thousands of accounts instead of one login each.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

import sqlalchemy as sa

from baccarat.names import display_key
from baccarat.names import username_key as name_key
from baccarat.store import Store
from baccarat.store import schema as s
from baccarat.store.accounts import SESSION_TTL, password_hasher, token_hash
from baccarat.store.batch import apply_ops
from baccarat.store.bulk import insert_rows
from baccarat.store.ops import Grant
from baccarat.store.records import Applied

BETTORS = 7
DEALER_COINS = 50_000_000
"""Enough for a dealer to cover seven bettors at the limits for a long run."""
BETTOR_COINS = 2_000_000
LEVEL = 50
CHUNK = 2_000
"""Accounts written per transaction."""


@dataclass(frozen=True, slots=True)
class Member:
    """One client of a full table: its account, its role and its seat (None: spectator)."""

    name: str
    user_id: int
    token: str
    role: str
    seat: int | None


@dataclass(frozen=True, slots=True)
class Crew:
    """The nine clients of one full table."""

    table_id: str
    members: tuple[Member, ...]


def _plan(prefix: str, table_id: str, index: int) -> list[tuple[str, str, int | None, int]]:
    out: list[tuple[str, str, int | None, int]] = [(f"{prefix}{index}d", "dealer", 0, DEALER_COINS)]
    out += [(f"{prefix}{index}b{i}", "bettor", i, BETTOR_COINS) for i in range(1, BETTORS + 1)]
    out.append((f"{prefix}{index}s", "spectator", None, 0))
    return out


def make_crews(store: Store, table_ids: list[str], *, prefix: str | None = None) -> list[Crew]:
    """Create the accounts of a full crew for every table; return them with their tokens.

    Names are ``PREFIX<table index><role>``; ``prefix`` defaults to a fresh random one, so a
    run against a server that already has load-test accounts makes new ones.
    """
    prefix = prefix or f"lt{secrets.token_hex(3)}-"
    password = secrets.token_urlsafe(12)
    pw_hash = password_hasher().hash(password)
    plans = [(t, _plan(prefix, t, i)) for i, t in enumerate(table_ids)]
    flat = [(t, *p) for t, plan in plans for p in plan]
    members: dict[str, Member] = {}
    for start in range(0, len(flat), CHUNK):
        members.update(_create_chunk(store, flat[start : start + CHUNK], pw_hash))
    return [Crew(t, tuple(members[p[0]] for p in plan)) for t, plan in plans]


def _create_chunk(
    store: Store, chunk: list[tuple[str, str, str, int | None, int]], pw_hash: str
) -> dict[str, Member]:
    now = time.time()
    with store.engine.begin() as conn:
        insert_rows(
            conn,
            s.users,
            [
                {
                    "username": name,
                    "username_key": name_key(name),
                    "password_hash": pw_hash,
                    "display_name": name,
                    "display_key": display_key(name),
                    "level": LEVEL,
                    "coins": 0,
                    "created_at": now,
                }
                for _, name, _, _, _ in chunk
            ],
        )
        keys = [name_key(name) for _, name, _, _, _ in chunk]
        ids = dict(
            conn.execute(
                sa.select(s.users.c.username_key, s.users.c.id).where(
                    s.users.c.username_key.in_(keys)
                )
            ).all()
        )
        grants = [
            Grant(ids[name_key(name)], coins, "load test account", f"grant:{secrets.token_hex(16)}")
            for _, name, _, _, coins in chunk
            if coins
        ]
        for outcome in apply_ops(conn, grants, now):
            if not isinstance(outcome, Applied):
                raise outcome
        tokens = {name: secrets.token_urlsafe(32) for _, name, _, _, _ in chunk}
        insert_rows(
            conn,
            s.sessions,
            [
                {
                    "token_hash": token_hash(tokens[name]),
                    "user_id": ids[name_key(name)],
                    "created_at": now,
                    "expires_at": now + SESSION_TTL,
                }
                for _, name, _, _, _ in chunk
            ],
        )
    return {
        name: Member(name, int(ids[name_key(name)]), tokens[name], role, seat)
        for _, name, role, seat, _ in chunk
    }

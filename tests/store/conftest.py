"""Fixtures for the storage suite: every test runs on SQLite and on PostgreSQL.

PostgreSQL tests each get a private schema (through ``search_path``), dropped afterwards,
so parallel runs and other suites sharing the database never see each other's rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from argon2 import PasswordHasher, profiles

from baccarat.cards import parse_cards
from baccarat.rules import deal
from baccarat.settlement import settle
from baccarat.store import BetRecord, Store, User, open_store
from baccarat.store.dealt import stored_outcome
from migrated import migrated_sqlite
from pgschema import PG_URL, migrated_schema, private_schema

FAST_HASHER = PasswordHasher.from_parameters(profiles.CHEAPEST)

_reachable: bool | None = None


def pg_reachable() -> bool:
    """Whether the test PostgreSQL server answers (checked once)."""
    global _reachable
    if _reachable is None:
        try:
            with psycopg.connect(PG_URL, connect_timeout=3):
                _reachable = True
        except psycopg.Error:
            _reachable = False
    return _reachable


BACK_ENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


def _database(request: pytest.FixtureRequest, path: Path, migrated: bool) -> Iterator[str]:
    if request.param == "sqlite":
        yield migrated_sqlite(path) if migrated else f"sqlite:///{path}"
        return
    if not pg_reachable():
        pytest.skip(f"PostgreSQL is not reachable at {PG_URL}")
    with (migrated_schema if migrated else private_schema)("t") as url:
        yield url


@pytest.fixture(params=BACK_ENDS)
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL to an empty database, for tests that run the migrations themselves."""
    yield from _database(request, tmp_path / "store.db", migrated=False)


@pytest.fixture(params=BACK_ENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL to a database migrated, with no rows of its own: a copy of a migrated SQLite
    file, or a private PostgreSQL schema made by a migrated one's script."""
    yield from _database(request, tmp_path / "store.db", migrated=True)


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """An open store on each back end."""
    st = open_store(db_url, hasher=FAST_HASHER)
    try:
        yield st
    finally:
        st.close()


@pytest.fixture
def second(store: Store) -> Iterator[Store]:
    """A second store on the same database, as another process would open it."""
    other = open_store(store.url, hasher=FAST_HASHER)
    try:
        yield other
    finally:
        other.close()


@pytest.fixture
def users(store: Store) -> dict[str, User]:
    """A dealer with 100,000 coins and three bettors with 10,000 each."""
    return {
        "dealer": store.create_user("Dealer", "pw", coins=100_000),
        "b1": store.create_user("b1", "pw", coins=10_000),
        "b2": store.create_user("b2", "pw", coins=10_000),
        "b3": store.create_user("b3", "pw", coins=10_000),
    }


SettleArgs = tuple[list[str], dict[str, object], dict[int, int], dict[int, int], int]


def settlement_for(cards: list[str], dealer: int, bets: list[BetRecord]) -> SettleArgs:
    """What the table would pass to settle_round: cards, outcome, deltas, commission, house."""
    it = iter(parse_cards(cards))
    outcome = deal(lambda: next(it))
    stakes: dict[int, dict[str, int]] = {}
    for b in bets:
        slip = stakes.setdefault(b.user_id, {})
        slip[b.area] = slip.get(b.area, 0) + b.coins
    result = settle(outcome, dealer, stakes)  # type: ignore[arg-type]
    dealt = cards[: len(outcome.player) + len(outcome.banker)]
    return dealt, dict(stored_outcome(outcome)), result.deltas, result.commission, result.house


@pytest.fixture
def settle_args() -> Callable[[list[str], int, list[BetRecord]], SettleArgs]:
    """The settlement helper, as a fixture so test modules need no imports from here."""
    return settlement_for

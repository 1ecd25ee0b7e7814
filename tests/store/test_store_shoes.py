"""The shoe archive: a table's shoes in pages, newest first, and a shoe's rounds in order."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from baccarat.errors import InvalidInput
from baccarat.shoe import commitment, shuffled_cards
from baccarat.store import BetRecord, ShoeRound, Store, User
from baccarat.store import schema as s

SEEDS = {name: bytes([i]) * 32 for i, name in enumerate(("s1", "s2", "s3", "s4", "s5", "s6"), 1)}


def _start(store: Store, shoe_id: str, table_id: str, started_at: float) -> None:
    store.record_shoe_start(shoe_id, table_id, commitment(SEEDS[shoe_id]))
    with store.engine.begin() as conn:
        conn.execute(
            sa.update(s.shoes).where(s.shoes.c.id == shoe_id).values(started_at=started_at)
        )


def _deal(
    store: Store,
    users: dict[str, User],
    settle_args: Callable[..., Any],
    shoe_id: str,
    table_id: str,
    plan: str,
) -> list[list[str]]:
    """Play the rounds of ``plan`` from the shoe's real order, one letter per round:
    ``s`` settled, ``v`` voided (before its deal: no card), ``e`` still in escrow. The
    cards each settled round took, in round order."""
    order = [str(c) for c in shuffled_cards(SEEDS[shoe_id])]
    dealer = users["dealer"].user_id
    dealt: list[list[str]] = []
    for no, kind in enumerate(plan, 1):
        rid = f"{shoe_id}-r{no}"
        bets = [BetRecord(users["b1"].user_id, "banker", 2, 200, time.time())]
        store.escrow_round(rid, table_id, shoe_id, no, dealer, bets)
        if kind == "s":
            cards, *rest = settle_args(order, dealer, bets)
            store.settle_round(rid, cards, *rest)
            dealt.append(cards)
            order = order[len(cards) :]
        elif kind == "v":
            store.void_round(rid)
    return dealt


def test_a_tables_shoes_come_in_pages_newest_first_with_their_settled_rounds(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _start(store, "s1", "t1", 1000.0)
    _start(store, "s2", "t1", 2000.0)
    _start(store, "s3", "t1", 2000.0)  # started with s2: the id breaks the tie
    _start(store, "s4", "t1", 3000.0)
    _start(store, "s5", "t2", 4000.0)  # another table's
    _deal(store, users, settle_args, "s1", "t1", "sss")
    _deal(store, users, settle_args, "s2", "t1", "svse")
    _deal(store, users, settle_args, "s5", "t2", "ss")
    store.record_shoe_end("s1", SEEDS["s1"].hex())

    first = store.list_shoes("t1", limit=2)
    assert [(shoe.shoe_id, n) for shoe, n in first] == [("s4", 0), ("s3", 0)]
    last = first[-1][0]
    second = store.list_shoes("t1", limit=2, before=(last.started_at, last.shoe_id))
    assert [(shoe.shoe_id, n) for shoe, n in second] == [("s2", 2), ("s1", 3)]
    # A shoe started since heads the first page but shifts no later one; after the last
    # shoe comes an empty page.
    _start(store, "s6", "t1", 5000.0)
    assert [shoe.shoe_id for shoe, _ in store.list_shoes("t1", 2)] == ["s6", "s4"]
    again = store.list_shoes("t1", limit=2, before=(last.started_at, last.shoe_id))
    assert [shoe.shoe_id for shoe, _ in again] == ["s2", "s1"]
    assert store.list_shoes("t1", limit=2, before=(1000.0, "s1")) == []
    ended, running = second[1][0], second[0][0]
    assert (ended.seed, ended.commitment) == (SEEDS["s1"].hex(), commitment(SEEDS["s1"]))
    assert ended.ended_at is not None and ended.table_id == "t1"
    assert (running.seed, running.ended_at) == (None, None)
    assert [(shoe.shoe_id, n) for shoe, n in store.list_shoes("t2")] == [("s5", 2)]
    assert store.list_shoes("nowhere") == []
    with pytest.raises(InvalidInput):
        store.list_shoes("t1", limit=0)


def test_a_shoes_rounds_come_in_round_order_with_their_cards_and_winner(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _start(store, "s1", "t1", 1000.0)
    dealt = _deal(store, users, settle_args, "s1", "t1", "svse")
    rounds = store.shoe_rounds("s1")
    assert [(r.round_id, r.round_no, r.status) for r in rounds] == [
        ("s1-r1", 1, "settled"),
        ("s1-r2", 2, "voided"),
        ("s1-r3", 3, "settled"),
        ("s1-r4", 4, "escrowed"),
    ]
    assert [r.cards for r in rounds] == [dealt[0], None, dealt[1], None]
    # The settled rounds' cards, in round order, are the top of the shoe's order.
    order = [str(c) for c in shuffled_cards(SEEDS["s1"])]
    taken = dealt[0] + dealt[1]
    assert 8 <= len(taken) <= 12 and taken == order[: len(taken)]
    for r in rounds:
        stored = store.get_round(r.round_id)
        winner = None if stored.outcome is None else stored.outcome["winner"]
        assert r == ShoeRound(
            r.round_id,
            stored.round_no,
            stored.status,
            stored.cards,
            winner,
            stored.escrowed_at,
            stored.closed_at,
        )
    assert rounds[0].winner in ("player", "banker", "tie") and rounds[0].closed_at is not None
    assert rounds[3].winner is None and rounds[3].closed_at is None
    assert store.shoe_rounds("nope") == []


def test_the_shoes_of_a_table_are_indexed_by_start_time(store: Store) -> None:
    indexes = {i["name"]: i["column_names"] for i in sa.inspect(store.engine).get_indexes("shoes")}
    assert indexes["shoes_table"] == ["table_id", "started_at", "id"]


def test_a_shoes_rounds_come_in_dealing_order_whatever_their_ids_and_numbers_say(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    # A crash voided round 2 after it had drawn cards (positions 5-10 are skipped); an older
    # server gave its replacement the same number, and a random id that sorts before it.
    # Round 3, voided, was recorded without its first card: it keeps its place by number.
    _start(store, "s1", "t1", 1000.0)
    order = [str(c) for c in shuffled_cards(SEEDS["s1"])]
    dealer = users["dealer"].user_id
    plan = (("zz", 1, 0, True), ("yy", 2, 5, False), ("mm", 3, None, False), ("aa", 2, 11, True))
    at = 0
    for rid, no, first, settles in plan:
        at = max(at, first or 0)
        bets = [BetRecord(users["b1"].user_id, "banker", 2, 200, time.time())]
        store.escrow_round(rid, "t1", "s1", no, dealer, bets, first_card=first)
        if settles:
            cards, *rest = settle_args(order[at:], dealer, bets)
            store.settle_round(rid, cards, *rest)
            at += len(cards)
        else:
            store.void_round(rid)
    rounds = store.shoe_rounds("s1")
    assert [(r.round_id, r.round_no, r.first_card) for r in rounds] == [
        ("zz", 1, 0),
        ("yy", 2, 5),
        ("aa", 2, 11),
        ("mm", 3, None),
    ]
    assert rounds[2].cards == order[11 : 11 + len(rounds[2].cards or [])]
    # The roads' marks come in the same order; the shoe's highest number counts the voided
    # rounds, so the next round of the shoe takes 4.
    assert store.shoe_outcomes("s1") == [store.get_round(i).outcome for i in ("zz", "aa")]
    assert store.last_round_no("s1") == 3 and store.last_round_no("nope") == 0

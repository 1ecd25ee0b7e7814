"""The risk view's reads: settled rounds as the scorer's facts, and login addresses."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from baccarat.risk import HEDGE, score_pairs
from baccarat.store import BetRecord, Store, User

BANKER_NATURAL = ["5S", "5H", "KH", "3C"]  # Player 5, Banker 8
PLAYER_NATURAL = ["4S", "5H", "4H", "KC"]  # Player 8, Banker 5


def _hedged_round(
    store: Store, users: dict[str, User], n: int, settle_args: Callable[..., Any]
) -> None:
    b1, b2, b3 = (users[k].user_id for k in ("b1", "b2", "b3"))
    sides = ("player", "banker") if n % 2 else ("banker", "player")
    bets = [
        BetRecord(b1, sides[0], 3, 300, time.time()),
        BetRecord(b1, "tie", 1, 100, time.time()),
        BetRecord(b2, sides[1], 3, 300, time.time()),
        BetRecord(b3, "player", 1, 100, time.time()),
        BetRecord(b3, "player", 1, 100, time.time()),
    ]
    rid = f"r{n}"
    dealer = users["dealer"].user_id
    store.escrow_round(rid, "t1", "s1", n + 1, dealer, bets)
    cards = BANKER_NATURAL if n % 3 else PLAYER_NATURAL
    store.settle_round(rid, *settle_args(cards, dealer, bets))


def test_settled_rounds_come_back_as_each_bettors_position(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    since = time.time() - 1
    _hedged_round(store, users, 3, settle_args)
    store.escrow_round("r-void", "t1", "s1", 9, users["dealer"].user_id, [])
    store.void_round("r-void")
    (facts,) = store.risk_rounds(since)
    b1, b2, b3 = (users[k].user_id for k in ("b1", "b2", "b3"))
    assert (facts.round_id, facts.table_id, facts.round_no) == ("r3", "t1", 4)
    assert facts.winner == "player"
    assert facts.dealer_id == users["dealer"].user_id
    assert dict(facts.positions) == {b1: 300, b2: -300, b3: 200}
    assert store.risk_rounds(time.time() + 60) == []


def test_a_hedging_pair_from_one_address_is_flagged_from_the_stored_rounds(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    b1, b2, b3 = (users[k].user_id for k in ("b1", "b2", "b3"))
    for n in range(20):
        _hedged_round(store, users, n, settle_args)
    store.note_login_address(b1, "203.0.113.9")
    store.note_login_address(b1, "203.0.113.9")
    store.note_login_address(b2, "203.0.113.9")
    store.note_login_address(b3, "198.51.100.1")
    addresses = store.login_addresses([b1, b2, b3, 999])
    assert addresses == {
        b1: frozenset({"203.0.113.9"}),
        b2: frozenset({"203.0.113.9"}),
        b3: frozenset({"198.51.100.1"}),
    }
    top = score_pairs(store.risk_rounds(0), addresses)[0]
    assert (top.pattern, top.a, top.b, top.rounds, top.hits) == (HEDGE, b1, b2, 20, 20)
    assert top.shared_address and top.flagged


def test_names_are_read_for_ids(store: Store, users: dict[str, User]) -> None:
    b1 = users["b1"]
    assert store.user_names([b1.user_id, 12345]) == {b1.user_id: b1.display_name}
    assert store.user_names([]) == {}

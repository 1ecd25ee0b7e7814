"""The platform's part of the store on both back ends: launches link one account, a token
launches once, a transfer id moves coins once, and the audit knows the platform's wallet."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from baccarat.errors import Conflict, RuleViolation
from baccarat.store import BetRecord, Store
from baccarat.store.platform import Launched


def _launch(store: Store, jti: str, level: int = 60, name: str = "Mei") -> int:
    who = Launched("u1001", name, level, jti, time.time() + 60)
    return store.launch(who).user_id


def test_launches_link_one_account_and_a_token_launches_once(store: Store) -> None:
    first = _launch(store, "j1")
    assert _launch(store, "j2", level=70, name="Mei II") == first
    user = store.get_user(first)
    assert (user.level, user.display_name) == (70, "Mei II")
    with pytest.raises(RuleViolation) as err:
        _launch(store, "j2")
    assert err.value.code == "token_replayed"


def test_a_transfer_id_moves_coins_once_even_when_sent_together(store: Store) -> None:
    uid = _launch(store, "j1")
    with ThreadPoolExecutor(6) as pool:
        done = list(pool.map(lambda _: store.transfer("t1", "u1001", 5_000), range(6)))
    assert [d.replayed for d in done].count(False) == 1
    assert store.balance(uid) == 5_000
    with pytest.raises(Conflict):
        store.transfer("t1", "u1001", 6_000)
    with pytest.raises(RuleViolation) as err:
        store.transfer("t2", "u1001", -5_001)
    assert err.value.code == "insufficient_coins"
    store.transfer("t3", "u1001", -2_000)
    totals = store.total_coins()
    assert (totals["platform"], totals["total"]) == (-3_000, 0)
    assert store.audit().ok, store.audit().problems


def test_a_withdrawal_never_takes_coins_a_round_in_escrow_holds(store: Store) -> None:
    uid = _launch(store, "j1")
    dealer = store.create_user("dealer", "pw", coins=50_000)
    store.transfer("t1", "u1001", 5_000)
    store.record_shoe_start("s1", "t1", "0" * 64)
    bets = [BetRecord(uid, "player", 10, 1_000, time.time())]
    store.escrow_round("r1", "t1", "s1", 1, dealer.user_id, bets)
    # Whichever node runs the table: the database knows the round holds the stake.
    with pytest.raises(RuleViolation) as err:
        store.transfer("t2", "u1001", -1)
    assert (err.value.code, err.value.details["table_id"]) == ("coins_in_play", "t1")
    store.transfer("t3", "u1001", 1_000)  # coins may always come in
    store.void_round("r1")
    store.transfer("t2", "u1001", -6_000)
    assert store.balance(uid) == 0

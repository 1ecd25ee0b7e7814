"""The platform's part of the store on both back ends: launches link one account, a token
launches once, a transfer id moves coins once, and the audit knows the platform's wallet."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from baccarat.errors import Conflict, RuleViolation
from baccarat.store import Store
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

"""My bets over HTTP: a user's own rounds, paged newest first, and their totals since a time."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest
from server_live import Live, auto_open, is_event, live_test

from baccarat.api import HttpError, my_net, my_rounds
from baccarat.client import Client
from baccarat.shoe import commitment


@live_test()
async def test_my_rounds_show_my_bets_cards_net_and_then_the_seed(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    _, alice_token = await live.user("alice")
    _, bob_token = await live.user("bob")
    alice = await Client.connect(live.base, alice_token)
    bob = await Client.connect(live.base, bob_token)
    auto_open(alice)
    auto_open(bob)
    start = time.time() - 1
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    await bob.sit("t1", 2)
    for _ in range(3):
        await alice.wait_for(is_event("betting_opened"), 20)
        await alice.bet("player", 5)
        await alice.bet("tie", 1)
        await bob.bet("banker", 3)
        await alice.wait_for(is_event("round_settled"), 30)
    await asyncio.sleep(0.3)
    first = await my_rounds(live.base, alice_token, limit=2)
    assert len(first["rounds"]) == 2 and first["next"]
    second = await my_rounds(live.base, alice_token, limit=2, before=first["next"])
    rounds = first["rounds"] + second["rounds"]
    nos = [r["round_no"] for r in rounds]
    assert len(nos) == 3 and nos == sorted(nos, reverse=True)
    for r in rounds[:3]:
        assert r["table_id"] == "t1" and r["role"] == "bettor" and r["status"] == "settled"
        assert r["bets"] == {"player": 500, "tie": 100} and r["chips"] == {"player": 5, "tie": 1}
        # Bob's bets never show in Alice's history.
        assert "banker" not in r["bets"]
        assert len(r["cards"]) >= 4 and r["winner"] in ("player", "banker", "tie")
        assert r["net"] == live.store.get_round(r["round_id"]).deltas[alice.user_id]
        assert r["shoe"]["seed"] is None and r["shoe"]["verify"] is None
    total = sum(r["net"] for r in rounds[:3])
    commission = sum(r["commission"] for r in rounds[:3])
    assert await my_net(live.base, alice_token, start) == {
        "since": start,
        "net": total,
        "commission": commission,
        "rounds": 3,
    }
    # The dealer's history holds the rounds they dealt, with their own net.
    dealer_token = live.store.create_session(dealer.user_id)
    dealt = (await my_rounds(live.base, dealer_token, limit=3))["rounds"]
    assert [(r["role"], r["bets"]) for r in dealt] == [("dealer", {})] * 3
    assert [r["net"] for r in dealt] == [
        live.store.get_round(r["round_id"]).deltas[dealer.user_id] for r in dealt
    ]
    newcomer = (await live.user("newcomer"))[1]
    assert await my_rounds(live.base, newcomer) == {"rounds": [], "next": None}
    await alice.close()
    await bob.close()
    await dealer.close()


@live_test()
async def test_an_ended_shoe_shows_its_seed_and_the_verify_command(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    _, token = await live.user("alice")
    alice = await Client.connect(live.base, token)
    auto_open(alice)
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    await alice.wait_for(is_event("betting_opened"), 20)
    await alice.bet("banker", 1)
    await alice.wait_for(is_event("round_settled"), 30)
    # End the shoe as the table would, through the store.
    [entry] = (await my_rounds(live.base, token))["rounds"]
    shoe = live.store.get_shoe(entry["shoe_id"])
    driver = live.server.drivers["t1"]
    seed = driver.table.shoe.seed if driver.table.shoe is not None else None
    assert seed is not None and commitment(seed) == shoe.commitment
    live.store.record_shoe_end(entry["shoe_id"], seed.hex())
    [entry] = (await my_rounds(live.base, token))["rounds"]
    assert entry["shoe"]["seed"] == seed.hex()
    assert entry["shoe"]["verify"] == (
        f"baccarat verify-shoe --seed {seed.hex()} --commitment {shoe.commitment}"
    )
    await alice.close()
    await dealer.close()


@live_test()
async def test_my_bets_need_a_login_and_clear_parameters(live: Live) -> None:
    _, token = await live.user("alice")
    async with (
        aiohttp.ClientSession() as session,
        session.get(live.base + "/api/my/rounds") as resp,
    ):
        assert resp.status == 401
    headers = {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession(headers=headers) as session:
        for query, code in (
            ({"limit": "0"}, "bad_limit"),
            ({"limit": "abc"}, "bad_limit"),
            ({"limit": "101"}, "bad_limit"),
            ({"before": "nonsense"}, "bad_cursor"),
            ({"before": "nan:r1"}, "bad_cursor"),
        ):
            async with session.get(live.base + "/api/my/rounds", params=query) as resp:
                body = await resp.json()
                assert (resp.status, body["error"]["code"]) == (400, code)
    with pytest.raises(HttpError) as err:
        await my_net(live.base, token, float("inf"))
    assert err.value.code == "bad_since"

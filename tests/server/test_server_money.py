"""What a table believes about a user's coins never runs ahead of or behind the ledger.

Each race is held still instead of timed: the SQLite write lock is taken from outside, so
the table's ledger write waits at a known step while the test sends the racing command.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from server_live import SLOW_SQUEEZE, Live, auto_open, is_event, live_test

from baccarat.cards import deck, parse_cards
from baccarat.client import Client, CommandError
from baccarat.shoe import Shoe
from baccarat.store.url import sqlite_path
from scrape import scrape

HELD: dict[str, Any] = {**SLOW_SQUEEZE, "timers": {**SLOW_SQUEEZE["timers"], "betting": 20.0}}
"""Two seconds to bet, and squeezes that wait for their controller: the test sets the pace."""

PLAYER_NATURAL = ["4S", "3H", "5D", "4C"]
"""Player 9 (4, 5) beats Banker 7 (3, 4): no third card, no pair."""
PADDING = [str(c) for c in deck()] * 2


def _deal_first(live: Live, table_id: str, cards: list[str]) -> None:
    """Make the table's next shoe deal ``cards`` first (set before its first round).

    The seed only gives the shoe a commitment to publish; it does not make these cards.
    """
    live.server.drivers[table_id].table.shoe_factory = lambda: Shoe(
        parse_cards(cards + PADDING), bytes(32)
    )


@contextlib.contextmanager
def ledger_held(live: Live) -> Iterator[None]:
    """Hold the database's write lock: every ledger write waits until the block ends."""
    path = sqlite_path(live.store.url)
    assert path is not None
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        conn.execute("BEGIN IMMEDIATE")
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


async def until(predicate: Callable[[], bool]) -> None:
    """Wait (a bounded while) until ``predicate`` holds."""
    async with asyncio.timeout(30):
        while not predicate():
            await asyncio.sleep(0.005)


def squeezing(hand: str) -> Callable[[dict[str, Any]], bool]:
    """A predicate: the squeeze of ``hand``'s face-down card started."""
    return lambda m: is_event("squeeze_started")(m) and m["data"]["hand"] == hand


async def two_sockets(live: Live, name: str, coins: int) -> tuple[int, Client, Client]:
    """A user with two open sockets."""
    user, token = await live.user(name, coins)
    return (
        user.user_id,
        await Client.connect(live.base, token),
        await Client.connect(live.base, token),
    )


async def bet(client: Client, area: str, chips: int) -> None:
    """Place ``chips`` chips on ``area``, ten at a time."""
    while chips > 0:
        chip = min(10, chips)
        await client.bet(area, chip)
        chips -= chip


def table_coins(live: Live, table_id: str) -> dict[int, int]:
    """Each seated user's balance as the table believes it."""
    seats = live.server.drivers[table_id].table.seats
    return {o.user_id: o.coins for o in seats if o is not None}


def ledger_coins(live: Live, user_ids: Iterator[int] | list[int]) -> dict[int, int]:
    """The ledger's balance of each user."""
    return {uid: live.store.balance(uid) for uid in user_ids}


@live_test(rooms=HELD)
async def test_a_leaving_dealer_cannot_sit_again_on_the_balance_before_settlement(
    live: Live,
) -> None:
    _deal_first(live, "t1", PLAYER_NATURAL)
    dealer_id, a, b = await two_sockets(live, "xavier", 39_000)
    yara = await live.client("yara", 100_000)
    # Bettors sit first: the dealer's sit opens the round, and every bettor sees it open.
    await yara.sit("t1", 1)
    await a.sit("t1", 0)
    await yara.wait_for(is_event("betting_opened"))
    await bet(yara, "player", 50)
    await yara.wait_for(is_event("betting_closed"))
    await a.stand()  # the dealer keeps the seat until the round settles
    driver = live.server.drivers["t1"]
    with ledger_held(live):
        await yara.wait_for(squeezing("player"))
        await yara.open("player")
        await yara.wait_for(squeezing("banker"))
        opening = asyncio.create_task(yara.open("banker"))
        # The table has settled (the dealer lost 5,000) and waits for the ledger's write.
        await until(lambda: driver.table.round is not None and driver.table.round.settled)
        sitting = asyncio.create_task(b.sit("t1", 0))
        await until(lambda: len(driver.queue) > 0)
    await opening
    with pytest.raises(CommandError) as refused:
        await sitting
    # The round was still in play (its result showing): the dealer seat waits for its end.
    assert refused.value.code == "round_in_play"
    await until(lambda: driver.table.round is None or not driver.table.round.settled)
    with pytest.raises(CommandError) as refused:
        await b.sit("t1", 0)
    # 34,000 after the loss: below the dealer floor of 35,000.
    assert refused.value.code == "coins_below_floor"
    assert live.store.balance(dealer_id) == 34_000
    coins = table_coins(live, "t1")
    assert coins == ledger_coins(live, list(coins))
    for c in (a, b, yara):
        await c.close()


@live_test(rooms=HELD)
async def test_a_bettor_who_stands_after_the_close_and_sits_again_keeps_the_ledgers_balance(
    live: Live,
) -> None:
    _deal_first(live, "t1", PLAYER_NATURAL)
    dealer = await live.client("dealer", 1_000_000)
    zoe = await live.client("zoe", 100_000)
    uid, a, b = await two_sockets(live, "yara", 100_000)
    await zoe.sit("t1", 1)
    await a.sit("t1", 2)
    await dealer.sit("t1", 0)
    await a.wait_for(is_event("betting_opened"))
    await bet(a, "player", 50)
    await bet(zoe, "player", 1)  # Zoe squeezes once Yara has left
    driver = live.server.drivers["t1"]
    with ledger_held(live):
        # Betting closes while the ledger is held: the escrow write waits.
        await until(lambda: driver.table.round is not None and driver.table.round.closed)
        standing = asyncio.create_task(a.stand())
        await until(lambda: len(driver.queue) > 0)
        sitting = asyncio.create_task(b.sit("t1", 3))
        await until(lambda: len(driver.queue) > 1)
    await standing
    await sitting
    # Seated again with the ledger's balance: the stake is in escrow, not in hand.
    assert table_coins(live, "t1")[uid] == live.store.balance(uid) == 95_000
    # The round settles: the table and the ledger both pay the stake back with the win.
    await zoe.wait_for(squeezing("player"))
    await zoe.open("player")
    await zoe.wait_for(squeezing("banker"))
    await zoe.open("banker")
    await zoe.wait_for(is_event("round_settled"))
    assert table_coins(live, "t1")[uid] == live.store.balance(uid) == 104_950
    coins = table_coins(live, "t1")
    assert coins == ledger_coins(live, list(coins))
    for c in (dealer, zoe, a, b):
        await c.close()


@live_test(rooms=HELD)
async def test_coins_in_play_at_one_table_cannot_be_seated_at_another(live: Live) -> None:
    _deal_first(live, "t1", PLAYER_NATURAL)
    dealer = await live.client("dealer", 1_000_000)
    zoe = await live.client("zoe", 100_000)
    uid, a, b = await two_sockets(live, "yara", 100_000)
    await zoe.sit("t1", 1)
    await a.sit("t1", 2)
    await dealer.sit("t1", 0)
    await a.wait_for(is_event("betting_opened"))
    await bet(zoe, "player", 50)  # the larger stake: Zoe controls both hands
    await bet(a, "player", 10)
    await a.wait_for(is_event("betting_closed"))
    await a.stand()  # the bets stay in play
    with pytest.raises(CommandError) as refused:
        await b.sit("t2", 1)
    assert refused.value.code == "coins_in_play"
    assert refused.value.details == {"table_id": "t1"}
    assert uid not in table_coins(live, "t2")
    # Once the round at t1 settles in the ledger, t2 seats the user on the settled balance.
    await zoe.wait_for(squeezing("player"))
    await zoe.open("player")
    await zoe.wait_for(squeezing("banker"))
    await zoe.open("banker")
    await zoe.wait_for(is_event("round_settled"))
    await b.sit("t2", 1)
    assert table_coins(live, "t2")[uid] == live.store.balance(uid) == 100_990
    for c in (dealer, zoe, a, b):
        await c.close()


@live_test(rooms=HELD)
async def test_a_payout_the_ledger_refuses_is_announced_as_a_void_never_as_a_settlement(
    live: Live,
) -> None:
    _deal_first(live, "t1", PLAYER_NATURAL)
    dealer = await live.client("xavier", 40_000, record=True)
    yara = await live.client("yara", 100_000, record=True)
    await yara.sit("t1", 1)
    await dealer.sit("t1", 0)
    await yara.wait_for(is_event("betting_opened"))
    await bet(yara, "player", 50)
    closed = await yara.wait_for(is_event("betting_closed"))
    round_id = closed["data"]["round_id"]
    # An operator takes the dealer's coins while the round is dealt: the table cannot know.
    await asyncio.to_thread(live.store.grant, "xavier", -38_000, "taken back")
    await yara.wait_for(squeezing("player"))
    await yara.open("player")
    await yara.wait_for(squeezing("banker"))
    await yara.open("banker")
    voided = await yara.wait_for(is_event("round_voided"))
    assert voided["data"]["round_id"] == round_id
    await yara.ping()  # every event of that step has arrived
    settled = [
        f
        for c in (dealer, yara)
        for f in c.frames
        if is_event("round_settled")(f) and f["data"]["round_id"] == round_id
    ]
    assert settled == []
    record = live.store.get_round(round_id)
    assert (record.status, record.void_reason) == ("voided", "settlement_refused")
    scraped = await scrape(live.server)
    assert scraped.value("baccarat_rounds_voided_total", reason="settlement_refused") == 1
    # A refused payout is a bug: the audit says so.
    report = live.store.audit()
    assert f"round {round_id} at table t1 was voided: settlement_refused" in report.problems
    # The stake went back and the table holds what the ledger holds.
    assert live.store.balance(yara.user_id) == 100_000
    coins = table_coins(live, "t1")
    assert coins == ledger_coins(live, list(coins))
    for c in (dealer, yara):
        await c.close()


SLOW_BETTING: dict[str, Any] = {**HELD, "timers": {**HELD["timers"], "betting": 40.0}}
"""Four seconds to bet: room for an operator's grant between the last chip and the close."""


@live_test(rooms=SLOW_BETTING)
async def test_stakes_the_ledger_refuses_void_the_round_and_the_audit_reports_it(
    live: Live,
) -> None:
    dealer = await live.client("dealer", 1_000_000, record=True)
    alice_user, token = await live.user("alice", 10_000)
    alice = await Client.connect(live.base, token)
    auto_open(alice)
    await alice.sit("t1", 1)
    await dealer.sit("t1", 0)
    opened = await alice.wait_for(is_event("betting_opened"))
    round_id = opened["data"]["round_id"]
    await bet(alice, "player", 20)
    # An operator takes coins while betting is open: the ledger no longer holds the stake.
    await asyncio.to_thread(live.store.grant, "alice", -9_500, "outside change")
    voided = await dealer.wait_for(is_event("round_voided"))
    assert voided["data"]["round_id"] == round_id
    # The round plays out; at its end the table takes the ledger's balances back, and no
    # settlement of the voided round is ever announced.
    coins_set = await dealer.wait_for(is_event("coins_set"))
    assert coins_set["data"]["coins"] in (500, 1_000_000)
    assert not [
        f
        for f in dealer.frames
        if is_event("round_settled")(f) and f["data"]["round_id"] == round_id
    ]
    assert live.store.balance(alice_user.user_id) == 500
    assert live.store.balance(dealer.user_id) == 1_000_000
    coins = table_coins(live, "t1")
    assert coins == ledger_coins(live, list(coins))
    record = live.store.get_round(round_id)
    assert (record.status, record.void_reason) == ("voided", "escrow_refused")
    scraped = await scrape(live.server)
    assert scraped.value("baccarat_rounds_voided_total", reason="escrow_refused") == 1
    assert live.store.audit().problems == [
        f"round {round_id} at table t1 was voided: escrow_refused"
    ]
    for c in (dealer, alice):
        await c.close()


@live_test(rooms=HELD)
async def test_an_outside_grant_reaches_the_table_when_the_next_round_opens(live: Live) -> None:
    _deal_first(live, "t1", PLAYER_NATURAL)
    dealer = await live.client("dealer", 1_000_000, record=True)
    yara = await live.client("yara", 100_000)
    await yara.sit("t1", 1)
    await dealer.sit("t1", 0)
    await yara.wait_for(is_event("betting_opened"))
    await bet(yara, "player", 1)
    await yara.wait_for(squeezing("player"))
    # The operator grants coins mid-round; the table knows nothing of it yet.
    await asyncio.to_thread(live.store.grant, "yara", 25_000, "a prize")
    assert table_coins(live, "t1")[yara.user_id] == 100_000 - 100
    await yara.open("player")
    await yara.wait_for(squeezing("banker"))
    await yara.open("banker")
    await yara.wait_for(is_event("round_settled"))
    # The next round opens with the ledger's balance, announced to every screen.
    await yara.wait_for(is_event("betting_opened"))
    changed = await dealer.wait_for(
        lambda m: is_event("coins_set")(m) and m["data"]["user_id"] == yara.user_id
    )
    assert changed["data"]["coins"] == live.store.balance(yara.user_id) == 125_099
    coins = table_coins(live, "t1")
    assert coins == ledger_coins(live, list(coins))
    for c in (dealer, yara):
        await c.close()

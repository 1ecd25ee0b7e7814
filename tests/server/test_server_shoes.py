"""The shoe archive over HTTP: anyone may page through a table's shoes and read a shoe's
rounds, and never sees a bet, a user or the seed of a shoe still in play."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import aiohttp
import pytest
import sqlalchemy as sa
from server_live import SLOW_SQUEEZE, Live, auto_open, is_event, live_test

from baccarat.cards import parse_cards
from baccarat.protocol import values
from baccarat.rules import deal
from baccarat.settlement import settle
from baccarat.shoe import commitment, shuffled_cards
from baccarat.store import BetRecord
from baccarat.store import schema as s

SEEDS = {name: bytes([i]) * 32 for i, name in enumerate(("old", "mid", "tie", "new", "t2"), 1)}
SHOE_KEYS = {
    "shoe_id",
    "commitment",
    "seed",
    "started_at",
    "ended_at",
    "rounds",
    "end_reason",
    "log_index",
}
ROUND_KEYS = {
    "round_id",
    "round_no",
    "status",
    "cards",
    "winner",
    "time",
    "closed_at",
    "first_card",
}


async def get(live: Live, path: str, **query: str) -> tuple[int, Any, str]:
    """GET without a session: the status, the JSON body and its text."""
    async with aiohttp.ClientSession() as session, session.get(live.base + path, params=query) as r:
        text = await r.text()
        return r.status, json.loads(text), text


def start_shoe(live: Live, shoe_id: str, table_id: str, started_at: float) -> None:
    live.store.record_shoe_start(shoe_id, table_id, commitment(SEEDS[shoe_id]))
    with live.store.engine.begin() as conn:
        conn.execute(
            sa.update(s.shoes).where(s.shoes.c.id == shoe_id).values(started_at=started_at)
        )


def play(live: Live, shoe_id: str, table_id: str, bettor: int, dealer: int, rounds: int) -> None:
    """Settle ``rounds`` rounds of the shoe, dealt from its seed's order, as the table would."""
    order = [str(c) for c in shuffled_cards(SEEDS[shoe_id])]
    for no in range(1, rounds + 1):
        rid = f"{shoe_id}-r{no}"
        bets = [BetRecord(bettor, "player", 3, 300, time.time())]
        epoch = live.store.epoch_of(table_id)
        live.store.escrow_round(rid, table_id, shoe_id, no, dealer, bets, epoch=epoch)
        it = iter(parse_cards(order))
        outcome = deal(it.__next__)
        result = settle(outcome, dealer, {bettor: {"player": 300}})
        cards = order[: len(outcome.player) + len(outcome.banker)]
        live.store.settle_round(
            rid,
            cards,
            values.outcome(outcome),
            result.deltas,
            result.commission,
            result.house,
            epoch=epoch,
        )
        order = order[len(cards) :]


async def archive_pages_and_rounds(live: Live) -> None:
    dealer, _ = await live.user("Dealer_Mei", 1_000_000)
    alice, _ = await live.user("alice_bettor")
    start_shoe(live, "old", "t1", 1000.0)
    start_shoe(live, "mid", "t1", 2000.0)
    start_shoe(live, "tie", "t1", 2000.0)
    start_shoe(live, "new", "t1", 3000.0)
    start_shoe(live, "t2", "t2", 4000.0)
    play(live, "old", "t1", alice.user_id, dealer.user_id, 3)
    play(live, "mid", "t1", alice.user_id, dealer.user_id, 2)
    play(live, "new", "t1", alice.user_id, dealer.user_id, 1)
    live.store.record_shoe_end("old", SEEDS["old"].hex())
    live.store.record_shoe_end("mid", SEEDS["mid"].hex())

    status, first, _ = await get(live, "/api/shoes", table="t1", limit="3")
    assert status == 200 and set(first) == {"table_id", "shoes", "next"}
    assert first["table_id"] == "t1"
    assert [(x["shoe_id"], x["rounds"]) for x in first["shoes"]] == [
        ("new", 1),
        ("tie", 0),
        ("mid", 2),
    ]
    assert all(set(x) == SHOE_KEYS for x in first["shoes"])
    new, mid = first["shoes"][0], first["shoes"][2]
    # A shoe in play keeps its seed; an ended one shows the seed it committed to.
    assert new == {
        "shoe_id": "new",
        "commitment": commitment(SEEDS["new"]),
        "seed": None,
        "started_at": 3000.0,
        "ended_at": None,
        "rounds": 1,
        "end_reason": None,
        "log_index": None,
    }
    assert mid["seed"] == SEEDS["mid"].hex() and mid["ended_at"] >= mid["started_at"]
    assert hashlib.sha256(bytes.fromhex(mid["seed"])).hexdigest() == mid["commitment"]
    assert first["next"] == "2000.0:mid"
    status, second, _ = await get(live, "/api/shoes", table="t1", limit="3", before=first["next"])
    assert status == 200 and [x["shoe_id"] for x in second["shoes"]] == ["old"]
    assert second["shoes"][0]["rounds"] == 3 and second["next"] is None
    # The default page holds them all; another table's shoes are its own.
    status, whole, _ = await get(live, "/api/shoes", table="t1")
    assert [x["shoe_id"] for x in whole["shoes"]] == ["new", "tie", "mid", "old"]
    assert whole["next"] is None
    status, other, _ = await get(live, "/api/shoes", table="t2")
    assert status == 200 and [x["shoe_id"] for x in other["shoes"]] == ["t2"]

    status, shoe, _ = await get(live, "/api/shoes/old")
    assert status == 200 and set(shoe) == SHOE_KEYS | {"table_id"}
    assert (shoe["shoe_id"], shoe["table_id"]) == ("old", "t1")
    assert shoe["seed"] == SEEDS["old"].hex() and shoe["commitment"] == commitment(SEEDS["old"])
    assert [r["round_no"] for r in shoe["rounds"]] == [1, 2, 3]
    order = [str(c) for c in shuffled_cards(SEEDS["old"])]
    at = 0
    for r in shoe["rounds"]:
        assert set(r) == ROUND_KEYS and r["status"] == "settled"
        stored = live.store.get_round(r["round_id"])
        assert stored.outcome is not None
        assert r == {
            "round_id": f"old-r{r['round_no']}",
            "round_no": r["round_no"],
            "status": "settled",
            "cards": order[at : at + len(r["cards"])],
            "winner": stored.outcome["winner"],
            "time": stored.escrowed_at,
            "closed_at": stored.closed_at,
            "first_card": None,
        }
        at += len(r["cards"])
    assert at >= 12
    status, running, _ = await get(live, "/api/shoes/new")
    assert status == 200 and running["seed"] is None and running["ended_at"] is None
    assert [r["round_id"] for r in running["rounds"]] == ["new-r1"]
    status, empty, _ = await get(live, "/api/shoes/tie")
    assert status == 200 and empty["rounds"] == [] and empty["seed"] is None
    # Nobody's bets, ids or names: not the bettor's, not the dealer's.
    for body in (first, second, whole, other, shoe, running, empty):
        dumped = json.dumps(body).lower()
        for needle in ("alice", "dealer", "bets", "stake", "coins", "user", "name", "delta"):
            assert needle not in dumped, needle


@live_test()
async def test_the_archive_pages_a_tables_shoes_and_shows_a_shoes_rounds(live: Live) -> None:
    await archive_pages_and_rounds(live)


@pytest.mark.postgres
@live_test(postgres=True)
async def test_the_archive_pages_a_tables_shoes_and_shows_a_shoes_rounds_on_postgresql(
    live: Live,
) -> None:
    await archive_pages_and_rounds(live)


async def refusals(live: Live) -> None:
    start_shoe(live, "old", "t1", 1000.0)
    for query, status, code in (
        ({}, 400, "bad_table"),
        ({"table": ""}, 400, "bad_table"),
        ({"table": "t9"}, 404, "unknown_table"),
        ({"table": "t1\x00"}, 404, "unknown_table"),
        ({"table": "t1", "limit": "0"}, 400, "bad_limit"),
        ({"table": "t1", "limit": "101"}, 400, "bad_limit"),
        ({"table": "t1", "limit": "abc"}, 400, "bad_limit"),
        ({"table": "t1", "limit": "-1"}, 400, "bad_limit"),
        ({"table": "t1", "before": "nonsense"}, 400, "bad_cursor"),
        ({"table": "t1", "before": "nan:old"}, 400, "bad_cursor"),
        ({"table": "t1", "before": "inf:old"}, 400, "bad_cursor"),
        ({"table": "t1", "before": "1000.0:"}, 400, "bad_cursor"),
        ({"table": "t1", "before": "1000.0:a\x00"}, 400, "bad_cursor"),
        ({"table": "t1", "before": "1000.0:" + "x" * 65}, 400, "bad_cursor"),
    ):
        got, body, _ = await get(live, "/api/shoes", **query)
        assert (got, set(body), set(body["error"])) == (status, {"error"}, {"code", "message"})
        assert body["error"]["code"] == code, query
    got, body, _ = await get(live, "/api/shoes", table="t1", limit="100")
    assert got == 200 and [x["shoe_id"] for x in body["shoes"]] == ["old"]
    for path in ("/api/shoes/nope", "/api/shoes/" + "x" * 65, "/api/shoes/a%00b"):
        got, body, _ = await get(live, path)
        assert (got, body["error"]["code"]) == (404, "unknown_shoe"), path


@live_test()
async def test_the_archive_refuses_a_missing_or_unknown_table_and_bad_paging(live: Live) -> None:
    await refusals(live)


@pytest.mark.postgres
@live_test(postgres=True)
async def test_the_archive_refuses_bad_input_on_postgresql(live: Live) -> None:
    await refusals(live)


@live_test(rooms=SLOW_SQUEEZE)
async def test_a_played_shoes_cards_are_the_order_its_seed_gives(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    alice = await live.client("alice")
    auto_open(alice)
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    for _ in range(2):
        await alice.wait_for(is_event("betting_opened"), 20)
        await alice.bet("banker", 2)
        await alice.wait_for(is_event("round_settled"), 30)
    # Alice stops opening her cards: the next round holds in its squeeze (for a minute).
    alice.on_message = None
    await alice.wait_for(is_event("betting_opened"), 20)
    await alice.bet("banker", 2)
    held = await alice.wait_for(is_event("squeeze_started"), 20)
    table = live.server.drivers["t1"].table
    assert table.shoe is not None and table.shoe.seed is not None
    seed, shoe_id = table.shoe.seed, table.shoe_id
    assert shoe_id is not None

    _, shoe, _ = await get(live, f"/api/shoes/{shoe_id}")
    assert shoe["seed"] is None and shoe["commitment"] == commitment(seed)
    *settled, last = shoe["rounds"]
    # A first round may have been dealt before Alice sat down: two or three settled rounds.
    assert [r["round_no"] for r in shoe["rounds"]] == list(range(1, len(settled) + 2))
    assert len(settled) in (2, 3) and all(r["status"] == "settled" for r in settled)
    assert (last["round_id"], last["status"]) == (held["data"]["round_id"], "escrowed")
    assert (last["cards"], last["winner"], last["closed_at"]) == (None, None, None)
    status, listed, _ = await get(live, "/api/shoes", table="t1")
    assert status == 200 and [x["shoe_id"] for x in listed["shoes"]] == [shoe_id]
    assert listed["shoes"][0]["rounds"] == len(settled) and listed["shoes"][0]["seed"] is None

    # The shoe ends (through the store, as the table would): its seed gives every card.
    live.store.record_shoe_end(shoe_id, seed.hex())
    _, shoe, text = await get(live, f"/api/shoes/{shoe_id}")
    assert shoe["seed"] == seed.hex()
    assert hashlib.sha256(bytes.fromhex(shoe["seed"])).hexdigest() == shoe["commitment"]
    dealt = [c for r in shoe["rounds"] if r["cards"] is not None for c in r["cards"]]
    assert len(dealt) >= 8 and dealt == [str(c) for c in shuffled_cards(seed)][: len(dealt)]
    assert all(r["winner"] in ("player", "banker", "tie") for r in shoe["rounds"][:-1])
    assert "alice" not in text and "dealer" not in text.lower() and "bets" not in text
    await alice.close()
    await dealer.close()

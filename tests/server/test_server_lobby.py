"""The lobby: pages of tables, changes merged into one delta a second, nothing unasked."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest
from server_live import ROOMS, Live, live_test

from baccarat.client import Client, CommandError
from baccarat.protocol.requests import Watch
from baccarat.server.tables.lobby import PAGE_SIZE, TICK

A_TABLES = [f"a{i}" for i in range(1, 31)]
B_TABLES = [f"b{i}" for i in range(1, 6)]
MANY: dict[str, Any] = {
    **ROOMS,
    "rooms": [
        {**ROOMS["rooms"][0], "id": "a", "name": "A", "tables": A_TABLES},
        {**ROOMS["rooms"][0], "id": "b", "name": "B", "tables": B_TABLES},
    ],
}


def _lobby_frames(client: Client, start: int) -> list[dict[str, Any]]:
    """The lobby messages ``client`` received after its first ``start`` frames."""
    return [f for f in client.frames[start:] if str(f.get("type", "")).startswith("lobby")]


async def _page(client: Client, **view: Any) -> dict[str, Any]:
    seen = len(client.frames)
    await client.lobby_subscribe(**view)
    for _ in range(200):
        pages = [f for f in client.frames[seen:] if f.get("type") == "lobby"]
        if pages:
            return pages[0]
        await asyncio.sleep(0.01)
    raise AssertionError("no lobby page came")


@live_test(rooms=MANY)
async def test_a_subscriber_gets_one_page_of_one_room_or_of_all(live: Live) -> None:
    sam = await live.client("sam", record=True)
    first = await _page(sam)
    assert [t["table_id"] for t in first["tables"]] == A_TABLES[:PAGE_SIZE]
    assert (first["page"], first["pages"], first["total"], first["room"]) == (0, 2, 35, None)
    second = await _page(sam, page=1)
    assert [t["table_id"] for t in second["tables"]] == A_TABLES[PAGE_SIZE:] + B_TABLES
    room = await _page(sam, room="b")
    assert [t["table_id"] for t in room["tables"]] == B_TABLES
    assert (room["pages"], room["total"], room["room"]) == (1, 5, "b")
    beyond = await _page(sam, room="b", page=3)
    assert beyond["tables"] == []
    await sam.close()


@live_test(rooms=MANY)
async def test_changes_come_as_deltas_of_the_subscribers_page_at_most_once_a_tick(
    live: Live,
) -> None:
    sam = await live.client("sam", record=True)
    await _page(sam, room="b")
    alice = await live.client("alice")
    bob = await live.client("bob")
    carol = await live.client("carol")
    start = len(sam.frames)
    await bob.sit("a1", 2)  # not on sam's page
    await alice.sit("b2", 5)
    for table_id in ("b3", "b4", "b3", "b4", "b3"):  # five watcher changes in a burst
        await carol.send(Watch(table_id))
    await asyncio.sleep(3.2 * TICK)
    updates = _lobby_frames(sam, start)
    assert updates and all(f["type"] == "lobby.update" for f in updates)
    # The burst went out merged: at most one update per tick passed.
    assert len(updates) <= 4
    changes: dict[str, dict[str, Any]] = {}
    for update in updates:
        for change in update["tables"]:
            changes.setdefault(change["table_id"], {}).update(change)
    assert set(changes) <= set(B_TABLES)
    assert changes["b2"]["taken"] == 1 and changes["b2"]["seats"][5]["user_id"] == alice.user_id
    assert changes["b3"]["watchers"] == 1
    assert "name" not in changes["b2"] and "room_id" not in changes["b2"]
    for client in (sam, alice, bob, carol):
        await client.close()


@live_test(rooms=MANY)
async def test_a_client_that_left_the_lobby_gets_no_lobby_traffic(live: Live) -> None:
    sam = await live.client("sam", record=True)
    await _page(sam)
    await sam.lobby_unsubscribe()
    await sam.send(Watch("a1"))
    start = len(sam.frames)
    alice = await live.client("alice")
    await alice.sit("a1", 1)
    await asyncio.sleep(2.5 * TICK)
    assert len(sam.frames) > start  # the table's events did come
    assert _lobby_frames(sam, start) == []
    await sam.close()
    await alice.close()


@live_test(rooms=MANY)
async def test_a_page_of_an_unknown_room_or_a_bad_page_is_refused(live: Live) -> None:
    sam = await live.client("sam")
    with pytest.raises(CommandError) as err:
        await sam.lobby_subscribe(room="nope")
    assert err.value.code == "unknown_room"
    with pytest.raises(CommandError) as err:
        await sam.lobby_subscribe(page=-1)
    assert err.value.code == "bad_message"
    await sam.close()
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{live.base}/api/lobby?room=b") as resp:
            body = await resp.json()
            assert [t["table_id"] for t in body["tables"]] == B_TABLES
        async with http.get(f"{live.base}/api/lobby") as resp:
            assert len((await resp.json())["tables"]) == 35
        async with http.get(f"{live.base}/api/lobby?page=x") as resp:
            assert resp.status == 400
        async with http.get(f"{live.base}/api/lobby?room=zzz") as resp:
            assert resp.status == 404
            assert (await resp.json())["error"]["code"] == "unknown_room"


async def _heard(
    live: Live, table_id: str, room: str, patterns: list[str], watchers: int = 0
) -> None:
    """A lobby line published by another node of the server's directory."""
    directory = live.server.node.directory
    assert await directory.acquire(table_id, "other", 600.0) is not None
    line = {
        "table_id": table_id,
        "room_id": room,
        "name": table_id,
        "seats": [None] * 8,
        "taken": 0,
        "watchers": watchers,
        "phase": "betting",
        "good_roads": [{"pattern": p, "length": 5} for p in patterns],
    }
    rank = live.server.lobby.rank(table_id)
    assert await directory.publish("other", line, 600.0, rank=rank)


async def _next_lobby(client: Client, start: int) -> dict[str, Any]:
    for _ in range(int(4 * TICK / 0.01)):
        frames = _lobby_frames(client, start)
        if frames:
            return frames[0]
        await asyncio.sleep(0.01)
    raise AssertionError("no lobby message came")


@live_test(rooms=MANY)
async def test_a_good_road_filter_keeps_the_tables_where_that_road_holds_now(live: Live) -> None:
    await _heard(live, "x1", "b", ["long_banker"])
    await _heard(live, "x2", "b", ["ping_pong"])
    sam = await live.client("sam", record=True)
    page = await _page(sam, room="b", road="long_banker")
    assert [t["table_id"] for t in page["tables"]] == ["x1"]
    assert (page["total"], page["road"]) == (1, "long_banker")
    anyone = await live.client("anyone", record=True)
    page = await _page(anyone, road="any")
    assert [t["table_id"] for t in page["tables"]] == ["x1", "x2"]

    # The road breaks at x1: sam's page goes again whole, now empty.
    start = len(sam.frames)
    await _heard(live, "x1", "b", [])
    message = await _next_lobby(sam, start)
    assert message["type"] == "lobby" and message["tables"] == []
    # It holds at x2 now: x2 comes in.
    start = len(sam.frames)
    await _heard(live, "x2", "b", ["long_banker", "ping_pong"])
    message = await _next_lobby(sam, start)
    assert [t["table_id"] for t in message["tables"]] == ["x2"]
    # A change at a table on the filtered page comes as a delta; one off the page does not.
    start = len(sam.frames)
    await _heard(live, "x1", "b", [], watchers=3)
    await _heard(live, "x2", "b", ["long_banker", "ping_pong"], watchers=2)
    message = await _next_lobby(sam, start)
    assert message == {"type": "lobby.update", "tables": [{"table_id": "x2", "watchers": 2}]}
    await asyncio.sleep(1.5 * TICK)
    assert all(
        change["table_id"] == "x2" for f in _lobby_frames(sam, start) for change in f["tables"]
    )
    for client in (sam, anyone):
        await client.close()


@live_test(rooms=MANY)
async def test_an_unknown_good_road_is_refused(live: Live) -> None:
    await _heard(live, "x1", "a", ["double_jump"])
    sam = await live.client("sam")
    with pytest.raises(CommandError) as err:
        await sam.lobby_subscribe(road="dragon")
    assert err.value.code == "bad_message" and "long_banker" in err.value.message
    await sam.close()
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{live.base}/api/lobby?road=double_jump") as resp:
            assert [t["table_id"] for t in (await resp.json())["tables"]] == ["x1"]
        async with http.get(f"{live.base}/api/lobby?road=dragon") as resp:
            assert resp.status == 400
            assert (await resp.json())["error"]["code"] == "bad_message"


NAMED: dict[str, Any] = {
    **ROOMS,
    "rooms": [
        {
            **ROOMS["rooms"][0],
            "id": "a",
            "name": {"zh-TW": "一般區", "en": "Standard"},
            "tables": [{"id": "a1", "name": {"zh-TW": "龍桌", "en": "Dragon"}}, "a2"],
        }
    ],
}


@live_test(rooms=NAMED)
async def test_rooms_and_tables_come_with_their_names_in_each_language(live: Live) -> None:
    sam = await live.client("sam", record=True)
    page = await _page(sam)
    (room,) = page["rooms"]
    assert (room["name"], room["names"]) == ("Standard", {"zh-TW": "一般區", "en": "Standard"})
    names = {t["table_id"]: (t["name"], t["names"]) for t in page["tables"]}
    assert names == {
        "a1": ("Dragon", {"zh-TW": "龍桌", "en": "Dragon"}),
        "a2": ("Standard 2", {"zh-TW": "一般區 2", "en": "Standard 2"}),
    }
    await sam.close()


class CountedWaits(asyncio.Event):
    """An event that counts how often it is waited on."""

    waits = 0

    async def wait(self) -> bool:
        self.waits += 1
        return await super().wait()


@live_test(lease_ttl=0.3)
async def test_a_server_alone_publishes_its_lines_only_when_they_change(live: Live) -> None:
    # Nothing in a system of one runs out, so nothing is refreshed: the publishing task
    # sleeps until a line changes instead of waking for refreshes (or spinning), however
    # short the ttl.
    node = live.server.node
    assert not node.directory.expires
    counted, woken = CountedWaits(), node.outbox._wake
    node.outbox._wake = counted
    woken.set()  # the task wakes once and then waits on the counted event
    await asyncio.sleep(TICK * 1.5)
    assert 1 <= counted.waits <= 3
    client = await live.client("lines")
    await client.sit("t1", 1)

    def published() -> dict[str, Any]:
        return dict(node.directory._lines["t1"].summary)  # type: ignore[attr-defined]

    async with asyncio.timeout(10):
        # The lobby's tick hands the changed line over; the task publishes it.
        while published()["seats"][1] is None:
            await asyncio.sleep(0.05)
    assert published()["seats"][1]["name"] == "lines"
    assert 2 <= counted.waits <= 6
    await client.close()


@live_test()
async def test_a_tables_line_carries_the_commitment_of_its_running_shoe(live: Live) -> None:
    dealer = await live.client("dee", coins=1_000_000, record=True)
    bettor = await live.client("bet", record=True)
    before = await _page(bettor)
    assert {t["table_id"]: t["commitment"] for t in before["tables"]} == {"t1": None, "t2": None}
    await dealer.sit("t1", 0)
    await bettor.sit("t1", 1)
    # The shoe the table shows its players is the one the lobby names.
    for _ in range(200):
        snaps = [f for f in bettor.frames if f.get("type") == "snapshot" and f["view"]["shoe"]]
        if snaps:
            break
        await asyncio.sleep(0.01)
    commitment = snaps[-1]["view"]["shoe"]["commitment"]
    assert len(commitment) == 64
    page = await _page(bettor)
    lines = {t["table_id"]: t["commitment"] for t in page["tables"]}
    assert lines == {"t1": commitment, "t2": None}
    for client in (dealer, bettor):
        await client.close()

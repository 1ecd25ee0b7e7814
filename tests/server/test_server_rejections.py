"""Every refused command is answered with its code and changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from server_live import SLOW_SQUEEZE, Live, is_event, live_test

from baccarat.client import Client, CommandError
from baccarat.protocol.requests import Resync, Watch
from schemas import SERVER

VOLATILE = ("remaining_ms", "deadline", "me", "squeeze")


def _stable(view: dict[str, Any]) -> dict[str, Any]:
    """A view without the fields that move with the clock."""
    return {k: v for k, v in view.items() if k not in VOLATILE}


async def _answer(client: Client, text: str) -> dict[str, Any]:
    await client.send_text(text)
    return await client.wait_for(lambda m: m.get("type") == "error", 10)


@live_test()
async def test_malformed_messages_are_answered_with_their_code(live: Live) -> None:
    alice = await live.client("alice")
    assert (await _answer(alice, "{not json"))["code"] == "bad_message"
    assert (await _answer(alice, json.dumps({"type": "fly", "id": 9})))["code"] == (
        "unknown_command"
    )
    bad = await _answer(alice, json.dumps({"type": "bet", "id": 10, "area": "house", "chip": 1}))
    assert (bad["code"], bad["id"]) == ("bad_message", 10)
    # A user id in a message is refused, not trusted.
    forged = await _answer(
        alice, json.dumps({"type": "sit", "id": 11, "table_id": "t1", "seat": 1, "user_id": 1})
    )
    assert forged["code"] == "bad_message"
    # The connection still works afterwards.
    assert (await alice.ping())["type"] == "ack"
    await alice.close()


@live_test(rooms=SLOW_SQUEEZE)
async def test_a_command_out_of_phase_is_refused_and_nothing_changes(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    alice = await live.client("alice")
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    await alice.wait_for(is_event("betting_opened"), 10)
    await alice.bet("player", 1)
    # Alice controls the Player card and does not open it: the squeeze holds still.
    await alice.wait_for(is_event("squeeze_started"), 10)
    before = _stable(await dealer.resync())
    assert before["phase"] == "squeeze"
    with pytest.raises(CommandError) as err:
        await alice.bet("player", 1)
    assert err.value.code == "betting_closed"
    with pytest.raises(CommandError) as err:
        await alice.clear()
    assert err.value.code == "betting_closed"
    with pytest.raises(CommandError) as err:
        await dealer.bet("player", 1)
    assert err.value.code in ("betting_closed", "dealer_cannot_bet")
    with pytest.raises(CommandError) as err:
        await dealer.open("player")
    assert err.value.code == "not_controller"
    assert _stable(await dealer.resync()) == before
    await dealer.close()
    await alice.close()


@live_test()
async def test_nobody_can_act_on_a_seat_that_is_not_theirs(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    alice = await live.client("alice")
    bob = await live.client("bob")
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    view = await alice.resync()
    before = [None if o is None else o["user_id"] for o in view["seats"]]
    with pytest.raises(CommandError) as err:
        await bob.sit("t1", 1)
    assert err.value.code == "seat_taken"
    with pytest.raises(CommandError) as err:
        await bob.stand()
    assert err.value.code == "not_seated"
    with pytest.raises(CommandError) as err:
        await bob.bet("banker", 1)
    assert err.value.code == "not_seated"
    with pytest.raises(CommandError) as err:
        await alice.urge()
    assert err.value.code in ("not_dealer", "dealer_only")
    after = await alice.resync()
    assert [None if o is None else o["user_id"] for o in after["seats"]] == before
    for c in (dealer, alice, bob):
        await c.close()


@live_test()
async def test_one_seat_in_the_whole_system(live: Live) -> None:
    alice = await live.client("alice")
    await alice.sit("t1", 3)
    with pytest.raises(CommandError) as err:
        await alice.sit("t2", 3)
    assert err.value.code == "already_seated_elsewhere"
    spectator = await live.client("sam")
    view = await spectator.watch("t2")
    assert all(s is None for s in view["seats"])
    with pytest.raises(CommandError) as err:
        await alice.send(Watch("nowhere"))
    assert err.value.code == "unknown_table"
    await alice.stand()
    await alice.sit("t2", 3)
    await alice.close()
    await spectator.close()


@live_test()
async def test_the_lobby_lists_rooms_and_follows_the_tables(live: Live) -> None:
    watcher = await live.client("sam")
    await watcher.lobby_subscribe()
    lobby = await watcher.wait_for(lambda m: m.get("type") == "lobby", 10)
    assert [r["room_id"] for r in lobby["rooms"]] == ["standard"]
    assert lobby["rooms"][0]["chip_unit"] == 100
    assert {t["table_id"] for t in lobby["tables"]} == {"t1", "t2"}
    alice = await live.client("alice")
    await alice.sit("t2", 5)
    update = await watcher.wait_for(
        lambda m: (
            m.get("type") == "lobby.update"
            and any(t["table_id"] == "t2" and "taken" in t for t in m["tables"])
        ),
        10,
    )
    (change,) = [t for t in update["tables"] if t["table_id"] == "t2"]
    assert change["taken"] == 1
    assert change["seats"][5]["user_id"] == alice.user_id
    # A change carries the fields that changed, not the whole line.
    assert "name" not in change and "room_id" not in change
    await alice.close()
    await watcher.close()


@live_test()
async def test_a_user_below_the_rooms_level_may_not_even_watch(live: Live) -> None:
    _, token = await live.user("novice", level=49)
    novice = await Client.connect(live.base, token)
    with pytest.raises(CommandError) as err:
        await novice.watch("t1")
    assert err.value.code == "level_too_low"
    assert novice.view is None
    lines = {t["table_id"]: t for t in (await live.server.lobby.message())["tables"]}
    assert lines["t1"]["watchers"] == 0
    # One level more and the same command works.
    live.store.set_level("novice", 50)
    view = await novice.watch("t1")
    assert view["table_id"] == "t1"
    await novice.close()


@live_test()
async def test_level_and_floor_refusals_carry_the_figures_a_screen_shows(live: Live) -> None:
    # A screen says "Level 50 needed" and "This seat needs 35,000 coins; you have 20,000"
    # in its own language from these fields, not from the English sentence.
    _, token = await live.user("novice", level=49)
    novice = await Client.connect(live.base, token, record=True)
    with pytest.raises(CommandError) as err:
        await novice.sit("t1", 0)
    assert (err.value.code, err.value.details) == ("level_too_low", {"min_level": 50})
    poor = await live.client("poor", 20_000, record=True)
    with pytest.raises(CommandError) as err:
        await poor.sit("t1", 0)
    assert err.value.code == "coins_below_floor"
    assert err.value.details == {"floor": 35_000, "coins": 20_000}
    for frame in [f for c in (novice, poor) for f in c.frames if f.get("type") == "error"]:
        SERVER.validate(frame)
    await novice.close()
    await poor.close()


@live_test()
async def test_resync_without_a_table_is_refused(live: Live) -> None:
    alice = await live.client("alice")
    with pytest.raises(CommandError) as err:
        await alice.send(Resync())
    assert err.value.code == "not_watching"
    await alice.close()


@live_test()
async def test_a_refusal_carries_the_details_of_the_rule_it_broke(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000, record=True)
    alice = await live.client("alice", record=True)
    bob = await live.client("bob", record=True)
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    with pytest.raises(CommandError) as err:
        await bob.sit("t1", 1)
    assert (err.value.code, err.value.details) == ("seat_taken", {"seat": 1})
    await alice.wait_for(is_event("betting_opened"), 10)
    for _ in range(5):
        await alice.bet("tie", 2)
    with pytest.raises(CommandError) as err:
        await alice.bet("tie", 1)
    assert err.value.code == "over_limit"
    assert err.value.details == {"area": "tie", "limit": 10}
    # A malformed message's id is its answer's id, not a detail; no rule means no details.
    await alice.send_text(json.dumps({"type": "bet", "id": "x1", "area": "house", "chip": 1}))
    bad = await alice.wait_for(lambda m: m.get("type") == "error", 10)
    assert bad["id"] == "x1" and "details" not in bad
    with pytest.raises(CommandError) as err:
        await bob.stand()
    assert err.value.details == {}
    errors = [f for c in (alice, bob) for f in c.frames if f.get("type") == "error"]
    assert len(errors) >= 4
    for frame in errors:
        SERVER.validate(frame)
    for c in (dealer, alice, bob):
        await c.close()

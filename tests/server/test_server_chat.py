"""Chat over real sockets: seated users speak, spectators read, the snapshot keeps the last."""

from __future__ import annotations

import json

import pytest
from server_live import Live, is_event, live_test

from baccarat.client import Client, CommandError


async def _answer(client: Client, text: str) -> dict[str, object]:
    await client.send_text(text)
    return await client.wait_for(lambda m: m.get("type") == "error", 10)


@live_test()
async def test_seated_users_chat_and_spectators_read(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    alice = await live.client("alice")
    watcher = await live.client("watcher")
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    await watcher.watch("t1")
    await alice.say("  莊 連 五 把！ ")
    said = await watcher.wait_for(is_event("chat"), 10)
    assert said["data"] == {
        "id": 1,
        "user_id": alice.user_id,
        "name": "alice",
        "seat": 1,
        "text": "莊 連 五 把！",
        "emote": None,
    }
    await dealer.emote("clap")
    cheered = await watcher.wait_for(lambda m: is_event("chat")(m) and m["data"]["emote"], 10)
    assert cheered["data"]["user_id"] == dealer.user_id
    with pytest.raises(CommandError) as err:
        await watcher.say("hi")
    assert err.value.code == "not_seated"
    for text, code in (
        ("", "empty_message"),
        ("\u202e\u200b", "empty_message"),
        ("x" * 200, "message_too_long"),
    ):
        with pytest.raises(CommandError) as err:
            await alice.say(text)
        assert err.value.code == code
    bad = await _answer(alice, json.dumps({"type": "emote", "id": 5, "emote": "rocket"}))
    assert bad["code"] == "bad_message"
    # A newcomer's snapshot holds the last messages.
    late = await live.client("late")
    view = await late.watch("t1")
    assert [(m["user_id"], m["text"], m["emote"]) for m in view["chat"]] == [
        (alice.user_id, "莊 連 五 把！", None),
        (dealer.user_id, None, "clap"),
    ]
    for c in (dealer, alice, watcher, late):
        await c.close()

"""The load test's client models: what a controller sends when its squeeze starts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from baccarat.loadtest.accounts import Member
from baccarat.loadtest.clients import Client, Generator, TableBets
from baccarat.loadtest.stats import Tally


class Sent:
    """A socket that keeps what the client sends."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def send(self, kind: object, data: bytes) -> None:
        self.frames.append(json.loads(data))


async def _sent_after_squeeze_starts(model: str) -> list[str]:
    gen = Generator("http://127.0.0.1:9", model, Tally(), seed=1)
    member = Member("bettor", 7, "token", "bettor", 1)
    client = Client(gen, member, "t1", TableBets())
    socket = Sent()
    client.transport = socket  # type: ignore[assignment]
    client._event("squeeze_started", {"controller_user_id": 7, "hand": "player"})
    async with asyncio.timeout(5):
        while not socket.frames:
            await asyncio.sleep(0.01)
    # A browser's peel then goes on for 2 to 4 s (its moves a tenth of a second apart).
    await asyncio.sleep(0.3)
    client.closing = True
    return [f["type"] for f in socket.frames]


@pytest.mark.parametrize(("model", "first"), [("auto-open", "open"), ("browser", "squeeze")])
async def test_a_controller_opens_at_once_with_auto_open_and_peels_otherwise(
    model: str, first: str
) -> None:
    sent = await _sent_after_squeeze_starts(model)
    assert sent[0] == first
    assert sent == ["open"] if model == "auto-open" else "open" not in sent

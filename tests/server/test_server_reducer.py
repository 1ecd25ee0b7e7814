"""Over real sockets, clients keep the table's view from events alone: no snapshot after joining."""

from __future__ import annotations

import asyncio

from server_live import SLOW_SQUEEZE, Live, auto_open, is_event, live_test
from test_server_play import _play_rounds, _seat_table

from baccarat.client import Client


def _timeless(view: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in view.items() if k != "remaining_ms"}


async def _same_as_a_snapshot(clients: list[Client]) -> None:
    for c in clients:
        kept = c.view
        assert kept is not None
        fresh = await c.resync()
        assert _timeless(kept) == _timeless(fresh), c.hello["user"]["name"]


@live_test(rooms=SLOW_SQUEEZE)
async def test_clients_keep_the_view_from_events_without_snapshots(live: Live) -> None:
    dealer, bettors, spectator = await _seat_table(live)
    clients: list[Client] = [dealer, *bettors, spectator]
    for i, b in enumerate(bettors):
        auto_open(b, squeeze_steps=i + 1)
    joined = [c.snapshots for c in clients]
    assert joined == [1] * len(clients)
    await _play_rounds(live, bettors, 3)
    # The fourth round's first squeeze is left alone: the table holds still (a long squeeze).
    for b in bettors:
        b.on_message = None
    await bettors[0].wait_for(is_event("betting_opened"))
    for b, area in zip(bettors, ("player", "banker", "tie"), strict=True):
        await b.command("bet", area=area, chip=2)
    await bettors[0].wait_for(is_event("squeeze_started"))
    await asyncio.sleep(0.2)
    assert [c.snapshots for c in clients] == joined, "a snapshot after joining"
    assert [c.resyncs for c in clients] == [0] * len(clients), "a gap in seq"
    await _same_as_a_snapshot(clients)
    # Everyone stands up; the dealer leaves once the round is forced through.
    for c in [*bettors, dealer]:
        await c.command("stand")
    await bettors[0].wait_for(is_event("waiting"), 90)
    await asyncio.sleep(0.2)
    assert [c.snapshots for c in clients] == [n + 1 for n in joined]
    await _same_as_a_snapshot(clients)
    for c in clients:
        await c.close()

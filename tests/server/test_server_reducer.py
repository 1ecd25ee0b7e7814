"""Over real sockets, clients keep the table's view from events alone: no snapshot after joining."""

from __future__ import annotations

import asyncio
import copy

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
        await b.bet(area, 2)
    await bettors[0].wait_for(is_event("squeeze_started"))
    await asyncio.sleep(0.2)
    assert [c.snapshots for c in clients] == joined, "a snapshot after joining"
    assert [c.resyncs for c in clients] == [0] * len(clients), "a gap in seq"
    await _same_as_a_snapshot(clients)
    # Everyone stands up; the dealer leaves once the round is forced through.
    for c in [*bettors, dealer]:
        await c.stand()
    await bettors[0].wait_for(is_event("waiting"), 90)
    await asyncio.sleep(0.2)
    assert [c.snapshots for c in clients] == [n + 1 for n in joined]
    await _same_as_a_snapshot(clients)
    for c in clients:
        await c.close()


@live_test(rooms=SLOW_SQUEEZE)
async def test_the_dealer_adds_the_chips_to_the_book_and_is_sent_no_me_for_them(
    live: Live,
) -> None:
    # The first betting stands still: nothing but the chips changes the book.
    live.server.drivers["t1"].hold.at("betting")
    dealer, bettors, spectator = await _seat_table(live)
    await asyncio.gather(*(b.wait_for(is_event("betting_opened")) for b in bettors))
    dealer_from = len(dealer.frames)
    placer_from = len(bettors[0].frames)
    chips = (("player", 5), ("banker", 3), ("banker", 10), ("tie", 1))
    for b, (area, chip) in zip([*bettors, bettors[0]], chips, strict=True):
        await b.bet(area, chip)
    while sum(f.get("event") == "chip_placed" for f in dealer.frames[dealer_from:]) < 4:
        await dealer.wait_for(is_event("chip_placed"))
    got = [f["event"] for f in dealer.frames[dealer_from:] if f.get("type") == "event"]
    assert got == ["chip_placed"] * 4
    # The placer is still sent their own part after each chip.
    assert [f["event"] for f in bettors[0].frames[placer_from:] if f.get("type") == "event"].count(
        "me"
    ) == 2
    assert dealer.view is not None
    kept = copy.deepcopy(dealer.view["book"])
    assert kept["totals"]["player"] == {"chips": 5, "coins": 5 * 100}
    assert kept["totals"]["banker"] == {"chips": 13, "coins": 13 * 100}
    assert kept["exposure"] == {"if_player_wins": 800, "if_banker_wins": -800, "if_tie": 0}
    assert kept["per_seat"]["1"] == {"player": 5, "tie": 1}
    fresh = await dealer.resync()
    assert fresh["book"] == kept
    live.server.drivers["t1"].hold.at(None)
    for c in [dealer, *bettors, spectator]:
        await c.close()

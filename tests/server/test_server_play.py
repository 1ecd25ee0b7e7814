"""Live play over real sockets: rounds settle in the ledger, secrets stay secret."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from server_live import SLOW_SQUEEZE, Live, auto_open, is_event, live_test

from baccarat.client import Client
from schemas import SERVER

ROUNDS = 4


async def _seat_table(live: Live) -> tuple[Client, list[Client], Client]:
    dealer = await live.client("dealer", 1_000_000, record=True)
    bettors = [await live.client(n, 100_000, record=True) for n in ("alice", "bob", "carol")]
    spectator = await live.client("sam", 100_000, record=True)
    await spectator.watch("t1")
    # The dealer sits last, so every bettor sees the first betting open.
    for seat, b in enumerate(bettors, start=1):
        await b.sit("t1", seat)
    await dealer.sit("t1", 0)
    return dealer, bettors, spectator


async def _play_rounds(live: Live, bettors: list[Client], rounds: int) -> list[dict[str, Any]]:
    plans = [[("player", 5), ("tie", 1)], [("banker", 3), ("banker_pair", 1)], [("banker", 10)]]
    settled: list[dict[str, Any]] = []
    # The betting (0.8 s at this speed) stands still until every bet is in.
    hold = live.server.drivers["t1"].hold
    for _ in range(rounds):
        hold.at("betting")
        await asyncio.gather(*(b.wait_for(is_event("betting_opened")) for b in bettors))
        for b, plan in zip(bettors, plans, strict=True):
            for area, chip in plan:
                await b.bet(area, chip)
        hold.at(None)
        done = await asyncio.gather(*(b.wait_for(is_event("round_settled")) for b in bettors))
        assert len({m["data"]["round_id"] for m in done}) == 1
        settled.append(done[0]["data"])
    return settled


async def _rounds_settle_in_the_ledger(live: Live) -> None:
    dealer, bettors, spectator = await _seat_table(live)
    for i, b in enumerate(bettors):
        auto_open(b, squeeze_steps=i)
    users = {c.user_id: c for c in [dealer, *bettors]}
    start = {uid: live.store.balance(uid) for uid in users}
    house_start = live.store.house_balance()

    settled = await _play_rounds(live, bettors, ROUNDS)

    expected = dict(start)
    house = house_start
    for data in settled:
        s = data["settlement"]
        assert sum(s["deltas"].values()) + s["house"] == 0
        for uid, delta in s["deltas"].items():
            expected[int(uid)] += delta
        house += s["house"]
    assert {uid: live.store.balance(uid) for uid in users} == expected
    assert live.store.house_balance() == house
    report = live.store.audit()
    assert report.ok, report.problems
    assert report.rounds >= ROUNDS
    # The table's coins and the ledger agree once a round is over.
    view = await dealer.resync()
    table_coins = {s["user_id"]: s["coins"] for s in view["seats"] if s is not None}
    if view["phase"] != "betting" or view["round_no"] is None:
        assert table_coins == {uid: live.store.balance(uid) for uid in table_coins}
    for c in [dealer, *bettors, spectator]:
        await c.close()


@live_test()
async def test_rounds_settle_in_the_ledger_and_the_audit_is_clean(live: Live) -> None:
    await _rounds_settle_in_the_ledger(live)


@pytest.mark.postgres
@live_test(postgres=True)
async def test_rounds_settle_in_the_postgresql_ledger(live: Live) -> None:
    await _rounds_settle_in_the_ledger(live)


def _face_down_leaks(client: Client) -> list[Any]:
    """Every frame in which ``client`` learns a face-down card outside its squeeze."""
    leaks: list[Any] = []
    for frame in client.frames:
        if frame.get("type") == "event" and frame.get("private") and "card" in frame["data"]:
            leaks.append(frame)
        if frame.get("type") == "snapshot":
            view = frame["view"]
            squeeze = view.get("squeeze") or {}
            if view["phase"] in ("waiting", "betting") and any(view["hands"].values()):
                leaks.append(frame)
            for hand, cards in view["hands"].items():
                for pos, card in enumerate(cards):
                    under_peel = (squeeze.get("hand"), squeeze.get("position")) == (hand, pos)
                    if card.get("face_down") and "card" in card and not under_peel:
                        leaks.append(frame)
    return leaks


def _squeezed_faces(client: Client) -> list[tuple[str, str, int, str]]:
    """The faces ``client`` was shown when each squeeze started: (round, hand, position, card)."""
    return [
        (f["data"]["round_id"], f["data"]["hand"], f["data"]["position"], f["data"]["card"])
        for f in client.frames
        if f.get("type") == "event" and f["event"] == "squeeze_started"
    ]


@live_test()
async def test_every_screen_sees_the_squeezed_face_and_nothing_earlier(live: Live) -> None:
    dealer, bettors, spectator = await _seat_table(live)
    for b in bettors:
        auto_open(b, squeeze_steps=1)

    async def resync_often() -> None:
        # Snapshots taken mid-squeeze show the squeezed face, and only that one.
        for _ in range(40):
            await spectator.resync()
            await dealer.resync()
            await bettors[2].resync()
            await asyncio.sleep(0.02)

    snapper = asyncio.create_task(resync_often())
    await _play_rounds(live, bettors, 3)
    await snapper

    controllers: dict[tuple[str, str], int] = {}
    for frame in spectator.frames:
        if frame.get("type") == "event" and frame["event"] == "controllers":
            for hand in ("player", "banker"):
                if frame["data"][hand] is not None:
                    controllers[(frame["data"]["round_id"], hand)] = frame["data"][hand]
    # Player hand: alice (5 chips on player); Banker hand: carol (10 chips on banker).
    assert set(controllers.values()) == {bettors[0].user_id, bettors[2].user_id}
    faces = _squeezed_faces(spectator)
    assert faces, "no squeeze was seen"
    opened = {
        (f["data"]["round_id"], f["data"]["hand"], f["data"]["position"]): f["data"]["card"]
        for f in spectator.frames
        if f.get("type") == "event" and f["event"] == "card_opened"
    }
    for round_id, hand, position, card in faces:
        # The face every screen was shown is the card that then opened.
        assert opened[(round_id, hand, position)] == card
    for c in [dealer, *bettors, spectator]:
        # Every frame on the wire matches the documented schema.
        for frame in c.frames:
            SERVER.validate(frame)
        assert _face_down_leaks(c) == [], c.hello["user"]["name"]
        # Everyone at the table saw the same faces, whoever controlled them.
        assert set(_squeezed_faces(c)) == set(faces), c.hello["user"]["name"]
        for frame in c.frames:
            # The shoe's secrets never travel before the shoe ends.
            assert "seed" not in str(frame.get("view", {}).get("shoe") or {})
    for c in [dealer, *bettors, spectator]:
        await c.close()


async def _alice_squeezes(live: Live) -> tuple[Client, list[Client], Client, str, str]:
    """Seat the table; alice bets most and squeezes first: (dealer, bettors, spectator,
    the hand, the round)."""
    # The betting (0.8 s at this speed) stands still until both bets are in.
    hold = live.server.drivers["t1"].hold
    hold.at("betting")
    dealer, bettors, spectator = await _seat_table(live)
    alice, bob, carol = bettors
    auto_open(bob)
    auto_open(carol)
    await asyncio.gather(*(b.wait_for(is_event("betting_opened")) for b in bettors))
    await alice.bet("player", 10)
    await carol.bet("banker", 1)
    hold.at(None)
    started = await alice.wait_for(
        lambda m: (
            is_event("squeeze_started")(m) and m["data"]["controller_user_id"] == alice.user_id
        ),
    )
    hand, round_id = started["data"]["hand"], started["data"]["round_id"]
    return dealer, bettors, spectator, hand, round_id


# A squeeze that waits: at the default timers it lasts 0.4 s, which a loaded machine can
# spend before the moves arrive (the card is then opened for its controller, and refused).
@live_test(rooms=SLOW_SQUEEZE)
async def test_squeeze_moves_are_answered_once_and_the_latest_wins(live: Live) -> None:
    dealer, bettors, spectator, hand, round_id = await _alice_squeezes(live)
    alice = bettors[0]
    moves = [round(0.1 * i, 1) for i in range(1, 9)]
    answers = await asyncio.gather(*(alice.squeeze(hand, p, "tl") for p in moves))
    assert all(a["type"] == "ack" for a in answers)
    await alice.open(hand)
    opened = await spectator.wait_for(
        lambda m: (
            is_event("card_opened")(m)
            and m["data"]["hand"] == hand
            and m["data"]["round_id"] == round_id
        )
    )
    seen = [
        f["data"]["progress"]
        for f in spectator.frames
        if f.get("event") == "squeeze_progress"
        and f["data"]["hand"] == hand
        and f["data"]["round_id"] == round_id
    ]
    assert seen and seen[-1] == moves[-1]
    assert opened["data"]["forced"] is False
    for c in [dealer, *bettors, spectator]:
        await c.close()


PACED = {**SLOW_SQUEEZE, "server": {**SLOW_SQUEEZE["server"], "squeeze_rate": 4}}
"""A squeeze that waits a minute, and peel moves passed on at 4 a second."""


@pytest.mark.parametrize(
    ("rooms", "rate", "uvloop"),
    [(SLOW_SQUEEZE, 10, False), (PACED, 4, False), (SLOW_SQUEEZE, 10, True)],
)
def test_peel_moves_reach_the_screens_at_most_at_the_squeeze_rate(
    tmp_path: Path, rooms: dict[str, Any], rate: int, uvloop: bool
) -> None:
    # uvloop (what ``baccarat serve`` runs on) counts time in whole milliseconds.
    @live_test(rooms=rooms, uvloop=uvloop)
    async def play(live: Live) -> None:
        dealer, bettors, spectator, hand, round_id = await _alice_squeezes(live)
        alice = bettors[0]
        # Every client is told the rate in its hello, so a screen sends no more.
        assert [c.hello["squeeze_rate"] for c in (dealer, alice, spectator)] == [rate] * 3
        # 24 moves, 20 a second: each is answered, but at most ``rate`` a second go on.
        driver = live.server.drivers["t1"]
        steps = 0
        step = driver._step

        async def counted(job: Any) -> None:
            nonlocal steps
            steps += 1
            await step(job)

        driver._step = counted  # type: ignore[method-assign]
        loop = asyncio.get_running_loop()
        began = loop.time()
        moves = [round(0.04 * i, 2) for i in range(1, 25)]
        sent = []
        for p in moves:
            sent.append(asyncio.ensure_future(alice.squeeze(hand, p, "tl")))
            await asyncio.sleep(0.05)
        answers = await asyncio.gather(*sent)
        took = loop.time() - began
        driver._step = step  # type: ignore[method-assign]
        await alice.open(hand)
        await spectator.wait_for(
            lambda m: is_event("card_opened")(m) and m["data"]["round_id"] == round_id
        )
        assert all(a["type"] == "ack" for a in answers)
        seen = [
            f["data"]["progress"]
            for f in spectator.frames
            if f.get("event") == "squeeze_progress"
            and f["data"]["hand"] == hand
            and f["data"]["round_id"] == round_id
        ]
        # The latest move wins; no more went on than the rate allows in the time they took.
        assert seen and seen[-1] == moves[-1]
        assert len(seen) <= took * rate + 2, (len(seen), took)
        # Coalesced, not dropped wholesale: the screens saw the card move along the way.
        assert len(seen) >= 3
        # A move that is not due yet does not wake the table: it steps about once per move
        # passed on (the last one may come in the step of the ``open``).
        assert steps <= len(seen) + 2, (steps, len(seen))
        for c in [dealer, *bettors, spectator]:
            await c.close()

    play(tmp_path)


@live_test()
async def test_a_round_nobody_bet_on_is_recorded_as_settled(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    bettor = await live.client("idle", 100_000)
    await dealer.sit("t1", 0)
    await bettor.sit("t1", 1)
    settled = await dealer.wait_for(is_event("round_settled"))
    data = settled["data"]
    assert data["bets"] == []

    record = await asyncio.to_thread(live.store.get_round, data["round_id"])
    assert record.status == "settled"
    assert record.bets == []
    assert record.cards == data["cards"]
    assert record.outcome == data["outcome"]
    assert record.deltas == {dealer.user_id: 0}
    assert record.house == 0
    assert live.store.balance(dealer.user_id) == 1_000_000
    assert live.store.balance(bettor.user_id) == 100_000
    report = live.store.audit()
    assert report.ok, report.problems
    assert report.rounds >= 1
    await dealer.close()
    await bettor.close()

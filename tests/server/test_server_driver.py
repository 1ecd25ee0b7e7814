"""The table driver and its ledger adapter on a fake clock with a fake store.

These unit tests check the driver's own logic: rounds written in order (escrow, then the
settlement), a settlement the ledger refuses announced as a void with the balances read
back, a draining table that waits for its round in escrow to land (woken by the ledger, not
by polling) or voids it when the grace runs out. The fake store keeps balances in a dict and
refuses what a test tells it to; everything else about the store is tested on real SQLite
and PostgreSQL databases in tests/store and the live server tests.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from baccarat.cards import parse_cards
from baccarat.errors import Conflict, InternalError
from baccarat.server.metrics import Metrics
from baccarat.server.sockets.frames import payload
from baccarat.server.sockets.hub import Hub
from baccarat.server.sockets.replies import OK, Reply
from baccarat.server.tables.driver import TableDriver
from baccarat.shoe import Shoe
from baccarat.store import Escrow, Settle, Void
from baccarat.table import OpenCard, PlaceChip, Sit, Table, TableConfig, UserInfo

CARDS = ["2S", "3H", "4D", "4C", "KS", "KH", "QS", "QH", "JS", "JH", "TS", "TH"] * 20
"""Player 2+4, Banker 3+4: both stand, Banker wins 7 to 6."""


class FakeStore:
    """The calls the driver and its ledger make, on a dict of balances."""

    def __init__(self, balances: dict[int, int]) -> None:
        self.coins = dict(balances)
        self.ops: list[Any] = []
        self.refuse: set[type] = set()

    def submit(self, op: Any) -> concurrent.futures.Future[Any]:
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        if type(op) in self.refuse:
            done.set_exception(Conflict("refused", "The ledger refuses this."))
            return done
        self.ops.append(op)
        if isinstance(op, Escrow):
            for bet in op.bets:
                self.coins[bet.user_id] -= bet.coins
        elif isinstance(op, Settle):
            escrow = next(
                o for o in self.ops if isinstance(o, Escrow) and o.round_id == op.round_id
            )
            for bet in escrow.bets:
                self.coins[bet.user_id] += bet.coins
            for uid, delta in op.deltas.items():
                self.coins[uid] += delta
        elif isinstance(op, Void):
            escrow = next(
                o for o in self.ops if isinstance(o, Escrow) and o.round_id == op.round_id
            )
            for bet in escrow.bets:
                self.coins[bet.user_id] += bet.coins
        done.set_result(None)
        return done

    def record_shoe_start(self, *args: object) -> None:
        self.ops.append(("shoe_start", *args))

    def record_shoe_end(self, *args: object) -> None:
        self.ops.append(("shoe_end", *args))

    def balance(self, user_id: int) -> int:
        return self.coins[user_id]

    def balances(self, user_ids: list[int]) -> dict[int, int]:
        return {uid: self.coins[uid] for uid in user_ids if uid in self.coins}

    def save_seats(self, table_id: str, epoch: int, seated: dict[int, int]) -> bool:
        return True


class Screen:
    """A connection's stand-in: it watches the table and keeps what it is sent."""

    def __init__(self, user_id: int) -> None:
        self.user_id = user_id
        self.watching: str | None = None
        self.sent: list[dict[str, Any]] = []

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    def send_frame(self, frame: bytes) -> None:
        self.sent.append(json.loads(payload(frame)))

    def answer(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def cork(self) -> None:
        pass

    def uncork(self, joined: object = None) -> None:
        pass

    def events(self) -> list[str]:
        return [m["event"] for m in self.sent if m.get("type") == "event"]


class Rig:
    """A driver on a fake clock: ``at(t)`` moves the clock and lets the task catch up."""

    def __init__(self, store: FakeStore) -> None:
        self.now = 1000.0
        self.store = store
        self.hub = Hub()
        config = TableConfig("t1", rounds_per_shoe=2)
        table = Table(config, lambda: Shoe(parse_cards(CARDS), seed=bytes(32)))
        self.driver = TableDriver(
            table,
            table_id="t1",
            room_id="standard",
            hub=self.hub,
            store=store,  # type: ignore[arg-type]
            metrics=Metrics(),
            clock=lambda: self.now,
        )
        self.screen = Screen(0)
        self.hub.watch(self.screen, "t1")  # type: ignore[arg-type]
        self.driver.start()

    async def do(self, cmd: Any) -> None:
        await self.driver.submit(self.driver.command(cmd))

    async def at(self, now: float) -> None:
        """Move the clock to ``now`` and run what fell due."""
        self.now = now
        await self.driver.submit(lambda now: [])

    async def to_deadline(self) -> None:
        due = self.driver.table.next_deadline
        assert due is not None
        await self.at(due)


async def seated_round(rig: Rig) -> None:
    """A dealer (1) and a bettor (2) who puts 5 chips on Player; betting then closes."""
    await rig.do(Sit(1, UserInfo(1, "dealer", 60, 100_000), 0))
    await rig.do(Sit(2, UserInfo(2, "bettor", 60, 10_000), 1))
    await rig.do(PlaceChip(2, "player", 5))
    await rig.to_deadline()


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(test())


def test_a_round_is_escrowed_then_settled_in_the_ledger() -> None:
    async def main() -> None:
        store = FakeStore({1: 100_000, 2: 10_000})
        rig = Rig(store)
        await seated_round(rig)
        assert [type(op) for op in store.ops if not isinstance(op, tuple)] == [Escrow]
        await rig.do(OpenCard(2, "player"))
        await rig.do(OpenCard(2, "banker"))
        ops = [op for op in store.ops if not isinstance(op, tuple)]
        assert [type(op) for op in ops] == [Escrow, Settle]
        assert store.coins == {1: 100_495, 2: 9_500}  # the dealer pays 1% on the win
        assert rig.driver.ledger.open_round is None
        assert "round_settled" in rig.screen.events()
        await rig.driver.stop(0.0)

    run(main)


def test_a_refused_settlement_is_announced_as_a_void_and_balances_are_read_back() -> None:
    async def main() -> None:
        store = FakeStore({1: 100_000, 2: 10_000})
        store.refuse.add(Settle)
        rig = Rig(store)
        await seated_round(rig)
        await rig.do(OpenCard(2, "player"))
        await rig.do(OpenCard(2, "banker"))
        events = rig.screen.events()
        assert "round_settled" not in events
        assert events[-3:] == ["round_voided", "coins_set", "coins_set"]
        assert [type(op) for op in store.ops if not isinstance(op, tuple)] == [Escrow, Void]
        # Every stake went back, and the table believes the ledger again.
        assert store.coins == {1: 100_000, 2: 10_000}
        assert [o.coins for o in rig.driver.table.seats if o is not None] == [100_000, 10_000]
        await rig.driver.stop(0.0)

    run(main)


def test_stopping_waits_for_the_round_in_escrow_to_land() -> None:
    async def main() -> None:
        store = FakeStore({1: 100_000, 2: 10_000})
        rig = Rig(store)
        await seated_round(rig)
        stopping = asyncio.create_task(rig.driver.stop(3600.0))
        await asyncio.sleep(0)
        assert not stopping.done()
        await rig.do(OpenCard(2, "player"))
        await rig.do(OpenCard(2, "banker"))
        await asyncio.wait_for(stopping, 5.0)
        assert [type(op) for op in store.ops if not isinstance(op, tuple)] == [Escrow, Settle]

    run(main)


def test_a_round_still_in_escrow_when_the_grace_runs_out_is_voided() -> None:
    async def main() -> None:
        store = FakeStore({1: 100_000, 2: 10_000})
        rig = Rig(store)
        await seated_round(rig)
        await rig.driver.stop(0.0)
        assert [type(op) for op in store.ops if not isinstance(op, tuple)] == [Escrow, Void]
        assert store.coins == {1: 100_000, 2: 10_000}

    run(main)


def test_a_bug_in_a_job_is_an_internal_error_not_the_callers_fault() -> None:
    async def main() -> None:
        rig = Rig(FakeStore({}))

        def broken(now: float) -> list[Any]:
            raise KeyError("a bug")

        try:
            await rig.driver.submit(broken)
        except InternalError as exc:
            assert exc.code == "internal_error"
        else:
            raise AssertionError("a failing job was not reported")
        # The table goes on.
        await rig.do(Sit(1, UserInfo(1, "dealer", 60, 100_000), 0))
        await rig.driver.stop(0.0)

    run(main)


def test_the_table_answers_a_command_after_its_events_and_a_refusal_is_answered_not_raised() -> (
    None
):
    async def main() -> None:
        rig = Rig(FakeStore({}))
        metrics = rig.driver.metrics
        sit = Reply(rig.screen, "sit", metrics)  # type: ignore[arg-type]
        await rig.driver.submit(
            rig.driver.command(Sit(1, UserInfo(1, "dealer", 60, 100_000), 0)), reply=sit
        )
        kinds = [m.get("event", m["type"]) for m in rig.screen.sent]
        assert kinds == ["seated", "ack"]
        assert rig.screen.sent[-1] == {"type": "ack", "id": "sit"}
        bet = Reply(rig.screen, "bet", metrics)  # type: ignore[arg-type]
        await rig.driver.submit(rig.driver.command(PlaceChip(9, "player", 5)), reply=bet)
        refused = rig.screen.sent[-1]
        assert refused["type"] == "error" and refused["id"] == "bet"
        assert refused["code"] == "not_seated"
        await rig.driver.stop(0.0)

    run(main)


def test_a_command_has_exactly_one_answer() -> None:
    screen = Screen(1)
    reply = Reply(screen, 7, Metrics())  # type: ignore[arg-type]
    reply(OK)
    reply(InternalError())
    assert screen.sent == [{"type": "ack", "id": 7}]


def test_the_deliveries_counter_counts_every_event_and_me_sent() -> None:
    async def main() -> None:
        store = FakeStore({1: 100_000, 2: 10_000})
        rig = Rig(store)
        screens = [rig.screen, Screen(1), Screen(2)]
        for screen in screens[1:]:
            rig.hub.add(screen)  # type: ignore[arg-type]
            rig.hub.watch(screen, "t1")  # type: ignore[arg-type]
        await seated_round(rig)
        await rig.do(OpenCard(2, "player"))
        await rig.do(OpenCard(2, "banker"))
        sent = [m for s in screens for m in s.sent if m.get("type") == "event"]
        # The seated users' own ``me`` events are among them, not only the table's.
        assert {m["event"] for m in sent} >= {"me", "chip_placed", "round_settled"}
        counted = rig.driver.metrics.registry.get_sample_value("baccarat_messages_queued_total")
        assert counted == len(sent)
        await rig.driver.stop(0.0)

    run(main)


def test_an_event_with_a_time_left_carries_the_servers_clock_and_no_other_does() -> None:
    async def main() -> None:
        rig = Rig(FakeStore({1: 100_000, 2: 10_000}))
        before = time.time()
        await seated_round(rig)
        await rig.do(OpenCard(2, "player"))
        await rig.do(OpenCard(2, "banker"))
        after = time.time()
        sent = [m for m in rig.screen.sent if m.get("type") == "event"]
        timed = [m for m in sent if "remaining_ms" in m["data"]]
        assert {m["event"] for m in timed} >= {"betting_opened", "round_settled"}
        assert all(before <= m["server_time"] <= after for m in timed)
        untimed = [
            m for m in sent if not {"remaining_ms", "grace_ms", "ready_in_ms"} & set(m["data"])
        ]
        assert {m["event"] for m in untimed} >= {"chip_placed", "card_opened"}
        assert not [m for m in untimed if "server_time" in m]
        await rig.driver.stop(0.0)

    run(main)


def test_the_lobby_line_is_marked_changed_exactly_when_it_changed() -> None:
    async def main() -> None:
        store = FakeStore({1: 100_000, 2: 10_000, 3: 10_000})
        rig = Rig(store)
        shown = rig.driver.line()
        marks = 0

        async def step(run: Callable[[], Awaitable[None]]) -> None:
            # After each step the lobby's line is what it would rebuild if marked, else stale.
            nonlocal shown, marks
            rig.hub.changed.clear()
            await run()
            line = rig.driver.line()
            if "t1" in rig.hub.changed:
                marks += 1
                shown = line
            assert line == shown

        async def open_squeezed() -> None:
            rnd = rig.driver.table.round
            assert rnd is not None and rnd.squeeze is not None
            await rig.do(OpenCard(rnd.squeeze.controller, rnd.squeeze.hand))

        await step(lambda: rig.do(Sit(1, UserInfo(1, "dealer", 60, 100_000), 0)))
        await step(lambda: rig.do(Sit(2, UserInfo(2, "bettor", 60, 10_000), 1)))
        await step(lambda: rig.do(Sit(3, UserInfo(3, "other", 60, 10_000), 2)))
        chips_from = marks
        for _ in range(3):
            await step(lambda: rig.do(PlaceChip(2, "player", 5)))
            await step(lambda: rig.do(PlaceChip(3, "banker", 5)))
        # Chips change no line: no mark, and the line shown is still right.
        assert marks == chips_from
        shoes = set()
        while len(shoes) < 3:  # two shoes of two rounds played through, a third begun
            table = rig.driver.table
            shoes.add(table.shoe_id)
            if table.phase == "squeeze":
                await step(open_squeezed)
            elif table.phase == "betting" and table.round is not None and not table.round.slip(2):
                await step(lambda: rig.do(PlaceChip(2, "player", 5)))
            else:
                await step(rig.to_deadline)
        assert marks > chips_from + 8
        await rig.driver.stop(0.0)

    run(main)


def test_a_chip_at_an_idle_table_is_published_in_the_turn_its_command_was_read() -> None:
    async def main() -> None:
        rig = Rig(FakeStore({1: 100_000, 2: 10_000}))
        await rig.do(Sit(1, UserInfo(1, "dealer", 60, 100_000), 0))
        await rig.do(Sit(2, UserInfo(2, "bettor", 60, 10_000), 1))
        await asyncio.sleep(0)  # the table's task is asleep, betting open, nothing due
        turns: list[str] = []
        asyncio.get_running_loop().call_soon(turns.append, "the loop's next turn")
        bet = Reply(rig.screen, "bet", rig.driver.metrics)  # type: ignore[arg-type]
        chip = rig.driver.command(PlaceChip(2, "player", 5))
        await rig.driver.submit(chip, reply=bet, inline=True)
        # Published and answered with no turn of the loop in between.
        assert turns == []
        assert rig.screen.events()[-1] == "chip_placed"
        assert rig.screen.sent[-1] == {"type": "ack", "id": "bet"}
        # With something due, the step is the task's (it runs what fell due first).
        assert rig.driver.table.next_deadline is not None
        rig.now = rig.driver.table.next_deadline
        late = Reply(rig.screen, "late", rig.driver.metrics)  # type: ignore[arg-type]
        await rig.driver.submit(chip, reply=late, inline=True)
        assert turns == ["the loop's next turn"]
        assert rig.screen.sent[-1]["code"] == "betting_closed"
        await rig.driver.stop(0.0)

    run(main)


def test_a_deadline_set_by_a_step_run_inline_wakes_the_table() -> None:
    async def main() -> None:
        store = FakeStore({1: 100_000, 2: 10_000})
        rig = Rig(store)
        # The loop's own clock and timers, and a betting window of 0.2 s.
        rig.driver.base_clock = rig.driver.loop.time
        rig.driver.table.config = TableConfig("t1", betting_seconds=0.2)
        await rig.do(Sit(1, UserInfo(1, "dealer", 60, 100_000), 0))
        await asyncio.sleep(0)
        assert rig.driver.table.next_deadline is None  # asleep with no timer
        seat = rig.driver.command(Sit(2, UserInfo(2, "bettor", 60, 10_000), 1))
        await rig.driver.submit(seat, inline=True)
        assert rig.screen.events()[-1] == "betting_opened"
        await asyncio.sleep(0.6)
        assert "betting_closed" in rig.screen.events()
        await rig.driver.stop(0.0)

    run(main)


def test_a_held_table_waits_in_its_phase_until_released() -> None:
    async def main() -> None:
        store = FakeStore({1: 100_000, 2: 10_000})
        rig = Rig(store)
        # Held at the next squeeze: betting closes at its deadline, the squeeze then waits.
        rig.driver.hold.at("squeeze")
        await seated_round(rig)
        assert rig.driver.table.phase == "squeeze" and rig.driver.hold.held
        await rig.at(rig.now + 3600)
        assert rig.driver.table.phase == "squeeze"
        # Commands go on while held, in the table's own time: the controller opens both
        # cards and the round settles.
        rig.driver.hold.at("result")
        await rig.do(OpenCard(2, "player"))
        await rig.do(OpenCard(2, "banker"))
        assert rig.driver.table.phase == "result" and rig.driver.hold.held
        due = rig.driver.table.next_deadline
        assert due is not None
        left = due - rig.driver.clock()
        await rig.at(rig.now + 3600)
        assert rig.driver.table.phase == "result"
        # Let go, the result runs on for the time it had left.
        rig.driver.hold.at(None)
        assert not rig.driver.hold.held
        await rig.at(rig.now + left - 0.1)
        assert rig.driver.table.phase == "result"
        await rig.at(rig.now + 0.1)
        assert rig.driver.table.phase != "result"
        await rig.driver.stop(0.0)

    run(main)

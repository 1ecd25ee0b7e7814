"""A bot: one account on one connection (reopened if it drops), playing by its plan."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable

import aiohttp

from baccarat.bets import Area
from baccarat.bots.plan import BotPlan, choose_bet
from baccarat.bots.route import Route
from baccarat.client import Client, CommandError
from baccarat.errors import BaccaratError
from baccarat.protocol.frames import Seat, ServerMessage
from baccarat.table.reducer import Data, View
from baccarat.table.squeeze import Corner

log = logging.getLogger("baccarat.bots")

CONNECT_TIMEOUT = 3.0
"""Seconds a bot waits for a node to open its socket and say hello."""
ANSWER_TIMEOUT = 8.0
"""Seconds a bot's command waits for its answer (a person would have reloaded by then)."""
HEARTBEAT = 2.0
"""A bot's socket pings every this many seconds and gives its node half as long again to
answer: a node that stopped answering is left within about 3 s."""
RECONNECT_NOW = 0.05
"""Seconds before connecting to the node a bot's table moved to."""
BACKOFF_BASE = 0.25
"""Seconds of the first pause after a failure; each failure in a row doubles it."""
BACKOFF_CAP = 8.0
"""The longest pause of a bot without a seat."""
BACKOFF_CAP_SEATED = 2.0
"""The longest pause of a seated bot: its seat is kept only for the reconnect grace."""

CHAT_WON = ("好牌！", "莊來了", "再來一局", "手氣真旺", "贏了！")
CHAT_LOST = ("唉…", "下一局翻本", "手氣不好", "差一點", "可惜")
"""What a bot says after a round it won or lost."""
PEELS: tuple[Corner, ...] = ("tl", "tr", "bl", "br", "l", "r")
"""Where a bot peels from: any corner or a long side."""


def _free_seats(view: View) -> list[int]:
    return [i for i, s in enumerate(view.get("seats", [])) if s is None]


class Bot:
    """One bot: one account, one connection (reopened if it drops)."""

    def __init__(
        self, base_url: str, token: str, plan: BotPlan, *, rng: random.Random | None = None
    ) -> None:
        self.base_url = base_url
        self.route = Route(base_url, token)
        self.token = token
        self.plan = plan
        self.rng = rng or random.Random()
        self.client: Client | None = None
        self.table_id: str | None = None
        self.seat: int | None = None
        self.betting_round: str | None = None
        """The round the bot last went to bet in (it bets once a round)."""
        self.rounds_bet = 0
        self.squeezes = 0
        self.rebets = 0
        self.queued = False
        self.emotes = 0
        self.said = 0
        self.doubles = 0
        self.undos = 0

    async def run(self, stop: asyncio.Event) -> None:
        """Play until ``stop`` is set, reconnecting after a drop: at once to a node its table
        moved to, else after a pause that doubles with each failure in a row (with jitter)."""
        failures = 0
        while not stop.is_set():
            before = self.route.url
            try:
                self.client = await Client.connect(
                    self.route.url, self.token, heartbeat=HEARTBEAT, timeout=CONNECT_TIMEOUT
                )
                # A command left unanswered (its table stopped under it) ends the connection
                # soon, so that the bot connects again and finds its seat.
                self.client.answer_timeout = ANSWER_TIMEOUT
            except (TimeoutError, OSError, aiohttp.ClientError, BaccaratError) as exc:
                log.info("bot cannot connect: %s", exc)
                if self.table_id is not None and not stop.is_set():
                    await self.route.follow(self.table_id)
            else:
                failures = 0  # it reached a node: whatever fails next is a new failure
                await self._one_connection(self.client, stop)
            moved = self.route.url != before
            failures = 0 if moved else failures + 1
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), self._pause(failures))

    def _pause(self, failures: int) -> float:
        """Seconds to wait before connecting again after ``failures`` failures in a row
        (exponential backoff with jitter; a seated bot keeps it short, for its seat waits
        only for the reconnect grace)."""
        if failures == 0:
            return RECONNECT_NOW
        cap = BACKOFF_CAP_SEATED if self.seat is not None else BACKOFF_CAP
        step: float = BACKOFF_BASE * 2.0 ** (failures - 1)
        return min(cap, step) * self.rng.uniform(0.5, 1.0)

    async def _one_connection(self, client: Client, stop: asyncio.Event) -> bool:
        """Play on one connection until it ends; True to connect again at once."""
        again = False
        try:
            again = await self._play(stop)
        except CommandError as exc:
            log.info("bot connection ended: %s", exc)
            again = self.route.sent_elsewhere(exc)
        except (TimeoutError, OSError, aiohttp.ClientError) as exc:
            log.info("bot connection ended: %s", exc)
        finally:
            await client.close()
        if not again and not stop.is_set() and self.seat is not None:
            # The socket dropped (its node stopped, or stopped answering): the table
            # may run elsewhere already.
            again = await self.route.follow(self.table_id)
        return again

    async def _play(self, stop: asyncio.Event) -> bool:
        """Play on this connection until it drops; True if the bot's table runs elsewhere."""
        client = self.client
        assert client is not None
        seat = client.hello["seat"]
        if seat is None and await self._table_moved():
            return True
        self.route.found()
        await self.route.learn()
        if seat is not None:
            await self._back_in_seat(client, seat)
        else:
            await self._take_seat(client)
        await self._listen(client, stop)
        return False

    async def _table_moved(self) -> bool:
        """This node does not seat the bot: True if its table runs on another node now, else
        the bot forgets its seat."""
        if self.seat is None or self.table_id is None:
            return False
        if self.route.still_looking() and await self.route.follow(self.table_id):
            return True
        self.seat = None
        return False

    async def _back_in_seat(self, client: Client, seat: Seat) -> None:
        self.table_id, self.seat = seat["table_id"], seat["seat"]
        log.info(
            "bot back in its seat",
            extra={"user_id": client.user_id, "table_id": self.table_id, "url": self.route.url},
        )
        await client.watch(seat["table_id"])

    async def _listen(self, client: Client, stop: asyncio.Event) -> None:
        """Act on each message until the connection ends or ``stop`` is set."""
        waiter = asyncio.create_task(stop.wait())
        try:
            while not stop.is_set():
                reader = asyncio.create_task(client.next_message())
                done, _ = await asyncio.wait({reader, waiter}, return_when=asyncio.FIRST_COMPLETED)
                if reader not in done:
                    reader.cancel()
                    return
                msg = reader.result()
                if msg is None:
                    return
                await self._on(client, msg)
        finally:
            waiter.cancel()

    async def _pick_table(self, client: Client) -> str:
        if self.plan.table_id is not None:
            return self.plan.table_id
        await client.lobby_subscribe()
        await client.wait_for(lambda m: m["type"] == "lobby", 10)
        await client.lobby_unsubscribe()
        coins = int(client.hello["user"]["coins"])
        rooms = {r["room_id"]: r for r in client.rooms}
        tables = [
            t
            for t in client.lobby_tables.values()
            if t["taken"] < 8 and coins >= rooms[t["room_id"]]["bettor_floor"] * 2
        ]
        if not tables:
            raise CommandError("no_table", "No table has a free seat this bot can afford.")
        # Prefer a table that has people, so rounds happen.
        tables.sort(key=lambda t: (-t["taken"], self.rng.random()))
        return str(tables[0]["table_id"])

    async def _take_seat(self, client: Client) -> None:
        table_id = await self._pick_table(client)
        self.table_id = table_id
        view = await client.watch(table_id)
        # A betting already open when the bot came has sent its opening before: the bot bets
        # in it once seated, as a person sitting down then would.
        open_betting = (
            {"round_id": view["round_id"], "remaining_ms": view["remaining_ms"]}
            if view["phase"] == "betting"
            else None
        )
        coins = int(client.hello["user"]["coins"])
        can_deal = self.plan.may_deal and coins >= view["limits"]["dealer_floor"]
        for seat in self._seats_to_try(view, can_deal):
            if not await _sit(client, table_id, seat):
                continue
            self.seat = seat
            if seat != 0 and can_deal:
                await self._line_up(client)
            if seat != 0 and open_betting is not None:
                await self._bet(client, open_betting)
            return
        raise CommandError("no_seat", f"No seat free at {table_id}.")

    def _seats_to_try(self, view: View, can_deal: bool) -> list[int]:
        """The planned seat, then the dealer seat if free and the bot may deal, then the free
        bettor seats in random order."""
        seats = [self.plan.seat] if self.plan.seat is not None else []
        free = _free_seats(view)
        if can_deal and 0 in free:
            seats.append(0)
        bettor_seats = [s for s in free if s != 0]
        self.rng.shuffle(bettor_seats)
        return seats + bettor_seats

    async def _line_up(self, client: Client) -> None:
        # The dealer seat is taken: line up for it (上莊排隊).
        with contextlib.suppress(CommandError):
            await client.join_queue()
            self.queued = True

    async def _on(self, client: Client, msg: ServerMessage) -> None:
        if msg["type"] != "event":
            return
        handler = _ON_EVENT.get(msg["event"])
        if handler is not None:
            await handler(self, client, msg["data"])

    async def _on_betting_opened(self, client: Client, data: Data) -> None:
        if self.seat == 0:
            await self._urge_later(client, data)
        elif self.seat is not None:
            await self._bet(client, data)

    async def _on_round_settled(self, client: Client, data: Data) -> None:
        if self.seat is None:
            return
        won = int(data.get("settlement", {}).get("deltas", {}).get(str(client.user_id), 0))
        if won > 0 and self.rng.random() < self.plan.emote_chance:
            with contextlib.suppress(CommandError):
                await client.emote(self.rng.choice(("clap", "laugh", "thumbs_up", "lucky")))
                self.emotes += 1
        elif won and self.rng.random() < self.plan.chat_chance:
            with contextlib.suppress(CommandError):
                await client.say(self.rng.choice(CHAT_WON if won > 0 else CHAT_LOST))
                self.said += 1

    async def _on_squeeze_started(self, client: Client, data: Data) -> None:
        if data.get("controller_user_id") == client.user_id:
            await self._squeeze(client, data)

    async def _on_seat_freed(self, client: Client, data: Data) -> None:
        if data.get("user_id") == client.user_id and data.get("reason") != "moved":
            # Freed, not moved to the dealer seat: the bot sits again.
            self.seat = None
            log.info("bot lost its seat", extra={"reason": data.get("reason")})
            try:
                await self._take_seat(client)
            except CommandError as exc:
                # No seat now (the database away, the table full): connect again later and
                # try then, rather than watch the table from this connection for good.
                log.info("bot not seated again: %s", exc.code)
                await client.close()
        else:
            await self._maybe_deal(client, data)

    async def _on_seated(self, client: Client, data: Data) -> None:
        if data.get("user_id") == client.user_id:
            self.seat = data["seat"]

    async def _maybe_deal(self, client: Client, data: Data) -> None:
        """Take the dealer seat when the table needs a dealer and the bot may and can deal."""
        if not self.plan.may_deal or self.seat in (None, 0):
            return
        needs = data.get("dealer_needed") or data.get("seat") == 0
        if not needs:
            return
        view = await client.resync()
        me = view.get("me", {})
        if view["seats"][0] is None and (me.get("coins") or 0) >= view["limits"]["dealer_floor"]:
            with contextlib.suppress(CommandError):
                await _sit_to_deal(client, self.table_id)

    async def _bet(self, client: Client, data: Data) -> None:
        if data.get("round_id") is not None:
            if data["round_id"] == self.betting_round:
                return
            self.betting_round = data["round_id"]
        window = float(data.get("remaining_ms", 1000)) / 1000
        # Bet early in the window, like a person who has decided already.
        await asyncio.sleep(self.rng.uniform(0, window * 0.3))
        history = client.view.get("history", []) if client.view else []
        if self.plan.strategy == "flat" and self.rounds_bet and await self._rebet(client):
            return
        placed = await self._place(client, choose_bet(self.plan.strategy, history, self.rng))
        if placed and self.plan.strategy == "random":
            placed = await self._double_or_undo(client, placed)
        if placed:
            self.rounds_bet += 1

    async def _rebet(self, client: Client) -> bool:
        """Place last round's chips again; False if the table refused."""
        try:
            await client.rebet()
        except CommandError as exc:
            log.debug("rebet refused: %s", exc.code)
            return False
        self.rebets += 1
        self.rounds_bet += 1
        return True

    async def _place(self, client: Client, bets: list[tuple[Area, int]]) -> int:
        """Place each chip; how many the table took."""
        placed = 0
        for area, chip in bets:
            try:
                await client.bet(area, chip)
                placed += 1
            except CommandError as exc:
                log.debug("bet refused: %s", exc.code)
        return placed

    async def _double_or_undo(self, client: Client, placed: int) -> int:
        """Sometimes double the slip or take the last chip back; the chips that remain."""
        roll = self.rng.random()
        try:
            if roll < 0.1:
                await client.double()
                self.doubles += 1
            elif roll < 0.2:
                await client.undo()
                self.undos += 1
                return placed - 1
        except CommandError as exc:
            log.debug("double or undo refused: %s", exc.code)
        return placed

    async def _urge_later(self, client: Client, data: Data) -> None:
        if self.rng.random() >= self.plan.urge_chance:
            return
        window = float(data.get("remaining_ms", 1000)) / 1000
        await asyncio.sleep(window * 0.5)
        with contextlib.suppress(CommandError):
            await client.urge()

    async def _squeeze(self, client: Client, data: Data) -> None:
        hand = data["hand"]
        window = float(data.get("remaining_ms", 1000)) / 1000
        if self.rng.random() < self.plan.squeeze_chance:
            corner = self.rng.choice(PEELS)
            steps = self.rng.randint(2, 5)
            for i in range(1, steps + 1):
                with contextlib.suppress(CommandError):
                    await client.squeeze(hand, round(i / (steps + 1), 3), corner)
                await asyncio.sleep(window * 0.4 / steps)
            self.squeezes += 1
        with contextlib.suppress(CommandError):
            await client.open(hand)


_EventHandler = Callable[[Bot, Client, Data], Awaitable[None]]
_ON_EVENT: dict[str, _EventHandler] = {
    "betting_opened": Bot._on_betting_opened,
    "round_settled": Bot._on_round_settled,
    "squeeze_started": Bot._on_squeeze_started,
    "seat_freed": Bot._on_seat_freed,
    "seated": Bot._on_seated,
    "waiting": Bot._maybe_deal,
}
"""What a bot does on each table event; it ignores the rest."""


async def _sit(client: Client, table_id: str, seat: int) -> bool:
    """Sit at ``seat``; False if it is not to be had (taken, the bot sits already, or others
    wait in line for the dealer seat)."""
    try:
        await client.sit(table_id, seat)
    except CommandError as exc:
        if exc.code in ("seat_taken", "already_seated", "dealer_queue"):
            return False
        raise
    return True


async def _sit_to_deal(client: Client, table_id: str | None) -> None:
    """Take the dealer seat of ``table_id`` (a bot that has not picked one yet is refused
    by the server alike: a ``sit`` without a table is a ``bad_message``)."""
    if table_id is None:
        raise CommandError("bad_message", "sit needs the field 'table_id'.")
    await client.sit(table_id, 0)


async def run_bots(bots: list[Bot], stop: asyncio.Event) -> None:
    """Run every bot until ``stop`` is set."""
    await asyncio.gather(*(b.run(stop) for b in bots))

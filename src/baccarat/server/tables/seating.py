"""Seating: who may take a seat at which table, with a balance no older than the ledger's.

A user holds one seat in the whole system. The hub keeps that rule within this node (with the
users whose ``sit`` is in flight), the directory across nodes (a seat claim); a user whose
coins are still in an unsettled round at another table is refused, since that settlement
will change the balance. The balance is read inside the table's task, after every ledger
write the table's earlier steps caused.

Three ways to a seat: a user's ``sit``, the first in the dealer queue when the dealer seat
falls free, and the users a table had seated where it ran before (restored for the reconnect
grace when a node takes it over).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from baccarat.errors import BaccaratError, RuleViolation
from baccarat.server.sockets.hub import Hub
from baccarat.server.sockets.replies import Reply
from baccarat.server.tables.claims import SeatClaims
from baccarat.server.tables.driver import TableDriver
from baccarat.server.tables.inflight import CoinsInFlight
from baccarat.server.tables.seatmap import SeatMap
from baccarat.server.tables.wallet import Wallet
from baccarat.store import Store, User
from baccarat.table import DEALER_SEAT, Disconnect, Event, LeaveQueue, Sit, UserInfo

log = logging.getLogger("baccarat.server")

ELSEWHERE = "You already hold a seat at another table; stand up there first."


class Seating:
    """Seats users at this node's tables, keeping the one-seat rule."""

    def __init__(self, hub: Hub, claims: SeatClaims, store: Store, inflight: CoinsInFlight) -> None:
        self.hub = hub
        self.claims = claims
        self.seats = SeatMap()
        """Who sits where on this node (the tables record it; the one-seat rule reads it)."""
        self.store = store
        self.inflight = inflight
        self.wallet: Wallet | None = None
        """The platform's wallet, for the users it keeps (None: the ledger keeps everyone's)."""

    async def sit(
        self,
        user_id: int,
        driver: TableDriver,
        seat: int,
        *,
        reply: Reply | None = None,
        after: Callable[[], None] | None = None,
    ) -> None:
        """Seat the user with a fresh balance. With ``reply`` the table answers the command;
        without, a refusal is raised."""
        table_id = driver.table_id
        self.verify_sit(user_id, driver)
        self.seats.sitting.add(user_id)
        try:
            if not await self.claims.claim(user_id, table_id, seat):
                raise RuleViolation("already_seated_elsewhere", ELSEWHERE)
            prepare, run = self._sit_job(driver, user_id, seat)
            await driver.submit(run, reply=reply, after=after, prepare=prepare)
        finally:
            self.seats.sitting.discard(user_id)
            if self.seats.table_of(user_id) != table_id:
                # The table did not seat the user: give the claim back.
                await self.claims.release(user_id, table_id)

    def verify_sit(self, user_id: int, driver: TableDriver) -> None:
        """Refuse a seat at ``driver``'s table that this node can already tell is not to be
        had: the server is draining, the user sits (or is being seated) at another table,
        or another table's unsettled round holds the user's coins."""
        table_id = driver.table_id
        if driver.ledger.draining:
            raise RuleViolation("table_closed", "The server is shutting down; no new seats.")
        where = self.seats.get(user_id)
        if (where is not None and where.table_id != table_id) or user_id in self.seats.sitting:
            raise RuleViolation("already_seated_elsewhere", ELSEWHERE)
        self.inflight.verify_free(user_id, table_id)

    async def dealer_turn(self, driver: TableDriver, user_id: int) -> None:
        """Seat the first in the dealer queue who still watches, or take them out of the line."""
        table_id = driver.table_id
        reason: str | None = None
        if not any(c.watching == table_id for c in self.hub.by_user.get(user_id, ())):
            reason = "away"
        else:
            try:
                await self.sit(user_id, driver, DEALER_SEAT)
            except BaccaratError as exc:
                reason = exc.code
        if reason is not None:
            # The table may refuse (the user left the line meanwhile): nothing to tell.
            with contextlib.suppress(Exception):
                await driver.submit(driver.command(LeaveQueue(user_id, reason)))

    async def restore(self, driver: TableDriver, seats: dict[int, int]) -> None:
        """Seat again whoever sat at the table where it ran before (seat -> user id), each
        marked away until they connect: as after a dropped connection, they keep the seat
        for the reconnect grace and their client finds the table here."""
        table_id = driver.table_id
        for seat, user_id in sorted(seats.items()):
            if user_id in self.seats or user_id in self.seats.sitting:
                continue
            if not await self.claims.claim(user_id, table_id, seat):
                continue  # seated at another table since
            prepare, run = self._sit_job(driver, user_id, seat, away=not self.hub.online(user_id))
            try:
                await driver.submit(run, prepare=prepare)
            except BaccaratError as exc:
                log.info(
                    "seat not restored",
                    extra={"table_id": table_id, "user_id": user_id, "code": exc.code},
                )
                await self.claims.release(user_id, table_id)

    async def shown(self, user: User) -> User:
        """The user with the balance to show them: the platform's, for a user it keeps (the
        game's wallet holds their coins only during a round), or the last it gave when it
        does not answer in time."""
        if self.wallet is None or not await self.wallet.keeps(user.user_id):
            return user
        found = await self.wallet.balances([user.user_id])
        coins = found.get(user.user_id, self.wallet.known(user.user_id))
        return user if coins is None else replace(user, coins=coins)

    async def _coins(self, user_id: int, ledger: int) -> int:
        """The balance to seat the user with: the platform's, for a user it keeps."""
        if self.wallet is None or not await self.wallet.keeps(user_id):
            return ledger
        found = await self.wallet.balances([user_id])
        if user_id not in found:
            raise RuleViolation(
                "wallet_unavailable",
                "The platform's wallet did not tell your balance; try again in a moment.",
            )
        return found[user_id]

    def _sit_job(
        self, driver: TableDriver, user_id: int, seat: int, *, away: bool = False
    ) -> tuple[Callable[[], Awaitable[None]], Callable[[float], list[Event]]]:
        """The read of the user's balance (in the table's task) and the sit that uses it."""
        table_id = driver.table_id
        loaded: list[UserInfo] = []

        async def prepare() -> None:
            # Checked again in the task: a round that took the user's coins elsewhere may
            # have closed its betting since the sit was asked.
            self.inflight.verify_free(user_id, table_id)
            user = await asyncio.to_thread(self.store.get_user, user_id)
            auto = await asyncio.to_thread(self.store.auto_open, user_id)
            coins = await self._coins(user_id, user.coins)
            loaded.append(UserInfo(user_id, user.display_name, user.level, coins, auto))

        def run(now: float) -> list[Event]:
            events = driver.table.handle(Sit(user_id, loaded[0], seat), now)
            if away:
                events += driver.table.handle(Disconnect(user_id), now)
            return events

        return prepare, run

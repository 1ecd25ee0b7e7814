"""What a table's events write to the store: shoes, seats, and each round through its money.

A step's events are written in the order they happened, before any is announced: a shoe's
start (its commitment, its sealed seed) and end (the seed), and a round's escrow and payout
(``money``: a settlement is announced only once the ledger accepted it, or replaced by a
void). When a round is voided after the table counted its results, the table's balances are
put back to the ledger's. A balance changed outside the table (an operator's grant) reaches
the table when the next round opens for betting: the seated users' coins are read again
there, after every write of the table's earlier rounds, before anyone can stake them.

Every write carries the table's epoch this node holds (``baccarat.store.epochs``). Once
another node has taken the table over, the database refuses them (``stale_epoch``): the new
owner has already voided the round in escrow, so this node writes nothing more for it.

When the database cannot be reached, each write is retried with its idempotency key until it
is done (``baccarat.server.tables.retry``): the table's task waits on it, so the table pauses and
announces nothing the ledger has not accepted. Writes run one at a time, so the epoch never
changes under a write in flight (``renew_epoch``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping

from baccarat.server.keyfile import Keys
from baccarat.server.metrics import Metrics
from baccarat.server.tables import balances, facts
from baccarat.server.tables.inflight import CoinsInFlight
from baccarat.server.tables.money import RoundMoney
from baccarat.server.tables.retry import TableWrites
from baccarat.server.tables.wallet import Wallet
from baccarat.store import Store
from baccarat.table import Table
from baccarat.table.events import (
    BettingClosed,
    BettingOpened,
    Event,
    RoundSettled,
    ShoeEnded,
    ShoeStarted,
)

log = logging.getLogger("baccarat.server")

_WRITTEN = (RoundSettled, ShoeStarted, ShoeEnded, BettingClosed, BettingOpened)
"""The events ``record`` writes for (or, for ``betting_opened``, reads the balances at)."""


class TableLedger:
    """One table's writes through the store, in the order its events happened."""

    def __init__(
        self,
        table: Table,
        table_id: str,
        store: Store,
        metrics: Metrics,
        epoch: int = 0,
        inflight: CoinsInFlight | None = None,
        clock: Callable[[], float] | None = None,
        keys: Keys | None = None,
    ) -> None:
        self.table = table
        self.keys = keys
        """Seal each new shoe's seed, and sign the commitment log's head (None: neither)."""
        self.table_id = table_id
        self.store = store
        self.writes = TableWrites(store, metrics, table_id, epoch)
        self.clock = clock or asyncio.get_running_loop().time
        self.money = RoundMoney(
            table, self.writes, inflight if inflight is not None else CoinsInFlight(), self.clock
        )
        self._seats: dict[int, int] | None = None
        self.on_away: Callable[[], None] | None = None  # a balance the platform left unconfirmed

    # What the table's other parts read and set, kept by the writes and the round's money.

    @property
    def epoch(self) -> int:
        """The table's epoch this node holds; every write carries it."""
        return self.writes.epoch

    @property
    def fenced(self) -> bool:
        """The database refused this node's epoch: another node runs the table now."""
        return self.writes.fenced

    @property
    def paused(self) -> bool:
        """A write is waiting for the database to answer again."""
        return self.writes.paused

    @property
    def on_paused(self) -> Callable[[], None] | None:
        """Called when ``paused`` changes (the table's time stands still meanwhile)."""
        return self.writes.on_paused

    @on_paused.setter
    def on_paused(self, fn: Callable[[], None] | None) -> None:
        self.writes.on_paused = fn

    @property
    def on_fenced(self) -> Callable[[], None] | None:
        """Called once when another node turns out to hold the table."""
        return self.writes.on_fenced

    @on_fenced.setter
    def on_fenced(self, fn: Callable[[], None] | None) -> None:
        self.writes.on_fenced = fn

    @property
    def wallet(self) -> Wallet | None:
        """The platform's wallet, for the users it keeps (None: the ledger keeps everyone's)."""
        return self.money.wallet

    @wallet.setter
    def wallet(self, wallet: Wallet | None) -> None:
        self.money.wallet = wallet

    @property
    def draining(self) -> bool:
        """Shutting down: take no new stakes."""
        return self.money.draining

    @draining.setter
    def draining(self, on: bool) -> None:
        self.money.draining = on

    @property
    def round_landed(self) -> asyncio.Event:
        """Set while no round is in escrow (what a draining table waits for)."""
        return self.money.round_landed

    @property
    def open_round(self) -> str | None:
        """The round whose stakes are in escrow and not yet settled."""
        return self.money.open_round

    def give_up(self) -> None:
        """Abandon writes the database cannot take now (the table is stopping).

        A round left in escrow stays there until the next node to take the table voids it."""
        self.writes.given_up = True

    async def record(self, events: list[Event]) -> list[Event]:
        """Write what ``events`` require; return them with any events the writing caused."""
        if not any(isinstance(ev, _WRITTEN) for ev in events):
            return events  # nothing to write (a chip, a card): no lock, no wait
        out: list[Event] = []
        todo = list(events)
        async with self.writes.lock:
            while todo:
                ev = todo.pop(0)
                if isinstance(ev, RoundSettled):
                    # Announced only once the ledger has accepted it (or replaced by a void).
                    out.extend(await self._settle(ev))
                    continue
                out.append(ev)
                match ev:
                    # A shoe without a seed (a fixed test shoe) has no commitment to record.
                    case ShoeStarted(shoe_id=shoe_id, commitment=str() as commitment):
                        await self.writes.call(
                            "shoe start",
                            self.store.record_shoe_start,
                            shoe_id,
                            self.table_id,
                            commitment,
                            self._sealed_seed(shoe_id),
                            None if self.keys is None else self.keys.signer,
                        )
                    case ShoeEnded(shoe_id=shoe_id, seed=str() as seed):
                        await self.writes.call(
                            "shoe end", self.store.record_shoe_end, shoe_id, seed
                        )
                    case BettingClosed():
                        now, later = await self.money.escrow(ev)
                        out.extend(now)
                        # Stakes the wallet did not give went back after the whole close
                        # (its deal and squeeze): what that changed comes after it.
                        todo.extend(later)
                    case BettingOpened():
                        out.extend(await self._reload_coins(changed_only=True))
        return out

    async def _settle(self, ev: RoundSettled) -> list[Event]:
        """The settlement as the ledger took it, or its void with the balances put back."""
        settled, undo = await self.money.settle(ev)
        return settled if undo is None else settled + await self._reload_coins(undo=undo)

    def _sealed_seed(self, shoe_id: str) -> str | None:
        """The new shoe's seed sealed for the database, so that the shoe outlives this node."""
        shoe = self.table.shoe
        if self.keys is None or shoe is None or shoe.seed is None or self.table.shoe_id != shoe_id:
            return None
        return self.keys.sealer.seal(shoe.seed, shoe_id)

    async def renew_epoch(self, node_id: str) -> bool:
        """Raise the epoch this node holds, between writes; False if another node has the
        table now (the epoch moved on without this node)."""
        async with self.writes.lock:
            if self.writes.fenced:
                return False
            fresh = await asyncio.to_thread(
                self.store.renew_epoch, self.table_id, node_id, self.writes.epoch
            )
            if fresh is None:
                self.writes.fenced = True
                return False
            self.writes.epoch = fresh
            self._seats = None  # written again under the new epoch
            return True

    def seats_noted(self, seated: dict[int, int]) -> bool:
        """Whether ``note_seats(seated)`` would write nothing."""
        return seated == self._seats or self.writes.fenced

    async def note_seats(self, seated: dict[int, int]) -> None:
        """Keep the database's record of who sits here (seat -> user id) current, so the
        node that takes the table next keeps their seats; best effort, tried again at the
        next change when the database does not answer."""
        if self.seats_noted(seated):
            return
        try:
            if await asyncio.to_thread(self.store.save_seats, self.table_id, self.epoch, seated):
                self._seats = dict(seated)
        except Exception as exc:
            log.warning("seats not recorded", extra={"table_id": self.table_id, "error": str(exc)})

    async def _reload_coins(
        self, *, changed_only: bool = False, undo: Mapping[int, int] | None = None
    ) -> list[Event]:
        """Set the seated users' coins to their wallet's (``balances``): after a voided round
        (``undo``: its results, which the table counted), or as betting opens."""
        seated = list(facts.seated(self.table))
        found = await self.writes.call("balances", self.store.balances, seated)
        wallet = self.money.wallet
        if wallet is not None:
            told = await self.writes.standing_still(balances.confirmed(wallet, seated))
            if balances.unconfirmed(self.table, found, told, undo, self.clock()) and self.on_away:
                self.on_away()
        return balances.set_coins(self.table, self.table_id, found, self.clock(), changed_only)

    async def void_open(self, why: str) -> None:
        """Return the stakes of the round in escrow, if any."""
        await self.money.void_open(why)

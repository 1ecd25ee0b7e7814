"""What a table's events write to the store: shoes, and each round's escrow and payout.

A round's stakes move into escrow when betting closes and out when it settles, each in one
transaction. A round nobody bet on is written the same way (an empty escrow, a settlement of
zeros), so history and the audit see every round dealt.

From the close of betting until its settlement (or void) is committed, a round's users have
coins in flight (:class:`~baccarat.server.tables.inflight.CoinsInFlight`): no other table may seat
them on a balance the settlement is about to change. A settlement is announced
(``round_settled``) only after the ledger accepted it. When the ledger refuses (a table that
disagrees with the ledger: a bug), the round is voided instead: it moves no coin,
``round_voided`` is announced in place of the settlement, and the table's balances are put
back to the ledger's. A balance changed outside the table (an operator's grant) reaches the
table when the next round opens for betting: the seated users' coins are read again there,
after every write of the table's earlier rounds, before anyone can stake them.

Every write carries the table's epoch this node holds (``baccarat.store.epochs``). Once
another node has taken the table over, the database refuses them (``stale_epoch``): the new
owner has already voided the round in escrow, so this node writes nothing more for it.

When the database cannot be reached, each write is retried with its idempotency key until it
is done (``baccarat.server.tables.retry``): the table's task waits on it, so the table pauses and
announces nothing the ledger has not accepted. Writes run one at a time, so the epoch never
changes under a write in flight (``renew_epoch``).

With a platform that keeps its players' coins (``wallet``), their stakes are debited from it
just before the escrow (``stakes``) and what the round left goes back just after it lands.

Every void is counted by its reason (``baccarat_rounds_voided``): the store's reason when this
node writes the void, ``taken_over`` when another node's takeover voided the round, and
``abandoned`` when the table stopped before the database took its stakes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from baccarat.errors import Conflict
from baccarat.protocol import values
from baccarat.server.keyfile import Keys
from baccarat.server.metrics import Metrics
from baccarat.server.tables import balances, facts, stakes
from baccarat.server.tables.inflight import CoinsInFlight
from baccarat.server.tables.retry import until_written
from baccarat.server.tables.wallet import Wallet
from baccarat.store import (
    VOID_ESCROW_REFUSED,
    VOID_SETTLEMENT_REFUSED,
    VOID_SHUTDOWN,
    VOID_WALLET,
    Applied,
    Settle,
    Store,
    Void,
)
from baccarat.store.ops import Op
from baccarat.table import Table
from baccarat.table.events import (
    BettingClosed,
    BettingOpened,
    Event,
    RoundSettled,
    RoundVoided,
    ShoeEnded,
    ShoeStarted,
)

log = logging.getLogger("baccarat.server")

T = TypeVar("T")

VOIDED_TAKEN_OVER = "taken_over"
"""A void counted here that the node taking the table over wrote (as a ``crash``)."""
VOIDED_ABANDONED = "abandoned"
"""A round whose stakes never reached the database: its table stopped meanwhile."""

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
        wallet: Wallet | None = None,
    ) -> None:
        self.table = table
        self.wallet = wallet
        """The platform's wallet, for the users it keeps (None: the ledger keeps everyone's)."""
        self.keys = keys
        """Seal each new shoe's seed, and sign the commitment log's head (None: neither)."""
        self.table_id = table_id
        self.store = store
        self.metrics = metrics
        self.epoch = epoch
        """The table's epoch this node holds; every write carries it."""
        self.inflight = inflight if inflight is not None else CoinsInFlight()
        self.fenced = False
        """The database refused this node's epoch: another node runs the table now."""
        self.on_fenced: Callable[[], None] | None = None
        self.draining = False
        """Shutting down: take no new stakes."""
        self.clock = clock or asyncio.get_running_loop().time
        self.round_landed = asyncio.Event()
        """Set while no round is in escrow (what a draining table waits for)."""
        self.round_landed.set()
        self._open_round: str | None = None
        self.voided: set[str] = set()
        self.paused = False
        """A write is waiting for the database to answer again."""
        self.on_paused: Callable[[], None] | None = None
        """Called when ``paused`` changes (the table's time stands still meanwhile)."""
        self.given_up = False
        """The table is stopping: a write that cannot be done now is abandoned."""
        self._lock = asyncio.Lock()
        self._seats: dict[int, int] | None = None
        self.on_away: Callable[[], None] | None = None  # a balance the platform left unconfirmed

    @property
    def open_round(self) -> str | None:
        """The round whose stakes are in escrow and not yet settled."""
        return self._open_round

    @open_round.setter
    def open_round(self, round_id: str | None) -> None:
        self._open_round = round_id
        if round_id is None:
            self.round_landed.set()
        else:
            self.round_landed.clear()

    def give_up(self) -> None:
        """Abandon writes the database cannot take now (the table is stopping).

        A round left in escrow stays there until the next node to take the table voids it."""
        self.given_up = True

    def _waiting(self, on: bool, *, quiet: bool = False) -> None:
        if on and not self.paused and not quiet:
            log.warning("table paused: waiting for the database", extra={"table_id": self.table_id})
        elif not on and self.paused and not quiet:
            log.warning("table resumed", extra={"table_id": self.table_id})
        changed = on != self.paused
        self.paused = on
        if changed and self.on_paused is not None:
            self.on_paused()

    async def _write(self, op: Op) -> Applied:
        return await until_written(
            lambda: asyncio.wrap_future(self.store.submit(op)),
            given_up=lambda: self.given_up,
            waiting=self._waiting,
            what=op.key,
            retried=self.metrics.ledger_retries.inc,
        )

    async def _call(self, what: str, fn: Callable[..., T], *args: object) -> T:
        return await until_written(
            lambda: asyncio.to_thread(fn, *args),
            given_up=lambda: self.given_up,
            waiting=self._waiting,
            what=what,
            retried=self.metrics.ledger_retries.inc,
        )

    async def record(self, events: list[Event]) -> list[Event]:
        """Write what ``events`` require; return them with any events the writing caused."""
        if not any(isinstance(ev, _WRITTEN) for ev in events):
            return events  # nothing to write (a chip, a card): no lock, no wait
        out: list[Event] = []
        todo = list(events)
        async with self._lock:
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
                        await self._call(
                            "shoe start",
                            self.store.record_shoe_start,
                            shoe_id,
                            self.table_id,
                            commitment,
                            self._sealed_seed(shoe_id),
                            None if self.keys is None else self.keys.signer,
                        )
                    case ShoeEnded(shoe_id=shoe_id, seed=str() as seed):
                        await self._call("shoe end", self.store.record_shoe_end, shoe_id, seed)
                    case BettingClosed():
                        now, later = await self._escrow(ev)
                        out.extend(now)
                        # Stakes the wallet did not give went back after the whole close
                        # (its deal and squeeze): what that changed comes after it.
                        todo.extend(later)
                    case BettingOpened():
                        out.extend(await self._reload_coins(changed_only=True))
        return out

    def _sealed_seed(self, shoe_id: str) -> str | None:
        """The new shoe's seed sealed for the database, so that the shoe outlives this node."""
        shoe = self.table.shoe
        if self.keys is None or shoe is None or shoe.seed is None or self.table.shoe_id != shoe_id:
            return None
        return self.keys.sealer.seal(shoe.seed, shoe_id)

    async def renew_epoch(self, node_id: str) -> bool:
        """Raise the epoch this node holds, between writes; False if another node has the
        table now (the epoch moved on without this node)."""
        async with self._lock:
            if self.fenced:
                return False
            fresh = await asyncio.to_thread(
                self.store.renew_epoch, self.table_id, node_id, self.epoch
            )
            if fresh is None:
                self.fenced = True
                return False
            self.epoch = fresh
            self._seats = None  # written again under the new epoch
            return True

    def seats_noted(self, seated: dict[int, int]) -> bool:
        """Whether ``note_seats(seated)`` would write nothing."""
        return seated == self._seats or self.fenced

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

    async def _escrow(self, ev: BettingClosed) -> tuple[list[Event], list[Event]]:
        """Take the round's stakes: the events to announce with the close, and the events of
        stakes the wallet did not give, to announce after the rest of the close."""
        round_id = ev.round_id
        bets = facts.bet_records(ev)
        if self.draining and bets:
            # No stake is taken now; the round is recorded voided all the same, so that the
            # cards it shows are never dealt again when the shoe is dealt on.
            self.voided.add(round_id)
            await self._record_refused(ev, VOID_SHUTDOWN)
            return [RoundVoided(round_id, "The server is shutting down; no stake was taken.")], []
        # Before the stakes are taken: from now on these balances are the round's until it
        # lands.
        self.inflight.hold(self.table_id, round_id, {ev.dealer, *(b.user_id for b in bets)})
        returned: list[Event] = []
        if self.wallet is not None:
            took = stakes.take(self.table, ev, bets, self.wallet, self.clock)
            taken = await self._standing_still(took)
            if taken is None:
                self.inflight.land(round_id)
                return await self._wallet_refused(ev), []
            bets, returned = taken
        op = facts.escrow_op(ev, self.table_id, bets, self.epoch)
        try:
            await self._write(op)
        except Exception as exc:
            # Nothing moved (escrow is one transaction): the round plays out but settles
            # nothing. Unless another node took the table (or it is stopping), the table
            # believed in stakes the ledger does not hold: a bug.
            self.inflight.land(round_id)
            expected = self._note_fenced(exc) or self.given_up
            log.log(
                logging.WARNING if expected else logging.ERROR,
                "escrow refused; round voided",
                extra={"table_id": self.table_id, "round_id": round_id, "error": str(exc)},
            )
            if not expected:
                await self._record_refused(ev)
            await stakes.give_back(self.wallet, round_id)
            self.voided.add(round_id)
            self.metrics.rounds_voided.labels(self._void_reason(VOID_ESCROW_REFUSED)).inc()
            void = "The stakes could not be taken; this round settles nothing."
            return [RoundVoided(round_id, void)], []
        self.open_round = round_id
        return [], returned

    async def _standing_still(self, call: Awaitable[T]) -> T:
        """A call to the platform's wallet, the table's time standing still meanwhile: no
        countdown (a betting's, a squeeze's) runs while the platform answers."""
        self._waiting(True, quiet=True)
        try:
            return await call
        finally:
            self._waiting(False, quiet=True)

    async def _wallet_refused(self, ev: BettingClosed) -> list[Event]:
        """The platform's wallet did not give what the round needs: it settles nothing."""
        log.info(
            "round called off: the wallet did not give its stakes",
            extra={"table_id": self.table_id, "round_id": ev.round_id},
        )
        await self._record_refused(ev, VOID_WALLET)
        await stakes.give_back(self.wallet, ev.round_id)
        self.voided.add(ev.round_id)
        self.metrics.rounds_voided.labels(VOID_WALLET).inc()
        return [
            RoundVoided(
                ev.round_id, "The platform's wallet did not give the stakes; no coin moved."
            )
        ]

    async def _record_refused(self, ev: BettingClosed, reason: str = VOID_ESCROW_REFUSED) -> None:
        """Keep the round whose stakes were refused in the store, voided, for the audit."""
        op = facts.unescrowed_op(ev, self.table_id, self.epoch, reason)
        try:
            await asyncio.wrap_future(self.store.submit(op))
        except Exception as exc:
            # Refused for a stale epoch is expected: another node took the table (and voids).
            fenced = self._note_fenced(exc)
            log.log(logging.WARNING if fenced else logging.ERROR, "refused round not recorded",
                    extra={"table_id": self.table_id, "round_id": ev.round_id, "error": str(exc)})  # fmt: skip

    async def _settle(self, ev: RoundSettled) -> list[Event]:
        """The settlement to announce once the ledger took it, or what replaces it."""
        round_id = ev.round_id
        if round_id in self.voided:
            # Its void was announced when betting closed; no settlement is announced.
            self.voided.discard(round_id)
            return await self._reload_coins(undo=ev.settlement.deltas)
        if self.open_round != round_id:
            return [ev]
        s = ev.settlement
        op = Settle(
            round_id,
            tuple(values.card(c) for c in ev.cards),
            values.outcome(ev.outcome),
            dict(s.deltas),
            dict(s.commission),
            s.house,
            self.epoch,
        )
        self.open_round = None
        try:
            await self._write(op)
        except Exception as exc:
            try:
                return await self._refused(round_id, exc, ev.settlement.deltas)
            finally:
                self.inflight.land(round_id)
        self.inflight.land(round_id)
        await stakes.give_back(self.wallet, round_id)
        self.metrics.rounds.labels(self.table_id).inc()
        return [ev]

    async def _refused(self, round_id: str, exc: Exception, undo: Mapping[int, int]) -> list[Event]:
        """The ledger refused a settlement (of results ``undo``): what to announce instead."""
        if self._note_fenced(exc):
            # The node that took the table voided this round as it took it.
            log.warning("settlement refused: table taken over", extra={"round_id": round_id})
            self.metrics.rounds_voided.labels(VOIDED_TAKEN_OVER).inc()
            return [
                RoundVoided(round_id, "The table moved to another node; every stake was returned.")
            ]
        # The table disagreed with the ledger: a bug. Give every stake back rather than leave
        # it held, and announce the void, not the settlement.
        log.error(
            "settlement refused; round voided",
            exc_info=exc,
            extra={"table_id": self.table_id, "round_id": round_id},
        )
        await self._write(Void(round_id, self.epoch, VOID_SETTLEMENT_REFUSED))
        await stakes.give_back(self.wallet, round_id)
        self.metrics.rounds_voided.labels(VOID_SETTLEMENT_REFUSED).inc()
        return [
            RoundVoided(round_id, "The round could not be paid out; every stake was returned."),
            *await self._reload_coins(undo=undo),
        ]

    async def _reload_coins(
        self, *, changed_only: bool = False, undo: Mapping[int, int] | None = None
    ) -> list[Event]:
        """Set the seated users' coins to their wallet's (``balances``): after a voided round
        (``undo``: its results, which the table counted), or as betting opens."""
        seated = list(facts.seated(self.table))
        found = await self._call("balances", self.store.balances, seated)
        if self.wallet is not None:
            told = await self._standing_still(balances.confirmed(self.wallet, seated))
            if balances.unconfirmed(self.table, found, told, undo, self.clock()) and self.on_away:
                self.on_away()
        return balances.set_coins(self.table, self.table_id, found, self.clock(), changed_only)

    async def void_open(self, why: str) -> None:
        """Return the stakes of the round in escrow, if any."""
        if self.open_round is None:
            return
        round_id, self.open_round = self.open_round, None
        try:
            async with self._lock:
                await self._write(Void(round_id, self.epoch, VOID_SHUTDOWN))
        except Exception as exc:
            self.inflight.land(round_id)
            if self._note_fenced(exc):
                return  # taken over: the new owner voided the round as it took the table
            if not self.given_up:
                raise
            log.warning(
                "round left in escrow for the next node to void",
                extra={"table_id": self.table_id, "round_id": round_id},
            )
            return
        self.inflight.land(round_id)
        await stakes.give_back(self.wallet, round_id)
        self.metrics.rounds_voided.labels(VOID_SHUTDOWN).inc()
        log.info(f"round voided at {why}", extra={"table_id": self.table_id, "round_id": round_id})

    def _void_reason(self, otherwise: str) -> str:
        """Why a round whose write failed is void: taken over, abandoned, or ``otherwise``."""
        if self.fenced:
            return VOIDED_TAKEN_OVER
        return VOIDED_ABANDONED if self.given_up else otherwise

    def _note_fenced(self, exc: BaseException) -> bool:
        """Whether ``exc`` says another node holds the table now (remembered, and told once
        to ``on_fenced``: the table stops here)."""
        if not self.fenced and isinstance(exc, Conflict) and exc.code == "stale_epoch":
            self.fenced = True
            if self.on_fenced is not None:
                self.on_fenced()
        return self.fenced

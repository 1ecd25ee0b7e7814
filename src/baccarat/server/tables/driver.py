"""One asyncio task per table: it drives the pure table with the loop's clock.

Every change to a table happens one step at a time, in its task: a job runs a command (or
builds a snapshot) at ``loop.time()``, the task writes what must be written through the
store (``TableLedger``), then publishes the events, each public one with the next ``seq``.
Between jobs the task sleeps until the table's next deadline and calls ``advance``. A
command that writes nothing (a chip) may run its step in its own task instead, while the
table's task sleeps with nothing due (``submit(inline=True)``); the table's task then waits
for that step before its next. Because nothing else touches the table, a snapshot is always
consistent with the ``seq`` it carries.

A job may first read the store (``prepare``): the task runs that read after every write the
table's earlier steps caused, and runs the job at the moment the read began, so what the
job hands the table (a user's balance, say) is never older than the table's own writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from asyncio import FIRST_COMPLETED
from collections.abc import Awaitable, Callable

from baccarat.cluster.outage import log_failure
from baccarat.errors import BaccaratError, InternalError, RuleViolation
from baccarat.protocol.lobby import LobbyLine
from baccarat.server.keyfile import Keys
from baccarat.server.metrics import Metrics
from baccarat.server.sockets.connection import Connection
from baccarat.server.sockets.hub import Hub
from baccarat.server.sockets.replies import OK, Reply
from baccarat.server.tables import facts
from baccarat.server.tables.clock import TableClock
from baccarat.server.tables.hold import Hold
from baccarat.server.tables.inflight import CoinsInFlight
from baccarat.server.tables.jobs import Job, JobQueue, stop_job
from baccarat.server.tables.ledger import TableLedger
from baccarat.server.tables.publisher import Publisher
from baccarat.server.tables.seatmap import SeatMap
from baccarat.server.tables.squeezes import CLOCK_TICK, SqueezeMoves
from baccarat.store import Store
from baccarat.table import Command, Event, SqueezeProgress, Table
from baccarat.table.events import DealerTurn, SeatFreed

log = logging.getLogger("baccarat.server")

_CHOSEN = ("stood_up", "moved")
"""Why a seat is freed when its user asked for it (not logged)."""

SQUEEZE_INTERVAL = 0.1
"""By default at most 10 squeeze moves per second per hand reach the table (and every
screen); the latest wins. The viewers' screens ease the peel over the time between two
moves, so it moves smoothly, and the peel moves are most of a table's frames: twice as many
would cost twice the CPU. The ``[server]`` setting ``squeeze_rate`` changes it."""

CLOSE_POLL = 0.05
"""Seconds between looks at a closing table's round (a planned stop only)."""


class TableDriver:
    """The live table: its task, its job queue, its public event counter."""

    def __init__(
        self,
        table: Table,
        *,
        table_id: str,
        room_id: str,
        names: dict[str, str] | None = None,
        hub: Hub,
        seats: SeatMap | None = None,
        store: Store,
        metrics: Metrics,
        epoch: int = 0,
        inflight: CoinsInFlight | None = None,
        clock: Callable[[], float] | None = None,
        squeeze_interval: float = SQUEEZE_INTERVAL,
        keys: Keys | None = None,
    ) -> None:
        self.table = table
        self.table_id = table_id
        self.room_id = room_id
        self.names = names or {"zh-TW": table_id, "en": table_id}
        """The table's name in each language the clients speak."""
        self.hub = hub
        self.seats = seats if seats is not None else SeatMap()
        """Where the node records who sits where (``Seating``'s)."""
        self.metrics = metrics
        self.out = Publisher(table, table_id, hub)
        """The table's outgoing events, numbered, and each user's ``me``."""
        self.loop = asyncio.get_running_loop()
        self.clock = TableClock(clock or self.loop.time)
        """The table's time, which stands still while the table is held."""
        self.queue = JobQueue(self.clock.base, CLOCK_TICK)
        """Jobs waiting for the task, and its idle wait."""
        self._inline: asyncio.Future[None] | None = None
        """Done when the step a command runs in its own task (``submit(inline=True)``) ends;
        the table's task waits for it before its own next step."""
        self.task: asyncio.Task[None] | None = None
        self.accepting = True
        self.store = store
        self.ledger = TableLedger(
            table, table_id, store, metrics, epoch, inflight, self.clock, keys=keys
        )
        self.hold = Hold(table, self.clock, self.ledger, lambda: self._post(None))
        """Whether the table's time stands still (a test's hold, a database that waits)."""
        self.on_dealer_turn: Callable[[int], None] | None = None
        """Called with the user of each ``dealer_turn`` event: the server seats them."""
        self._line_key: tuple[object, ...] | None = None
        """What the lobby line was made of when the table was last marked changed."""
        self.moves = SqueezeMoves(squeeze_interval)
        self.on_recorded: Callable[[list[Event]], Awaitable[None]] | None = None
        """Awaited with the events written, before they go out (the rollback guard's). None
        by default: a step with nothing to write must not give up its turn of the loop."""

    # -- the task ---------------------------------------------------------------------

    def start(self) -> None:
        """Start the table's task."""
        self.task = asyncio.create_task(self._main(), name=f"table-{self.table_id}")

    @property
    def base_clock(self) -> Callable[[], float]:
        """The loop's clock, or a test's: the squeeze moves' pace and the task's timers."""
        return self.clock.base

    @base_clock.setter
    def base_clock(self, clock: Callable[[], float]) -> None:
        self.clock.base = self.queue.base_clock = clock

    @property
    def running(self) -> bool:
        """Whether the task is alive."""
        return self.task is not None and not self.task.done()

    def _wake_at(self) -> float | None:
        # On the base clock: a table's deadline waits while it is held.
        due = self.table.next_deadline
        due = None if due is None or self.hold.held else self.clock.on_base(due)
        flush = self.moves.next_due()
        if flush is not None:
            due = flush if due is None else min(due, flush)
        return due

    async def _main(self) -> None:
        self.hub.changed.add(self.table_id)
        while True:
            job = await self.queue.next(self._wake_at())
            while self._inline is not None:
                # A command's step runs in its own task (``submit``): one step at a time.
                await asyncio.shield(self._inline)
            if job is None:
                await self._timed_step()
                continue
            if job.run is stop_job:
                job.done.set_result(None)
                return
            await self._guarded(job)

    async def _timed_step(self) -> None:
        """A step no command asked for; how long after its due time its events went out
        (the loop's lag, a ledger write) is what every watcher waited."""
        due = self._wake_at()
        await self._guarded(None)
        # Within a tick is on time; a step woken early (a deadline moved) was late for nothing.
        late = None if due is None else self.base_clock() - due
        if late is not None and late > -CLOCK_TICK:
            self.metrics.delivery.observe(max(late, 0.0))

    def _post(self, job: Job | None) -> None:
        self.queue.post(job)

    async def _guarded(self, job: Job | None) -> None:
        # A bug in one step must not stop the table for good.
        try:
            await self._step(job)
        except Exception as exc:
            log_failure(log, "table step failed", exc, {"table_id": self.table_id})
            if job is not None and not job.done.done():
                job.done.set_exception(InternalError())

    async def _step(self, job: Job | None) -> None:
        now = self.hold.stepped_at = self.clock()
        events, answers, failure = await self._run(job, now)
        # Answered with the events, in the same write, when the seats need no writing first.
        reply = job.reply if job is not None else None
        replied = reply is not None and self.ledger.seats_noted(self._seat_users())
        if replied and reply is not None:
            answers.append(functools.partial(reply, OK if failure is None else failure))
        await self._commit(events, answers)
        self.hold.check(stepped=True)
        if job is not None:
            self._answer(job, failure, replied=replied)

    async def _run(
        self, job: Job | None, now: float
    ) -> tuple[list[Event], list[Callable[[], None]], BaccaratError | None]:
        """What fell due, the squeeze moves waiting, then the job: the step's events, the
        answers to send after them, and why the job was refused (None if it was not)."""
        events: list[Event] = []
        answers: list[Callable[[], None]] = []
        try:
            due = self.table.next_deadline
            if due is not None and now >= due - CLOCK_TICK:
                # Within a tick of it: the step is at the deadline (the table's own test).
                now = max(now, due)
                events.extend(self.table.advance(now))
            # A command comes after the moves sent before it (an open after the last peel).
            force = job is not None
            events.extend(
                self.moves.flush(self.table, now, self.base_clock(), answers, force=force)
            )
            if job is not None and job.prepare is not None:
                # What fell due is written first, so the read sees it; the job then runs at
                # ``now``, when nothing is due, as if the read had taken no time.
                await self._commit(events, answers)
                events, answers = [], []
                await job.prepare()
            if job is not None:
                events.extend(job.run(now))
        except BaccaratError as exc:
            return events, answers, exc
        except Exception as exc:
            log_failure(log, "table job failed", exc, {"table_id": self.table_id})
            return events, answers, InternalError()
        return events, answers, None

    def _answer(self, job: Job, failure: BaccaratError | None, *, replied: bool) -> None:
        """Answer a job once its step's events are out: its reply (unless it went with the
        events), what it runs after, and whoever waits for it."""
        if job.reply is not None and not replied:
            # Answered here, in order with the events (a snapshot follows its ack).
            job.reply(OK if failure is None else failure)
        if failure is None and job.after is not None:
            job.after()
        if not job.done.done():
            if failure is None or job.reply is not None:
                job.done.set_result(None)
            else:
                job.done.set_exception(failure)

    async def _commit(self, events: list[Event], answers: list[Callable[[], None]]) -> None:
        """Write what ``events`` require, then publish them (and what the writing caused),
        then send ``answers`` (the peel moves' acks, after the events they made)."""
        if not events and not answers:
            return
        if events:
            try:
                events = await self.ledger.record(events)
            except Exception as exc:
                # Only a table that is stopping gets here (the ledger retries a database that
                # does not answer): announce nothing the ledger has not accepted.
                log_failure(log, "persisting failed", exc, {"table_id": self.table_id})
                events = []
        if self.on_recorded is not None:
            await self.on_recorded(events)
        # A step's events, the ``me`` they change and its acks reach each client in one write.
        with self.hub.corked(self.table_id):
            self._publish(events)
            for answer in answers:
                answer()
        if any(type(ev) not in facts.SEATS_UNCHANGED for ev in events):
            self._after_change()
            await self.ledger.note_seats(self._seat_users())

    def _seat_users(self) -> dict[int, int]:
        # Seat -> user id, as the ledger records the seats.
        return {s: u for u, s in facts.seated(self.table).items()}

    # -- jobs -------------------------------------------------------------------------

    async def submit(
        self,
        run: Callable[[float], list[Event]],
        *,
        reply: Reply | None = None,
        after: Callable[[], None] | None = None,
        prepare: Callable[[], Awaitable[None]] | None = None,
        inline: bool = False,
    ) -> None:
        """Run ``run`` in the table's task (after ``prepare``, if given, has read the store).

        With ``reply`` the task answers the command (ack or error) and a refusal is not
        raised here; without, a refusal is raised to the caller.

        With ``inline`` (a command that writes nothing, such as a chip) and the table's task
        asleep with nothing due, the step runs at once in the caller's task: its events go
        out in the same turn of the loop as the command was read, not one turn later. The
        table's task stays asleep, and waits for that step if it wakes meanwhile.
        """
        if not self.accepting or not self.running:
            raise RuleViolation("table_closed", "The table is closing; try again later.")
        job = Job(run, reply, after, prepare)
        if inline and prepare is None and self._idle():
            await self._step_inline(job)
        else:
            self._post(job)
        await job.done

    def _idle(self) -> bool:
        # The task sleeps, no job waits, no step runs elsewhere, and nothing falls due: a
        # step now is this job's alone.
        if not self.queue.idle or self._inline is not None:
            return False
        due = self._wake_at()
        return due is None or self.base_clock() < due - CLOCK_TICK

    async def _step_inline(self, job: Job) -> None:
        self._inline = self.loop.create_future()
        try:
            await self._guarded(job)
        finally:
            ended, self._inline = self._inline, None
            ended.set_result(None)
            # The step may have set a deadline before the sleeping task's timer.
            due = self._wake_at()
            if due is not None:
                self._step_by(due)

    def command(self, cmd: Command) -> Callable[[float], list[Event]]:
        """A job that hands one command to the table."""
        return lambda now: self.table.handle(cmd, now)

    def squeeze(self, cmd: SqueezeProgress, reply: Reply) -> None:
        """Coalesce squeeze moves: at most one per hand every ``squeeze_interval`` reaches
        the table.

        A move replaced by a later one before it reached the table is acknowledged with
        ``coalesced: true``; the one that reaches it is answered like any command.
        """
        if not self.accepting:
            raise RuleViolation("table_closed", "The table is closing; try again later.")
        due = self.moves.put(cmd, reply)
        if due is not None:
            # A move that replaces another is due when that one was.
            self._step_by(due)

    def _step_by(self, due: float) -> None:
        """Make the task step at ``due`` at the latest: its timer moved up while it sleeps,
        or woken now when ``due`` has come."""
        if not self.queue.wake_by(due):
            self._post(None)

    @property
    def seq(self) -> int:
        """The number of the last public event published."""
        return self.out.seq

    async def watch(
        self, conn: Connection, *, reply: Reply | None = None, level: int | None = None
    ) -> None:
        """Make ``conn`` watch the table: the ack (with ``reply``), then a snapshot.

        With ``level``, a user below the room's level is refused (``level_too_low``).
        """

        def check(now: float) -> list[Event]:
            if level is not None:
                self.table.verify_entry(level)
            return []

        await self.submit(check, reply=reply, after=lambda: self.show(conn))

    def show(self, conn: Connection) -> None:
        """Make ``conn`` watch the table and send it a snapshot (call only inside the task,
        so that the snapshot's ``seq`` is the last one published)."""
        self.out.show(conn, self.clock())

    # -- publishing -------------------------------------------------------------------

    def _publish(self, events: list[Event]) -> None:
        for ev in events:
            if isinstance(ev, DealerTurn) and self.on_dealer_turn is not None:
                self.on_dealer_turn(ev.user_id)
            elif isinstance(ev, SeatFreed) and ev.reason not in _CHOSEN:
                # The table, not the user, freed the seat: what an operator asks after.
                log.info(
                    "seat freed",
                    extra={"table_id": self.table_id, "user_id": ev.user_id, "reason": ev.reason},
                )
        sent = self.out.publish(events, self.clock())
        # Counted once a step: the counter takes a lock each time.
        if sent:
            self.metrics.deliveries.inc(sent)

    def _after_change(self) -> None:
        self.seats.record(self.table_id, facts.seated(self.table))
        # The lobby rebuilds the line when it next looks (at most once a second), only if
        # what it is made of changed: most steps are chips, which change no line.
        key = facts.line_key(self.table)
        if key != self._line_key:
            self._line_key = key
            self.hub.changed.add(self.table_id)

    def line(self) -> LobbyLine:
        """The table's line in the lobby, as it stands."""
        return facts.lobby_line(
            self.table,
            self.table_id,
            self.room_id,
            self.names,
            len(self.hub.watchers.get(self.table_id, ())),
        )

    # -- shutdown ---------------------------------------------------------------------

    async def close(self, grace: float) -> None:
        """A planned stop: close the table (no round starts again; the round in play
        finishes, its cards opened at once) and wait up to ``grace`` for that round to be
        settled; then stop. Nothing is voided unless the grace runs out."""
        if self.running and self.accepting:
            job = Job(self.table.close)
            self._post(job)
            with contextlib.suppress(Exception):
                await job.done
            loop = asyncio.get_running_loop()
            until = loop.time() + grace
            while self.running and loop.time() < until and not self._round_over():
                await asyncio.sleep(CLOSE_POLL)
        await self.stop(0.0)

    def _round_over(self) -> bool:
        # No round, or its settlement written: what a closing table waits for.
        rnd = self.table.round
        return (rnd is None or rnd.settled) and self.ledger.round_landed.is_set()

    async def stop(self, grace: float) -> None:
        """Let a round in escrow finish within ``grace`` (no new seats, no new stakes taken),
        then stop taking commands; a round still in escrow is voided."""
        self.ledger.draining = True
        if self.task is not None and not self.task.done():
            landed = asyncio.ensure_future(self.ledger.round_landed.wait())
            # The round lands, the grace runs out, or the task dies: whichever comes first.
            await asyncio.wait((landed, self.task), timeout=grace, return_when=FIRST_COMPLETED)
            landed.cancel()
        self.accepting = False
        # A write still waiting for the database is abandoned: the round stays in escrow
        # for the next node to take the table to void.
        self.ledger.give_up()
        if self.running:
            job = Job(stop_job)
            self._post(job)
            await job.done
        await self.ledger.void_open("shutdown")

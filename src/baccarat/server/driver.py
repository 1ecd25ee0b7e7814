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
import time
from asyncio import FIRST_COMPLETED
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from baccarat.errors import BaccaratError, InternalError, RuleViolation
from baccarat.server import facts
from baccarat.server.connection import Connection
from baccarat.server.hub import Hub
from baccarat.server.inflight import CoinsInFlight
from baccarat.server.ledger import TableLedger
from baccarat.server.metrics import Metrics
from baccarat.server.protocol import dumps, event, snapshot
from baccarat.server.replies import OK, Ack, Reply
from baccarat.store import Store
from baccarat.table import Command, Event, SqueezeProgress, Table, view, wire
from baccarat.table.events import DealerTurn, recipient
from baccarat.table.view import PERSONAL_UNCHANGED, Personal, personal, personal_keys

log = logging.getLogger("baccarat.server")

SQUEEZE_INTERVAL = 0.1
"""By default at most 10 squeeze moves per second per hand reach the table (and every
screen); the latest wins. The viewers' screens ease the peel over the time between two
moves, so it moves smoothly, and the peel moves are most of a table's frames: twice as many
would cost twice the CPU. The ``[server]`` setting ``squeeze_rate`` changes it."""

CLOCK_TICK = 0.001
"""The loop's clock and timers count whole milliseconds (uvloop's do): a time less than one
tick away counts as come. Otherwise a timer that fires on its tick, a rounding short of the
time it was set for, wakes the task again and again, with nothing to do, until the clock's
next tick (hundreds of empty steps for one peel move on an idle loop)."""

CLOSE_POLL = 0.05
"""Seconds between looks at a closing table's round (a planned stop only)."""


@dataclass
class Job:
    """Work for the table's task: ``run(now)`` returns the events it caused.

    The task hands the outcome to ``reply`` (an ack, or the refusal) once the events are
    out, then runs ``after`` if the job was carried out."""

    run: Callable[[float], list[Event]]
    reply: Reply | None = None
    after: Callable[[], None] | None = None
    prepare: Callable[[], Awaitable[None]] | None = None
    """Read what ``run`` needs, in the task, after the table's earlier writes landed."""
    done: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


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
        store: Store,
        metrics: Metrics,
        epoch: int = 0,
        inflight: CoinsInFlight | None = None,
        clock: Callable[[], float] | None = None,
        squeeze_interval: float = SQUEEZE_INTERVAL,
    ) -> None:
        self.table = table
        self.table_id = table_id
        self.room_id = room_id
        self.names = names or {"zh-TW": table_id, "en": table_id}
        """The table's name in each language the clients speak."""
        self.hub = hub
        self.metrics = metrics
        self.seq = 0
        self.loop = asyncio.get_running_loop()
        self.base_clock = clock or self.loop.time
        """The loop's clock, or a test's: the squeeze moves' pace and the task's timers."""
        self._lag = 0.0
        """How far the table's time lags the base clock: the holds' total so far."""
        self._held_at: float | None = None
        """The table's time at which a hold froze it (see ``hold_at``)."""
        self._hold_phase: str | None = None
        self.jobs: deque[Job] = deque()
        """Jobs waiting for the task, oldest first."""
        self._waiter: asyncio.Future[None] | None = None
        """What the idle task awaits: done when a job comes or a squeeze move falls due."""
        self._timer: asyncio.TimerHandle | None = None
        self._inline: asyncio.Future[None] | None = None
        """Done when the step a command runs in its own task (``submit(inline=True)``) ends;
        the table's task waits for it before its own next step."""
        self._wakes_at: float | None = None
        """When the idle task's timer wakes it (the base clock), None without a timer."""
        self.task: asyncio.Task[None] | None = None
        self.accepting = True
        self.store = store
        self.ledger = TableLedger(table, table_id, store, metrics, epoch, inflight, self.clock)
        # A table waiting on its database keeps its time: a squeeze's countdown resumes
        # with the database, rather than running out while nothing could happen.
        self.ledger.on_paused = self._check_hold
        self._stepped_at = 0.0
        """The table's time the current step began at (when its write may have to wait)."""
        self.on_dealer_turn: Callable[[int], None] | None = None
        """Called with the user of each ``dealer_turn`` event: the server seats them."""
        self._personal: dict[int, Personal] = {}
        """The last ``me`` each seated user was sent (see ``_publish_personal``)."""
        self._personal_key: dict[int, tuple[object, ...]] = {}
        """What each bettor's last ``me`` was made of (``view.personal_key``)."""
        self._line_key: tuple[object, ...] | None = None
        """What the lobby line was made of when the table was last marked changed."""
        self._squeeze: dict[str, SqueezeProgress] = {}
        self._squeeze_reply: dict[str, Reply] = {}
        self._squeeze_last: dict[str, float] = {}
        self.squeeze_interval = squeeze_interval
        """Seconds between two squeeze moves of a hand that reach the table, at least."""

    # -- the task ---------------------------------------------------------------------

    def start(self) -> None:
        """Start the table's task."""
        self.task = asyncio.create_task(self._main(), name=f"table-{self.table_id}")

    def clock(self) -> float:
        """The table's time (seconds): the base clock, less the time it was held."""
        if self._held_at is not None:
            return self._held_at
        return self.base_clock() - self._lag

    @property
    def running(self) -> bool:
        """Whether the task is alive."""
        return self.task is not None and not self.task.done()

    def _wake_at(self) -> float | None:
        # On the base clock: a table's deadline waits while it is held.
        due = self.table.next_deadline
        due = None if due is None or self._held_at is not None else due + self._lag
        if self._squeeze:
            flush = min(
                self._squeeze_last.get(h, -1.0) + self.squeeze_interval for h in self._squeeze
            )
            due = flush if due is None else min(due, flush)
        return due

    async def _main(self) -> None:
        self.hub.changed.add(self.table_id)
        while True:
            job = await self._next_job()
            while self._inline is not None:
                # A command's step runs in its own task (``submit``): one step at a time.
                await asyncio.shield(self._inline)
            if job is None:
                await self._guarded(None)
                continue
            if job.run is _STOP:
                job.done.set_result(None)
                return
            await self._guarded(job)

    async def _next_job(self) -> Job | None:
        # The oldest job, or None once the table's next deadline (or a squeeze move) is due.
        # The task sleeps on a bare future that ``_post`` completes: a job posted reaches
        # the table at the loop's next turn, with no task or timer made per job.
        if not self.jobs:
            due = self._wake_at()
            timeout = None if due is None else due - self.base_clock()
            if timeout is None or timeout > CLOCK_TICK:
                waiter = self._waiter = self.loop.create_future()
                if due is not None and timeout is not None:
                    self._arm(waiter, due, timeout)
                try:
                    await waiter
                finally:
                    self._waiter = None
                    self._wakes_at = None
                    if self._timer is not None:
                        self._timer.cancel()
                        self._timer = None
            else:
                # Overdue: let the rest of the loop run before the step, whatever happens.
                await asyncio.sleep(0)
        return self.jobs.popleft() if self.jobs else None

    def _post(self, job: Job | None) -> None:
        # A job for the task (None: only look at the deadlines again).
        if job is not None:
            self.jobs.append(job)
        if self._waiter is not None:
            _wake(self._waiter)

    async def _guarded(self, job: Job | None) -> None:
        # A bug in one step must not stop the table for good.
        try:
            await self._step(job)
        except Exception:
            log.exception("table step failed", extra={"table_id": self.table_id})
            if job is not None and not job.done.done():
                job.done.set_exception(InternalError())

    async def _step(self, job: Job | None) -> None:
        now = self._stepped_at = self.clock()
        events: list[Event] = []
        answers: list[Callable[[], None]] = []
        failure: BaccaratError | None = None
        try:
            due = self.table.next_deadline
            if due is not None and now >= due - CLOCK_TICK:
                # Within a tick of it: the step is at the deadline (the table's own test).
                now = max(now, due)
                events.extend(self.table.advance(now))
            # A command comes after the moves sent before it (an open after the last peel).
            force = job is not None
            events.extend(self._flush_squeeze(now, answers, force=force))
            if job is not None and job.prepare is not None:
                # What fell due is written first, so the read sees it; the job then runs at
                # ``now``, when nothing is due, as if the read had taken no time.
                await self._commit(events, answers)
                events, answers = [], []
                await job.prepare()
            if job is not None:
                events.extend(job.run(now))
        except BaccaratError as exc:
            failure = exc
        except Exception:
            log.exception("table job failed", extra={"table_id": self.table_id})
            failure = InternalError()
        reply = job.reply if job is not None else None
        if reply is not None and self.ledger.seats_noted(self._seat_users()):
            # Answered with the events, in the same write (the seats need no writing first).
            answers.append(functools.partial(reply, OK if failure is None else failure))
            reply = None
        await self._commit(events, answers)
        self._check_hold()
        if job is not None:
            if reply is not None:
                # Answered here, in order with the events (a snapshot follows its ack).
                reply(OK if failure is None else failure)
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
            except Exception:
                # Only a table that is stopping gets here (the ledger retries a database that
                # does not answer): announce nothing the ledger has not accepted.
                log.exception("persisting failed", extra={"table_id": self.table_id})
                events = []
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
        waiter = self._waiter
        if waiter is None or waiter.done() or self.jobs or self._inline is not None:
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

    # -- holds: the browser tests' breakpoints (``baccarat serve --test-hooks``) ---------

    @property
    def held(self) -> bool:
        """Whether the table's time stands still (a hold)."""
        return self._held_at is not None

    def hold_at(self, phase: str | None) -> None:
        """Hold the table whenever it is in ``phase`` (now, or when it next comes to it): its
        time stands still there, so the phase lasts, with the time it had left, until
        ``release``. Commands and peel moves go on as usual; one that moves the table on
        (a card opened) lets its time run until it comes to ``phase`` again. None releases."""
        self._hold_phase = phase
        self._check_hold()

    def release(self) -> None:
        """Let the table's time run on from where it stood."""
        self.hold_at(None)

    def _check_hold(self) -> None:
        # After every step, and when the ledger starts or stops waiting for the database:
        # freeze the table's time in the held phase or while the database does not answer
        # (from the step whose write waits), thaw it otherwise.
        paused = self.ledger.paused
        holding = paused or (self._hold_phase is not None and self.table.phase == self._hold_phase)
        if holding and self._held_at is None:
            self._held_at = min(self.clock(), self._stepped_at) if paused else self.clock()
        elif not holding and self._held_at is not None:
            self._lag = self.base_clock() - self._held_at
            self._held_at = None
            self._post(None)

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
        replaced = self._squeeze_reply.get(cmd.hand)
        if replaced is not None:
            replaced(Ack({"coalesced": True}))
        self._squeeze[cmd.hand] = cmd
        self._squeeze_reply[cmd.hand] = reply
        if replaced is None:
            # A move that replaces another is due when that one was.
            self._step_by(self._squeeze_last.get(cmd.hand, -1.0) + self.squeeze_interval)

    def _step_by(self, due: float) -> None:
        """Make the task step at ``due`` at the latest: its timer moved up while it sleeps,
        or woken now when ``due`` has come."""
        if not self._wake_by(due):
            self._post(None)

    def _wake_by(self, due: float) -> bool:
        """Make the idle task wake at ``due`` at the latest, without waking it now; False
        when ``due`` has come (or the task is busy: it looks at its deadlines next anyway)."""
        waiter = self._waiter
        if waiter is None or waiter.done():
            return False
        timeout = due - self.base_clock()
        if timeout <= CLOCK_TICK:
            return False
        if self._wakes_at is None or due < self._wakes_at:
            self._arm(waiter, due, timeout)
        return True

    def _arm(self, waiter: asyncio.Future[None], due: float, timeout: float) -> None:
        # The idle task's one timer: it wakes the task at ``due`` (``timeout`` from now).
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_later(timeout, _wake, waiter)
        self._wakes_at = due

    def _flush_squeeze(
        self, now: float, answers: list[Callable[[], None]], *, force: bool = False
    ) -> list[Event]:
        # Each move's answer goes into ``answers``: sent once its events are published.
        # Paced on the base clock, so that the moves go on while the table is held.
        events: list[Event] = []
        base = self.base_clock()
        for hand, cmd in list(self._squeeze.items()):
            due = self._squeeze_last.get(hand, -1.0) + self.squeeze_interval
            if not force and base < due - CLOCK_TICK:
                continue
            del self._squeeze[hand]
            reply = self._squeeze_reply.pop(hand)
            self._squeeze_last[hand] = base
            try:
                events.extend(self.table.handle(cmd, now))
            except BaccaratError as exc:
                answers.append(functools.partial(reply, exc))
            else:
                answers.append(functools.partial(reply, OK))
        return events

    def snapshot_for(self, conn: Connection, now: float) -> dict[str, object]:
        """The table's snapshot for the user of ``conn`` (call only inside the task)."""
        return snapshot(self.table_id, self.seq, time.time(), view(self.table, conn.user_id, now))

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
        self.hub.watch(conn, self.table_id)
        conn.send(dumps(self.snapshot_for(conn, self.clock())))

    # -- publishing -------------------------------------------------------------------

    def _publish(self, events: list[Event]) -> None:
        now = self.clock()
        sent = 0
        for ev in events:
            if isinstance(ev, DealerTurn) and self.on_dealer_turn is not None:
                self.on_dealer_turn(ev.user_id)
            kind, data = wire.event_wire(ev, now)
            to = recipient(ev)
            if to is None:
                self.seq += 1
                n = self.hub.to_table(self.table_id, event(self.table_id, self.seq, kind, data))
            else:
                msg = event(self.table_id, self.seq, kind, data, private=True)
                n = self.hub.to_user_at(to, self.table_id, msg)
            sent += n
        # A step without events may still change someone's own part (自動開牌 is nobody
        # else's business, so it has no event): only the deal and the chat change nobody's.
        if not events or any(type(ev) not in PERSONAL_UNCHANGED for ev in events):
            sent += self._publish_personal(now)
        # Counted once a step: the counter takes a lock each time.
        if sent:
            self.metrics.deliveries.inc(sent)

    def _publish_personal(self, now: float) -> int:
        """Send each seated or queued user (and each who just left) their ``me`` when it
        changed. With it a client keeps its whole view from events, without a snapshot.
        Returns the deliveries made.
        """
        sent = 0
        queued = {w.user_id for w in self.table.queue}
        users = set(self._personal) | set(facts.seated(self.table)) | queued
        keys = personal_keys(self.table, users, now)
        for user_id in users:
            # A bettor whose ``me`` is made of the same things as last time has the same.
            key = keys[user_id]
            if key is not None and key == self._personal_key.get(user_id):
                continue
            own = personal(self.table, user_id, now)
            if own == self._personal.get(user_id):
                self._remember_key(user_id, key)
                continue
            if own["me"]["seat"] is None and own["me"]["queue_position"] is None:
                self._personal.pop(user_id, None)
            else:
                self._personal[user_id] = own
            self._remember_key(user_id, key)
            msg = event(self.table_id, self.seq, "me", own, private=True)
            sent += self.hub.to_user_at(user_id, self.table_id, msg)
        return sent

    def _remember_key(self, user_id: int, key: tuple[object, ...] | None) -> None:
        # Kept only beside a ``me`` that was sent: the key stands for that ``me``.
        if key is None or user_id not in self._personal:
            self._personal_key.pop(user_id, None)
        else:
            self._personal_key[user_id] = key

    def _after_change(self) -> None:
        self.hub.set_seats(self.table_id, facts.seated(self.table))
        # The lobby rebuilds the line when it next looks (at most once a second), only if
        # what it is made of changed: most steps are chips, which change no line.
        key = facts.line_key(self.table)
        if key != self._line_key:
            self._line_key = key
            self.hub.changed.add(self.table_id)

    def line(self) -> dict[str, object]:
        """The table's line in the lobby, as it stands."""
        return facts.lobby_table(
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
            job = Job(_STOP)
            self._post(job)
            await job.done
        await self.ledger.void_open("shutdown")


def _STOP(now: float) -> list[Event]:
    return []


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)

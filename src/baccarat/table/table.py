"""The table: a sans-I/O state machine of seats and rounds.

Commands go in with the driver's ``now`` and events come out; :meth:`Table.advance` fires
whatever timer is due and :attr:`Table.next_deadline` says when to call it next. Every
command checks everything before it changes anything, so a rejected command changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from baccarat.bets import Area
from baccarat.errors import InvalidInput, RuleViolation
from baccarat.roads.marks import RoundMark
from baccarat.shoe import Shoe
from baccarat.table import (
    betting,
    betting_close,
    chat,
    dealing,
    occupants,
    queue,
    rebet,
    shoes,
    sitting,
    squeezing,
    unstake,
)
from baccarat.table.commands import (
    ClearBets,
    Command,
    Disconnect,
    Double,
    Emote,
    JoinQueue,
    LeaveQueue,
    OpenCard,
    PlaceChip,
    Rebet,
    Reconnect,
    Resume,
    Say,
    SetAutoOpen,
    SetCoins,
    Sit,
    SqueezeProgress,
    StandUp,
    Suspend,
    Undo,
    Unstake,
    Urge,
    WalletAway,
)
from baccarat.table.events import (
    Closing,
    DealerLeaving,
    Event,
    Resumed,
    SeatFreed,
    Suspended,
)
from baccarat.table.seats import Occupant
from baccarat.table.state import Phase, TableState

__all__ = ["HANDLERS", "Phase", "Table"]


class Table(TableState):
    """One baccarat table. Read its attributes freely; change it only through commands."""

    def can_bet(self, user_id: int, area: Area, chip: int, now: float) -> bool:
        """Whether ``user_id`` may place ``chip`` on ``area`` now (to grey out a button)."""
        try:
            betting.check_chip(self, PlaceChip(user_id, area, chip), now)
        except (InvalidInput, RuleViolation):
            return False
        return True

    # ----------------------------------------------------------------- closing

    def resume_shoe(
        self, shoe_id: str, shoe: Shoe, history: list[RoundMark], last_round_no: int = 0
    ) -> None:
        """Deal on shoe ``shoe_id`` from where it stopped (a table taken after a restart),
        its settled rounds' results in ``history``, the highest round number its record holds
        in ``last_round_no``; before the table's first round."""
        shoes.resume_shoe(self, shoe_id, shoe, history, last_round_no)

    def close(self, now: float) -> list[Event]:
        """Close the table for a planned handover (a stop, or the placement moving it). No
        round starts again; a round in betting that nobody bet on yet is called off, one with
        bets closes its betting now and is dealt; every face-down card opens at once. Users
        keep their seats (the next node takes them); nobody new sits."""
        if self.closing:
            return []
        self.closing = True
        events: list[Event] = [Closing()]
        rnd = self.round
        if self.phase == "betting" and rnd is not None and not rnd.bettors:
            events += dealing.cancel_round(self, "closing", now)
        elif self.phase == "betting" and self.deadline is not None:
            # The handover waits for no betting window: the bets made are dealt now.
            self.deadline = min(self.deadline, now)
        elif self.phase == "squeeze" and rnd is not None and rnd.squeeze is not None:
            events += dealing.open_current(self, now, forced=True)
        return events

    def _suspend(self, reason: str) -> list[Event]:
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInput("bad_reason", "Closing a table needs a notice for its players.")
        if self.suspended is not None:
            raise RuleViolation("table_suspended", "The table is closed already.")
        self.suspended = reason.strip()
        return [Suspended(self.suspended)]

    def _resume(self, now: float) -> list[Event]:
        if self.suspended is None:
            raise RuleViolation("table_open", "The table is open.")
        self.suspended = None
        return [Resumed(), *dealing.maybe_start(self, now)]

    # ----------------------------------------------------------------- commands

    def handle(self, command: Command, now: float) -> list[Event]:
        """Carry out one command; raise InvalidInput or RuleViolation and change nothing if refused."""
        handler = HANDLERS.get(type(command))
        if handler is None:
            raise InvalidInput("unknown_command", f"{command!r} is not a table command.")
        return list(handler(self, command, now))

    def _stand_up(self, c: StandUp, now: float) -> list[Event]:
        occ = self.require_seat(c.user_id)
        if occ.leaving is not None:
            raise RuleViolation(
                "already_leaving", "You leave the dealer seat as soon as this round settles."
            )
        return self.free_seat(occ, "stood_up", now)

    # ----------------------------------------------------------------- seats

    def maybe_start(self, now: float) -> list[Event]:
        """Open betting if the table waits with a quorum (``dealing.maybe_start``)."""
        return dealing.maybe_start(self, now)

    def free_seat(self, occ: Occupant, reason: str, now: float) -> list[Event]:
        """Take ``occ`` out of their seat; open-betting bets go back, bets in play stay.

        A dealer leaves between rounds: one who stands up (or loses the connection) while a
        round runs, betting included, keeps the seat and the book until it settles, so
        seeing the book never lets a dealer call a round off.
        """
        rnd = self.round
        if occ.is_dealer and rnd is not None and not rnd.settled:
            occ.leaving = reason
            occ.grace_until = None
            return [DealerLeaving(occ.seat, occ.user_id, reason)]
        open_betting = rnd is not None and not rnd.closed
        events = self._vacate(occ, reason, open_betting)
        if open_betting:
            if not self.bettors():
                events += dealing.cancel_round(self, "no_bettors", now)
        else:
            events += squeezing.controller_left(self, occ.user_id, now)
        if occ.is_dealer:
            events += queue.call_dealer(self, now)
        return events

    def _vacate(self, occ: Occupant, reason: str, open_betting: bool) -> list[Event]:
        # The seat itself: bets of an open betting go back, an idle count is kept for later.
        events: list[Event] = []
        rnd = self.round
        if rnd is not None and open_betting and occ.user_id in rnd.bettors:
            events.append(betting.drop_bets(self, rnd, occ, reason))
        self.seats[occ.seat] = None
        events.append(SeatFreed(occ.seat, occ.user_id, reason, occ.coins))
        if not occ.is_dealer and occ.idle_rounds:
            self.idle_counts[occ.user_id] = occ.idle_rounds
        return events

    # ----------------------------------------------------------------- timers

    def advance(self, now: float) -> list[Event]:
        """Fire every timer due at ``now``, oldest first."""
        events: list[Event] = []
        while (due := self._first_due(now)) is not None:
            if isinstance(due, Occupant):
                events += self.free_seat(due, "disconnected", now)
            else:
                events += self._phase_over(now)
        return events

    def _first_due(self, now: float) -> Occupant | Literal["phase"] | None:
        """What falls due first by ``now``: a seat whose grace ran out, the phase, or nothing
        (a grace and the phase due at the same time: the grace first, then by seat)."""
        due: list[tuple[float, int, int]] = [
            (o.grace_until, 0, o.seat)
            for o in self.seats
            if o is not None and o.grace_until is not None and o.grace_until <= now
        ]
        if self.deadline is not None and self.deadline <= now:
            due.append((self.deadline, 1, -1))
        if not due:
            return None
        _, kind, seat = min(due)
        if kind == 1:
            return "phase"
        occ = self.seats[seat]
        assert occ is not None
        return occ

    def _phase_over(self, now: float) -> list[Event]:
        if self.phase == "betting":
            return betting_close.close_betting(self, now)
        if self.phase == "squeeze":
            return dealing.open_current(self, now, forced=True)
        if self.phase == "result":
            return dealing.end_result(self, now)
        if self.phase == "shuffling":
            return dealing.end_shuffle(self, now)
        self.enter(self.phase)
        return []

    # ----------------------------------------------------------------- round flow


Handler = Callable[[Table, Any, float], Sequence[Event]]
"""A command's step: the table, the command (of the class it is filed under) and ``now``."""

HANDLERS: dict[type[Command], Handler] = {
    Sit: sitting.sit,
    StandUp: Table._stand_up,
    PlaceChip: betting.place_chip,
    ClearBets: betting.clear_bets,
    Rebet: rebet.rebet,
    Double: rebet.double,
    Undo: rebet.undo,
    Urge: betting.urge,
    SqueezeProgress: squeezing.squeeze_progress,
    OpenCard: squeezing.open_card,
    JoinQueue: queue.join,
    LeaveQueue: queue.leave,
    Say: chat.say,
    Emote: chat.emote,
    SetAutoOpen: lambda t, c, now: occupants.set_auto_open(t, c),
    Disconnect: occupants.disconnect,
    Reconnect: occupants.reconnect,
    SetCoins: occupants.set_coins,
    Unstake: unstake.unstake,
    WalletAway: occupants.set_wallet_away,
    Suspend: lambda t, c, now: t._suspend(c.reason),
    Resume: lambda t, c, now: t._resume(now),
}
"""Each table command's class and the rule module's step that carries it out."""

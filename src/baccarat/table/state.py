"""A table's state and what may be read off it, under the rule modules that change it.

The rule modules (``dealing``, ``sitting``, ``settling`` and the rest) take a
:class:`TableState`; :class:`~baccarat.table.table.Table` is the one kind there is. Two of
its steps start a chain of rules from below them, so the state names them and the table
carries them out: freeing a seat (:meth:`TableState.free_seat`) and opening a round when a
quorum is there (:meth:`TableState.maybe_start`).
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Literal

from baccarat.bets import Area
from baccarat.errors import InvalidInput, RuleViolation
from baccarat.numbers import whole
from baccarat.roads.marks import RoundMark
from baccarat.shoe import Shoe
from baccarat.table.chat import Chat
from baccarat.table.config import DEALER_SEAT, SEATS, TableConfig
from baccarat.table.events import Event, Queued, ShoeEnded
from baccarat.table.round import Round, RoundResult
from baccarat.table.seats import Occupant

Phase = Literal["waiting", "shuffling", "betting", "squeeze", "result"]


def _uuid_hex() -> str:
    return uuid.uuid4().hex


class TableState(ABC):
    """One table's seats, round, shoe and lines. Read its attributes freely; change it only
    through commands."""

    def __init__(
        self,
        config: TableConfig,
        shoe_factory: Callable[[], Shoe],
        new_id: Callable[[], str] = _uuid_hex,
    ) -> None:
        self.config = config
        self.shoe_factory = shoe_factory
        self.new_id = new_id
        self.seats: list[Occupant | None] = [None] * SEATS
        self.phase: Phase = "waiting"
        self.deadline: float | None = None
        """When the current phase ends (betting, squeeze, result, shuffling)."""
        self.shoe: Shoe | None = None
        self.shoe_id: str | None = None
        self.rounds_in_shoe = 0
        """Rounds settled from the current shoe."""
        self.last_round_no = 0
        """The highest round number the shoe's record may hold (every round whose betting
        closed, and after a restart its voided ones too): the next round takes the one after."""
        self.round: Round | None = None
        self.closing = False
        self.suspended: str | None = None
        """Why an operator closed the table (no round starts, nobody new sits), or None."""
        """Closed for a planned stop: no round starts again (see :meth:`close`)."""
        """The round from the opening of betting to the end of its result display."""
        self.history: list[RoundMark] = []
        """The current shoe's results, oldest first."""
        self.last_shoe: ShoeEnded | None = None
        """The previous shoe's id, commitment and revealed seed."""
        self.last_result: RoundResult | None = None
        self.last_urge_at: float | None = None
        self.rounds_settled = 0
        self.last_slips: dict[int, dict[Area, int]] = {}
        """Each user's bets in the last round they bet in here, for a rebet."""
        self.queue: list[Queued] = []
        """The dealer queue, first in line first."""
        self.dealer_called: int | None = None
        """The watcher called to take the free dealer seat, until they sit or leave the line."""
        self.chat = Chat()
        """The last chat messages and each user's chat budget."""
        self.idle_counts: dict[int, int] = {}
        """Idle rounds of bettors who left, so standing up and sitting again keeps the count."""

    # ----------------------------------------------------------------- queries

    @property
    def table_id(self) -> str:
        """The table's id."""
        return self.config.table_id

    @property
    def next_deadline(self) -> float | None:
        """When the driver must call :meth:`advance` next, or None when nothing is timed."""
        times = [o.grace_until for o in self.seats if o is not None and o.grace_until is not None]
        if self.deadline is not None:
            times.append(self.deadline)
        return min(times) if times else None

    @property
    def dealer(self) -> Occupant | None:
        """The user in the dealer seat."""
        return self.seats[DEALER_SEAT]

    def occupant(self, user_id: int) -> Occupant | None:
        """The seat occupant who is ``user_id``, if seated here."""
        for occ in self.seats:
            if occ is not None and occ.user_id == user_id:
                return occ
        return None

    def seat_of(self, user_id: int) -> int | None:
        """The seat ``user_id`` holds here, or None."""
        occ = self.occupant(user_id)
        return occ.seat if occ else None

    def bettors(self) -> list[Occupant]:
        """The occupants of the bettor seats, by seat."""
        return [o for o in self.seats[1:] if o is not None]

    def enter(self, phase: Phase, deadline: float | None = None) -> None:
        """Move to ``phase`` (or stay in it with a new deadline), which ends at ``deadline``
        (None: when something happens, not at a time). The one place both change."""
        self.phase = phase
        self.deadline = deadline

    def has_quorum(self) -> bool:
        """A dealer and at least one bettor: enough for a round."""
        return self.dealer is not None and bool(self.bettors())

    def betting_open(self, now: float) -> bool:
        """Whether a chip placed at ``now`` would still land."""
        return (
            self.phase == "betting"
            and self.round is not None
            and self.deadline is not None
            and now < self.deadline
        )

    def verify_entry(self, level: int) -> None:
        """Refuse a user below the room's level: entering, to watch or to sit, needs it."""
        if not whole(level):
            raise InvalidInput("bad_level", f"A level is a whole number, not {level!r}.")
        if level < self.config.min_level:
            raise RuleViolation(
                "level_too_low",
                f"This room is for level {self.config.min_level} and above; you are level {level}.",
                min_level=self.config.min_level,
            )

    def can_enter(self, level: int) -> bool:
        """Whether a user of ``level`` may enter this table's room."""
        try:
            self.verify_entry(level)
        except (InvalidInput, RuleViolation):
            return False
        return True

    def urge_ready_at(self) -> float | None:
        """When the dealer may urge again, or None if they never have."""
        if self.last_urge_at is None:
            return None
        return self.last_urge_at + self.config.urge_cooldown_seconds

    def require_seat(self, user_id: int) -> Occupant:
        """The occupant who is ``user_id``; refuse with ``not_seated`` if there is none."""
        occ = self.occupant(user_id)
        if occ is None:
            raise RuleViolation("not_seated", "You do not hold a seat at this table.")
        return occ

    # ----------------------------------------------------------------- steps

    @abstractmethod
    def free_seat(self, occ: Occupant, reason: str, now: float) -> list[Event]:
        """Take ``occ`` out of their seat, with all that follows (``Table.free_seat``)."""

    @abstractmethod
    def maybe_start(self, now: float) -> list[Event]:
        """Open betting if the table waits with a quorum (``dealing.maybe_start``)."""

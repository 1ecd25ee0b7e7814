"""The dealer queue (上莊排隊): users line up for the dealer seat, seated or watching.

When the dealer seat is free and no round is in play, the first in line takes it: a bettor
seated here moves at once if they still meet the dealer floor (else they drop out of the
line and the next is called); a user who only watches is called with a ``dealer_turn``
event, and the server seats them the ordinary way (a fresh balance, the one-seat rule) or
takes them out of the line. While anyone waits, only the first in line may take the dealer
seat, and a dealer who has dealt ``dealer_round_limit`` rounds in a row (連莊上限) leaves
after the settlement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baccarat.errors import InvalidInput, RuleViolation
from baccarat.table.commands import JoinQueue, LeaveQueue
from baccarat.table.config import DEALER_SEAT, UserInfo
from baccarat.table.events import DealerQueueChanged, DealerTurn, Event, Queued, SeatFreed
from baccarat.table.seats import Occupant, seated

if TYPE_CHECKING:
    from baccarat.table.state import TableState

MAX_QUEUE = 20
"""At most this many users wait for one table's dealer seat."""


def position(t: TableState, user_id: int) -> int | None:
    """``user_id``'s place in the line (1 is next), or None."""
    for i, w in enumerate(t.queue):
        if w.user_id == user_id:
            return i + 1
    return None


def _changed(t: TableState, user_id: int, change: str, reason: str | None = None) -> Event:
    return DealerQueueChanged(tuple(t.queue), user_id, change, reason)


def verify_join(t: TableState, c: JoinQueue) -> None:
    """Raise why ``c.user`` may not join the line."""
    user = c.user
    if not isinstance(user, UserInfo) or user.user_id != c.user_id:
        raise InvalidInput("user_mismatch", "The user joining the line must be the one asking.")
    t.verify_entry(user.level)
    occ = t.occupant(c.user_id)
    if occ is not None and occ.is_dealer:
        raise RuleViolation("already_dealer", "You hold the dealer seat already.")
    if position(t, c.user_id) is not None:
        raise RuleViolation(
            "already_queued",
            "You are in the dealer queue already.",
            position=position(t, c.user_id),
        )
    if len(t.queue) >= MAX_QUEUE:
        raise RuleViolation(
            "queue_full", f"{MAX_QUEUE} users already wait for this dealer seat.", limit=MAX_QUEUE
        )
    coins = occ.coins if occ is not None else user.coins
    floor = t.config.dealer_floor
    if coins < floor:
        raise RuleViolation(
            "coins_below_floor",
            f"The dealer seat needs at least {floor} coins; you have {coins}.",
            floor=floor,
            coins=coins,
        )


def can_join(t: TableState, c: JoinQueue) -> bool:
    """Whether ``c`` would be taken."""
    try:
        verify_join(t, c)
    except (InvalidInput, RuleViolation):
        return False
    return True


def join(t: TableState, c: JoinQueue, now: float) -> list[Event]:
    """Put the user at the end of the line; if the seat is free, call the first in line."""
    verify_join(t, c)
    t.queue.append(Queued(c.user.user_id, c.user.name, c.user.level))
    return [_changed(t, c.user_id, "joined"), *call_dealer(t, now)]


def leave(t: TableState, c: LeaveQueue, now: float) -> list[Event]:
    """Take the user out of the line (``reason`` says why, when the server does it)."""
    at = position(t, c.user_id)
    if at is None:
        raise RuleViolation("not_queued", "You are not in the dealer queue.")
    del t.queue[at - 1]
    if t.dealer_called == c.user_id:
        t.dealer_called = None
    return [_changed(t, c.user_id, "left", c.reason), *call_dealer(t, now)]


def verify_dealer_seat(t: TableState, user_id: int) -> None:
    """While anyone waits, only the first in line may take the free dealer seat."""
    if t.queue and t.queue[0].user_id != user_id:
        raise RuleViolation(
            "dealer_queue",
            f"{len(t.queue)} user(s) wait for the dealer seat; join the queue.",
            waiting=len(t.queue),
        )


def seated_as_dealer(t: TableState, user_id: int) -> list[Event]:
    """The first in line took the dealer seat: they leave the line."""
    if not t.queue or t.queue[0].user_id != user_id:
        return []
    t.queue.pop(0)
    t.dealer_called = None
    return [_changed(t, user_id, "promoted")]


def call_dealer(t: TableState, now: float) -> list[Event]:
    """With the dealer seat free between rounds, seat or call the first in line."""
    events: list[Event] = []
    while t.queue and t.seats[DEALER_SEAT] is None and t.round is None:
        head = t.queue[0]
        occ = t.occupant(head.user_id)
        if occ is None:
            # Watching only: the server seats them with a fresh balance, or takes them out.
            if t.dealer_called != head.user_id:
                t.dealer_called = head.user_id
                events.append(DealerTurn(head.user_id, head.name))
            return events
        if occ.coins < t.config.dealer_floor:
            t.queue.pop(0)
            events.append(_changed(t, head.user_id, "left", "coins_below_floor"))
            continue
        events += move_to_dealer(t, occ, now)
    return events


def over_limit(t: TableState) -> bool:
    """Whether the dealer has dealt the room's limit of rounds in a row while others wait."""
    dealer = t.dealer
    return (
        dealer is not None
        and dealer.dealer_rounds >= t.config.dealer_round_limit
        and any(w.user_id != dealer.user_id for w in t.queue)
    )


def move_to_dealer(t: TableState, occ: Occupant, now: float) -> list[Event]:
    """Move a seated bettor to the free dealer seat (checked by the caller)."""
    t.seats[occ.seat] = None
    events: list[Event] = [SeatFreed(occ.seat, occ.user_id, "moved", occ.coins)]
    occ.seat = DEALER_SEAT
    occ.idle_rounds = 0
    occ.dealer_rounds = 0
    t.seats[DEALER_SEAT] = occ
    events.append(seated(occ, t.round))
    events += seated_as_dealer(t, occ.user_id)
    events += t.maybe_start(now)
    return events

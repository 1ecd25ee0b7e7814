"""Sitting down: who may take a seat (a bettor's move to the free dealer seat is the queue's,
:func:`baccarat.table.queue.move_to_dealer`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from baccarat.errors import InvalidInput, RuleViolation
from baccarat.numbers import whole
from baccarat.table import dealing, queue
from baccarat.table.commands import Sit
from baccarat.table.config import DEALER_SEAT, SEATS, UserInfo
from baccarat.table.events import Event
from baccarat.table.seats import Occupant, seated

if TYPE_CHECKING:
    from baccarat.table.state import TableState


def verify_sit(t: TableState, c: Sit) -> Occupant | None:
    """Raise why ``c`` is refused; return the user's current occupant when ``c`` moves a
    seated bettor to the free dealer seat (None for a user not seated here)."""
    _verify_request(c)
    _verify_open_to(t, c)
    current = _verify_seat(t, c)
    _verify_floor(t, c, current.coins if current is not None else c.user.coins)
    return current


def _verify_request(c: Sit) -> None:
    """What the command itself must be: its own user, a seat that exists, a whole balance."""
    user = c.user
    if not isinstance(user, UserInfo) or user.user_id != c.user_id:
        raise InvalidInput("user_mismatch", "The user sitting down must be the one asking.")
    if not whole(c.seat) or not 0 <= c.seat < SEATS:
        raise InvalidInput(
            "bad_seat", f"Seats are numbered 0 (dealer) to {SEATS - 1}, not {c.seat!r}."
        )
    if not whole(user.coins) or user.coins < 0:
        raise InvalidInput(
            "bad_coins", f"A balance is a whole number of coins, not {user.coins!r}."
        )


def _verify_open_to(t: TableState, c: Sit) -> None:
    """Whether the table takes the user: their level, and a table not closing or closed."""
    t.verify_entry(c.user.level)
    if t.closing:
        raise RuleViolation(
            "table_closing", "This table is moving to another server; sit again in a moment."
        )
    if t.suspended is not None and t.occupant(c.user_id) is None:
        raise RuleViolation(
            "table_suspended", f"The table is closed: {t.suspended}", notice=t.suspended
        )


def _verify_seat(t: TableState, c: Sit) -> Occupant | None:
    """Whether the seat is free and the user may take it: the dealer seat's queue, and a
    seated user only moving from a bettor seat to the dealer seat between rounds."""
    if t.seats[c.seat] is not None:
        raise RuleViolation("seat_taken", f"Seat {c.seat} is taken.", seat=c.seat)
    if c.seat == DEALER_SEAT:
        queue.verify_dealer_seat(t, c.user_id)
    current = t.occupant(c.user_id)
    if current is not None and (c.seat != DEALER_SEAT or current.is_dealer):
        raise RuleViolation(
            "already_seated",
            f"You already sit in seat {current.seat}; only a move to the free dealer seat is allowed.",
            seat=current.seat,
        )
    # One rule for a move and for a stand-then-sit alike: the dealer seat is taken between
    # rounds (the result of a round whose dealer was freed is still that round).
    if c.seat == DEALER_SEAT and t.round is not None:
        raise RuleViolation("round_in_play", "The dealer seat is taken only between rounds.")
    return current


def _verify_floor(t: TableState, c: Sit, coins: int) -> None:
    """Whether ``coins`` meet the floor of the seat asked for."""
    floor = t.config.dealer_floor if c.seat == DEALER_SEAT else t.config.bettor_floor
    if coins < floor:
        role = "the dealer seat" if c.seat == DEALER_SEAT else "a bettor seat"
        raise RuleViolation(
            "coins_below_floor",
            f"{role.capitalize()} needs at least {floor} coins; you have {coins}.",
            floor=floor,
            coins=coins,
        )


def can_sit(t: TableState, c: Sit) -> bool:
    """Whether ``c`` would be taken."""
    try:
        verify_sit(t, c)
    except (InvalidInput, RuleViolation):
        return False
    return True


def sit(t: TableState, c: Sit, now: float) -> list[Event]:
    current = verify_sit(t, c)
    if current is not None:
        return queue.move_to_dealer(t, current, now)
    return _do_sit(t, c.user, c.seat, now)


def _do_sit(t: TableState, user: UserInfo, seat: int, now: float) -> list[Event]:
    """Seat ``user`` in the free ``seat`` (checked by the caller)."""
    occ = Occupant(user.user_id, user.name, user.level, user.coins, seat)
    occ.auto_open = user.auto_open is True
    if seat != DEALER_SEAT:
        occ.idle_rounds = t.idle_counts.pop(user.user_id, 0)
    # Sitting while a round is being dealt: that round is not theirs.
    occ.waiting_next_round = t.round is not None and t.round.closed
    t.seats[seat] = occ
    events: list[Event] = [seated(occ, t.round)]
    if occ.is_dealer:
        events += queue.seated_as_dealer(t, occ.user_id)
    events += dealing.maybe_start(t, now)
    return events

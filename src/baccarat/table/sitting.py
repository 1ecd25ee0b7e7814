"""Sitting down: who may take a seat, and a bettor's move to the free dealer seat."""

from __future__ import annotations

from typing import TYPE_CHECKING

from baccarat.errors import InvalidInput, RuleViolation
from baccarat.numbers import whole
from baccarat.table import dealing, queue
from baccarat.table.commands import Sit
from baccarat.table.config import DEALER_SEAT, SEATS, UserInfo
from baccarat.table.events import Event, Seated, SeatFreed
from baccarat.table.round import Round
from baccarat.table.seats import Occupant

if TYPE_CHECKING:
    from baccarat.table.table import Table


def seated(occ: Occupant, rnd: Round | None) -> Seated:
    """The event of ``occ`` sitting down, as every screen may see them."""
    return Seated(
        seat=occ.seat,
        user_id=occ.user_id,
        name=occ.name,
        level=occ.level,
        coins=occ.coins,
        connected=occ.connected,
        waiting_next_round=occ.waiting_next_round,
        idle_rounds=occ.idle_rounds,
        leaving=occ.leaving is not None,
        dealer_rounds=occ.dealer_rounds,
        # One who sat down during a round has no bets in it (not even a settled round's, bet
        # from the seat they stood up from).
        bets=rnd.slip(occ.user_id) if rnd is not None and not occ.waiting_next_round else {},
    )


def verify_sit(t: Table, c: Sit) -> Occupant | None:
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


def _verify_open_to(t: Table, c: Sit) -> None:
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


def _verify_seat(t: Table, c: Sit) -> Occupant | None:
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


def _verify_floor(t: Table, c: Sit, coins: int) -> None:
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


def can_sit(t: Table, c: Sit) -> bool:
    """Whether ``c`` would be taken."""
    try:
        verify_sit(t, c)
    except (InvalidInput, RuleViolation):
        return False
    return True


def sit(t: Table, c: Sit, now: float) -> list[Event]:
    current = verify_sit(t, c)
    if current is not None:
        return move_to_dealer(t, current, now)
    return _do_sit(t, c.user, c.seat, now)


def _do_sit(t: Table, user: UserInfo, seat: int, now: float) -> list[Event]:
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


def move_to_dealer(t: Table, occ: Occupant, now: float) -> list[Event]:
    """Move a seated bettor to the free dealer seat (checked by the caller)."""
    t.seats[occ.seat] = None
    events: list[Event] = [SeatFreed(occ.seat, occ.user_id, "moved", occ.coins)]
    occ.seat = DEALER_SEAT
    occ.idle_rounds = 0
    occ.dealer_rounds = 0
    t.seats[DEALER_SEAT] = occ
    events.append(seated(occ, t.round))
    events += queue.seated_as_dealer(t, occ.user_id)
    events += dealing.maybe_start(t, now)
    return events

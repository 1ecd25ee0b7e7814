"""A round's settlement at the table: pay it out, record it, free the seats it empties."""

from __future__ import annotations

from typing import TYPE_CHECKING

from baccarat.errors import InternalError
from baccarat.roads.marks import RoundMark
from baccarat.rules import Outcome, next_draw
from baccarat.settlement import settle
from baccarat.table import queue
from baccarat.table.events import Event, RoundSettled, SeatResult
from baccarat.table.round import Round, RoundResult

if TYPE_CHECKING:
    from baccarat.table.state import TableState


def verify_settle(t: TableState) -> Round:
    """The round that settles now; ``InternalError`` unless its stakes are in escrow, it is
    not settled yet, every card is open and the tableau draws no more: a table that gets
    here otherwise has a bug, and a round settles exactly once."""
    rnd = t.round
    if rnd is None or not rnd.closed or rnd.settled:
        raise InternalError("The table has no round waiting to be settled.")
    if rnd.face_down or rnd.pending or next_draw(rnd.player, rnd.banker) is not None:
        raise InternalError("The round is not fully dealt and open.")
    return rnd


def can_settle(t: TableState) -> bool:
    """Whether the table's round is ready to settle."""
    try:
        verify_settle(t)
    except InternalError:
        return False
    return True


def settle_round(t: TableState, now: float) -> list[Event]:
    """Settle the round (checked first), then free the seats its result empties."""
    rnd = verify_settle(t)
    events: list[Event] = [_do_settle(t, rnd, now)]
    return events + _leave_after_settlement(t, now)


def _do_settle(t: TableState, rnd: Round, now: float) -> RoundSettled:
    """Pay the round out on the table's balances, record it, and show the result."""
    unit = t.config.chip_unit
    outcome = Outcome(tuple(rnd.player), tuple(rnd.banker))
    result = settle(outcome, rnd.dealer_id, rnd.stakes(unit))
    rnd.settled = True
    t.rounds_settled += 1
    t.rounds_in_shoe += 1
    for uid, delta in result.deltas.items():
        occ = t.occupant(uid)
        if occ is not None:
            occ.coins += rnd.escrow.get(uid, 0) + delta
    t.history.append(RoundMark.from_outcome(outcome))
    results = tuple(
        SeatResult(
            user_id=uid,
            seat=t.seat_of(uid),
            role="dealer" if uid == rnd.dealer_id else "bettor",
            stake=rnd.escrow.get(uid, 0),
            areas=dict(result.results.get(uid, {})),
            commission=result.commission.get(uid, 0),
            delta=delta,
        )
        for uid, delta in result.deltas.items()
    )
    t.last_result = RoundResult(rnd.round_id, rnd.round_no, outcome, result)
    deadline = now + t.config.result_seconds
    t.enter("result", deadline)
    return RoundSettled(
        round_id=rnd.round_id,
        shoe_id=rnd.shoe_id,
        round_no=rnd.round_no,
        dealer=rnd.dealer_id,
        bets=rnd.bet_list(unit),
        cards=rnd.cards_in_order(),
        outcome=outcome,
        settlement=result,
        results=results,
        deadline=deadline,
    )


def _leave_after_settlement(t: TableState, now: float) -> list[Event]:
    """Bettors below the floor leave; the dealer leaves if they asked to, fell below the
    dealer floor, or dealt the room's limit of rounds while others wait. A balance the
    platform's wallet has not confirmed is not held against its user: they stay until it is."""
    events: list[Event] = []
    for occ in t.bettors():
        if occ.coins < t.config.bettor_floor and not occ.wallet_away:
            events += t.free_seat(occ, "below_floor", now)
    dealer = t.dealer
    if dealer is None:
        return events
    dealer.dealer_rounds += 1
    if dealer.leaving is not None:
        events += t.free_seat(dealer, dealer.leaving, now)
    elif dealer.coins < t.config.dealer_floor and not dealer.wallet_away:
        events += t.free_seat(dealer, "dealer_below_floor", now)
    elif queue.over_limit(t):
        events += t.free_seat(dealer, "dealer_limit", now)
    return events

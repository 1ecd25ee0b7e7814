"""A round's life at a table: open betting, close it, deal, squeeze, settle, change shoes.

Functions of the :class:`~baccarat.table.table.Table` they drive; each returns the events
it caused. Cards are dealt one at a time with :func:`baccarat.rules.next_draw`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from baccarat.errors import InternalError, InvalidInput, RuleViolation
from baccarat.roads.marks import RoundMark
from baccarat.rules import HANDS, Hand, Outcome, next_draw
from baccarat.settlement import settle
from baccarat.table import queue
from baccarat.table.betting import return_uncovered
from baccarat.table.commands import OpenCard, SqueezeProgress
from baccarat.table.events import (
    BettingClosed,
    BettingOpened,
    CardDealt,
    CardOpened,
    Controllers,
    Event,
    RoundCancelled,
    RoundSettled,
    SeatResult,
    ShoeEnded,
    ShoeStarted,
    Shuffling,
    SqueezeMoved,
    SqueezeStarted,
    Waiting,
)
from baccarat.table.round import CardRef, Round, RoundResult
from baccarat.table.seats import Occupant
from baccarat.table.squeeze import CORNERS, Squeeze, choose_controller, extend

if TYPE_CHECKING:
    from baccarat.shoe import Shoe
    from baccarat.table.table import Table


def _current_squeeze(t: Table, user_id: int, hand: object, now: float) -> tuple[Round, Squeeze]:
    if hand not in HANDS:
        raise InvalidInput("bad_hand", f"The hand is 'player' or 'banker', not {hand!r}.")
    rnd = t.round
    sq = rnd.squeeze if rnd is not None and t.phase == "squeeze" else None
    if rnd is None or sq is None or sq.hand != hand or now >= sq.deadline:
        raise RuleViolation(
            "nothing_to_squeeze", f"No face-down card of the {hand} hand is being squeezed."
        )
    if sq.controller != user_id:
        raise RuleViolation(
            "not_controller",
            f"{sq.controller_name} controls this card; only they may squeeze or open it.",
        )
    return rnd, sq


def squeeze_progress(t: Table, c: SqueezeProgress, now: float) -> list[Event]:
    """The controller peels the card under squeeze; every screen sees it move."""
    p = c.progress
    if (
        isinstance(p, bool)
        or not isinstance(p, int | float)
        or not math.isfinite(p)
        or not 0 <= p <= 1
    ):
        raise InvalidInput("bad_progress", f"Progress runs from 0 to 1, not {p!r}.")
    if c.corner not in CORNERS:
        raise InvalidInput(
            "bad_corner",
            f"The corner or side is one of {', '.join(CORNERS)}, not {c.corner!r}.",
        )
    rnd, sq = _current_squeeze(t, c.user_id, c.hand, now)
    sq.progress = float(p)
    sq.corner = c.corner
    extended = extend(sq, now, t.config.squeeze_peel_seconds)
    if extended:
        t.enter("squeeze", sq.deadline)
    return [
        SqueezeMoved(
            rnd.round_id,
            sq.hand,
            sq.position,
            sq.progress,
            sq.corner,
            sq.deadline if extended else None,
        )
    ]


def open_card(t: Table, c: OpenCard, now: float) -> list[Event]:
    """The controller turns the card under squeeze over."""
    _current_squeeze(t, c.user_id, c.hand, now)
    return open_current(t, now, forced=False)


def _shoe_done(t: Table) -> bool:
    return t.shoe is None or (
        t.rounds_in_shoe >= t.config.rounds_per_shoe or t.shoe.remaining < t.config.min_cards
    )


def _new_shoe(t: Table) -> list[Event]:
    t.shoe = t.shoe_factory()
    t.shoe_id = t.new_id()
    t.rounds_in_shoe = 0
    t.history = []
    t.last_result = None
    return [ShoeStarted(t.shoe_id, t.shoe.commitment, t.shoe.remaining)]


def resume_shoe(t: Table, shoe_id: str, shoe: Shoe, history: list[RoundMark]) -> None:
    """Deal on a shoe begun before a restart: its id, its cards from where they stopped, the
    results of its settled rounds. Only a table that has not dealt yet takes one."""
    if t.shoe is not None or t.round is not None:
        raise InternalError("A table that is dealing a shoe cannot take another.")
    t.shoe, t.shoe_id = shoe, shoe_id
    t.rounds_in_shoe = len(history)
    t.history = list(history)


def _end_shoe(t: Table, now: float) -> list[Event]:
    assert t.shoe is not None and t.shoe_id is not None
    seed = t.shoe.seed
    t.last_shoe = ShoeEnded(
        t.shoe_id, t.shoe.commitment, seed.hex() if seed is not None else None, tuple(t.history)
    )
    t.shoe = None
    deadline = now + t.config.shuffle_seconds
    t.enter("shuffling", deadline)
    return [t.last_shoe, Shuffling(deadline)]


def wait(t: Table) -> list[Event]:
    """Enter the waiting phase and say what the table waits for."""
    t.enter("waiting")
    return [Waiting(dealer_needed=t.dealer is None, bettor_needed=not t.bettors())]


def maybe_start(t: Table, now: float) -> list[Event]:
    """Open betting if the table is waiting and has a quorum."""
    if t.phase != "waiting" or t.closing or t.suspended is not None or not t.has_quorum():
        return []
    events: list[Event] = []
    if t.shoe is None:
        events += _new_shoe(t)
    elif _shoe_done(t):
        return _end_shoe(t, now)
    dealer = t.dealer
    assert dealer is not None and t.shoe_id is not None
    t.round = Round(
        round_id=t.new_id(),
        shoe_id=t.shoe_id,
        round_no=t.rounds_in_shoe + 1,
        dealer_id=dealer.user_id,
        dealer_name=dealer.name,
        opened_at=now,
    )
    for occ in t.seats:
        if occ is not None:
            occ.waiting_next_round = False
    deadline = now + t.config.betting_seconds
    t.enter("betting", deadline)
    events.append(
        BettingOpened(t.round.round_id, t.shoe_id, t.round.round_no, dealer.user_id, deadline)
    )
    return events


def cancel_round(t: Table, reason: str, now: float) -> list[Event]:
    """Call off a round whose betting is open: nothing was staked, nothing moves."""
    assert t.round is not None and not t.round.closed
    events: list[Event] = [RoundCancelled(t.round.round_id, reason)]
    t.round = None
    dealer = t.dealer
    if dealer is not None and dealer.leaving is not None:
        # The round the dealer waited for is off: they leave now.
        events += t.free_seat(dealer, dealer.leaving, now)
    events += wait(t)
    events += maybe_start(t, now)
    return events


def close_betting(t: Table, now: float) -> list[Event]:
    """Close betting: count idle bettors, escrow the stakes, deal four cards."""
    rnd = t.round
    assert rnd is not None
    unit = t.config.chip_unit
    dealer = t.dealer
    events: list[Event] = []
    # Idle count: every bettor dealt into this round who did not bet.
    idle: list[Occupant] = []
    counted: dict[int, int] = {}
    for occ in t.bettors():
        if occ.waiting_next_round:
            continue
        if rnd.slip(occ.user_id):
            occ.idle_rounds = 0
        else:
            occ.idle_rounds += 1
            if occ.idle_rounds >= t.config.idle_rounds_limit:
                idle.append(occ)
                continue
        counted[occ.seat] = occ.idle_rounds
    for occ in idle:
        events += t.free_seat(occ, "idle", now)
        if t.round is not rnd:
            return events
    if dealer is not None and rnd.liability(unit) > dealer.coins:
        # Bets taken back after others were placed (each chip was checked as it landed) left
        # the book uncovered: what the dealer cannot cover goes back (its bettors bet, so they
        # were counted above as not idle), and the round is dealt for the rest.
        events += return_uncovered(t, rnd, dealer.coins)
    rnd.closed = True
    assert t.shoe is not None
    rnd.first_card = t.shoe.dealt
    for uid, bettor in rnd.bettors.items():
        payer = t.occupant(uid)
        assert payer is not None, "bets of a bettor who left were dropped"
        rnd.escrow[uid] = bettor.stake_chips() * unit
        payer.coins -= rnd.escrow[uid]
        t.last_slips[uid] = dict(bettor.slip)
    events.append(
        BettingClosed(
            rnd.round_id,
            rnd.shoe_id,
            rnd.round_no,
            rnd.dealer_id,
            rnd.bet_list(unit),
            counted,
            rnd.first_card,
        )
    )
    for hand in HANDS:
        rnd.controllers[hand] = _controller(t, rnd, hand)
    events.append(_controllers_event(rnd))
    # P1 and B1 face up, P2 and B2 face down.
    first_four: tuple[tuple[Hand, bool], ...] = (
        ("player", False),
        ("banker", False),
        ("player", True),
        ("banker", True),
    )
    for hand, face_down in first_four:
        events.append(_deal(t, rnd, hand, face_down))
    t.enter("squeeze")
    events += _next_squeeze(t, now)
    return events


def _controller(t: Table, rnd: Round, hand: Hand) -> int | None:
    """Who squeezes ``hand``: chosen among the round's bettors still seated at the table."""
    present = {uid: b for uid, b in rnd.bettors.items() if t.occupant(uid) is not None}
    slips = {uid: b.slip for uid, b in present.items()}
    levels = {uid: b.level for uid, b in present.items()}
    order = {uid: b.order for uid, b in present.items()}
    return choose_controller(hand, slips, levels, order)


def _controllers_event(rnd: Round) -> Controllers:
    return Controllers(rnd.round_id, rnd.controllers["player"], rnd.controllers["banker"])


def controller_left(t: Table, user_id: int, now: float) -> list[Event]:
    """A controller left the table mid-squeeze: the next bettor by the same rule takes over.

    The card under squeeze passes at once (with a fresh countdown, since the new controller
    starts from nothing), or opens if nobody who bet is left at the table.
    """
    rnd = t.round
    if rnd is None or not rnd.closed or rnd.settled:
        return []
    hands = [h for h in HANDS if rnd.controllers.get(h) == user_id]
    if not hands:
        return []
    for hand in hands:
        rnd.controllers[hand] = _controller(t, rnd, hand)
    events: list[Event] = [_controllers_event(rnd)]
    sq = rnd.squeeze
    if t.phase != "squeeze" or sq is None or sq.hand not in hands:
        return events
    successor = rnd.controllers[sq.hand]
    if successor is None:
        return events + open_current(t, now, forced=True)
    rnd.pending.insert(0, (sq.hand, sq.position))
    rnd.squeeze = None
    return events + _next_squeeze(t, now)


def _deal(t: Table, rnd: Round, hand: Hand, face_down: bool) -> CardDealt:
    assert t.shoe is not None
    cards = rnd.hand(hand)
    cards.append(t.shoe.draw())
    ref: CardRef = (hand, len(cards) - 1)
    rnd.dealt.append(ref)
    if face_down:
        rnd.face_down.add(ref)
        rnd.pending.append(ref)
        return CardDealt(rnd.round_id, hand, ref[1], face_down=True)
    return CardDealt(
        rnd.round_id, hand, ref[1], face_down=False, card=cards[-1], points=rnd.open_points(hand)
    )


def _next_squeeze(t: Table, now: float) -> list[Event]:
    """Start the next face-down card's squeeze, deal a third card, or settle."""
    rnd = t.round
    assert rnd is not None
    events: list[Event] = []
    while True:
        if rnd.pending:
            ref = rnd.pending.pop(0)
            controller = rnd.controllers.get(ref[0])
            if controller is None or t.closing:
                # Nobody who bet is at the table, or the table closes: it opens by itself.
                events.append(_reveal(t, rnd, ref, forced=True))
                continue
            holder = t.occupant(controller)
            if holder is not None and holder.auto_open:
                # 自動開牌: the controller chose to open their cards at once.
                events.append(_reveal(t, rnd, ref, forced=False))
                continue
            name = rnd.bettors[controller].name
            deadline = now + t.config.squeeze_seconds
            latest = deadline + t.config.squeeze_extra_seconds
            card = rnd.card(ref)
            sq = rnd.squeeze = Squeeze(ref[0], ref[1], card, controller, name, deadline, latest)
            t.enter("squeeze", deadline)
            events.append(
                SqueezeStarted(
                    rnd.round_id,
                    sq.hand,
                    sq.position,
                    sq.card,
                    sq.controller,
                    sq.controller_name,
                    sq.progress,
                    sq.corner,
                    sq.deadline,
                )
            )
            return events
        hand = next_draw(rnd.player, rnd.banker)
        if hand is None:
            return events + _settle(t, now)
        events.append(_deal(t, rnd, hand, face_down=True))


def _reveal(t: Table, rnd: Round, ref: CardRef, forced: bool) -> CardOpened:
    rnd.face_down.discard(ref)
    return CardOpened(rnd.round_id, ref[0], ref[1], rnd.card(ref), rnd.open_points(ref[0]), forced)


def open_current(t: Table, now: float, forced: bool) -> list[Event]:
    """Open the card under squeeze, then go on with the deal."""
    rnd = t.round
    assert rnd is not None and rnd.squeeze is not None
    ref: CardRef = (rnd.squeeze.hand, rnd.squeeze.position)
    rnd.squeeze = None
    t.enter("squeeze")
    return [_reveal(t, rnd, ref, forced), *_next_squeeze(t, now)]


def verify_settle(t: Table) -> Round:
    """The round that settles now; ``InternalError`` unless its stakes are in escrow, it is
    not settled yet, every card is open and the tableau draws no more: a table that gets
    here otherwise has a bug, and a round settles exactly once."""
    rnd = t.round
    if rnd is None or not rnd.closed or rnd.settled:
        raise InternalError("The table has no round waiting to be settled.")
    if rnd.face_down or rnd.pending or next_draw(rnd.player, rnd.banker) is not None:
        raise InternalError("The round is not fully dealt and open.")
    return rnd


def can_settle(t: Table) -> bool:
    """Whether the table's round is ready to settle."""
    try:
        verify_settle(t)
    except InternalError:
        return False
    return True


def _settle(t: Table, now: float) -> list[Event]:
    """Settle the round (checked first), then free the seats its result empties."""
    rnd = verify_settle(t)
    events: list[Event] = [_do_settle(t, rnd, now)]
    return events + _leave_after_settlement(t, now)


def _do_settle(t: Table, rnd: Round, now: float) -> RoundSettled:
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


def _leave_after_settlement(t: Table, now: float) -> list[Event]:
    """Bettors below the floor leave; the dealer leaves if they asked to, fell below the
    dealer floor, or dealt the room's limit of rounds while others wait."""
    events: list[Event] = []
    for occ in t.bettors():
        if occ.coins < t.config.bettor_floor:
            events += t.free_seat(occ, "below_floor", now)
    dealer = t.dealer
    if dealer is None:
        return events
    dealer.dealer_rounds += 1
    if dealer.leaving is not None:
        events += t.free_seat(dealer, dealer.leaving, now)
    elif dealer.coins < t.config.dealer_floor:
        events += t.free_seat(dealer, "dealer_below_floor", now)
    elif queue.over_limit(t):
        events += t.free_seat(dealer, "dealer_limit", now)
    return events


def end_result(t: Table, now: float) -> list[Event]:
    """After the result: end the shoe if it is done, else the next round."""
    t.round = None
    called = queue.call_dealer(t, now)
    if _shoe_done(t):
        return called + _end_shoe(t, now)
    events = called + (wait(t) if not t.has_quorum() else [])
    t.enter("waiting")
    return events + maybe_start(t, now)


def end_shuffle(t: Table, now: float) -> list[Event]:
    """After the shuffle: start the new shoe and, with a quorum, a round."""
    events: list[Event] = _new_shoe(t)
    t.enter("waiting")
    if not t.has_quorum():
        return events + wait(t)
    return events + maybe_start(t, now)

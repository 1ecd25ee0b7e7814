"""A round's deal at a table: open betting, deal the cards, start each squeeze, end a phase.

Functions of the :class:`~baccarat.table.table.Table` they drive; each returns the events
it caused. Cards are dealt one at a time with :func:`baccarat.rules.next_draw`. The close
of betting is :mod:`~baccarat.table.betting_close`, the squeeze's commands
:mod:`~baccarat.table.squeezing`, the settlement :mod:`~baccarat.table.settling`, and the
shoe's start and end :mod:`~baccarat.table.shoes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baccarat.rules import Hand, next_draw
from baccarat.table import queue, settling, shoes
from baccarat.table.events import (
    BettingOpened,
    CardDealt,
    CardOpened,
    Event,
    RoundCancelled,
    SqueezeStarted,
    Waiting,
)
from baccarat.table.round import CardRef, Round
from baccarat.table.squeeze import Squeeze

if TYPE_CHECKING:
    from baccarat.table.state import TableState


def wait(t: TableState) -> list[Event]:
    """Enter the waiting phase and say what the table waits for."""
    t.enter("waiting")
    return [Waiting(dealer_needed=t.dealer is None, bettor_needed=not t.bettors())]


def maybe_start(t: TableState, now: float) -> list[Event]:
    """Open betting if the table is waiting and has a quorum."""
    if t.phase != "waiting" or t.closing or t.suspended is not None or not t.has_quorum():
        return []
    events: list[Event] = []
    if t.shoe is None:
        events += shoes.new_shoe(t)
    elif shoes.shoe_done(t):
        return shoes.end_shoe(t, now)
    dealer = t.dealer
    assert dealer is not None and t.shoe_id is not None
    t.round = Round(
        round_id=t.new_id(),
        shoe_id=t.shoe_id,
        round_no=t.last_round_no + 1,
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


def cancel_round(t: TableState, reason: str, now: float) -> list[Event]:
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


def deal_card(t: TableState, rnd: Round, hand: Hand, face_down: bool) -> CardDealt:
    """Deal the shoe's next card to ``hand``; a face-down one waits for its squeeze."""
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


def next_squeeze(t: TableState, now: float) -> list[Event]:
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
                events.append(_reveal(rnd, ref, forced=True))
                continue
            holder = t.occupant(controller)
            if holder is not None and holder.auto_open:
                # 自動開牌: the controller chose to open their cards at once.
                events.append(_reveal(rnd, ref, forced=False))
                continue
            return [*events, _start_squeeze(t, rnd, ref, controller, now)]
        hand = next_draw(rnd.player, rnd.banker)
        if hand is None:
            return events + settling.settle_round(t, now)
        events.append(deal_card(t, rnd, hand, face_down=True))


def _start_squeeze(t: TableState, rnd: Round, ref: CardRef, controller: int, now: float) -> Event:
    """Hand the face-down card ``ref`` to its controller to squeeze, on a countdown."""
    name = rnd.bettors[controller].name
    deadline = now + t.config.squeeze_seconds
    latest = deadline + t.config.squeeze_extra_seconds
    card = rnd.card(ref)
    sq = rnd.squeeze = Squeeze(ref[0], ref[1], card, controller, name, deadline, latest)
    t.enter("squeeze", deadline)
    return SqueezeStarted(
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


def _reveal(rnd: Round, ref: CardRef, forced: bool) -> CardOpened:
    rnd.face_down.discard(ref)
    return CardOpened(rnd.round_id, ref[0], ref[1], rnd.card(ref), rnd.open_points(ref[0]), forced)


def open_current(t: TableState, now: float, forced: bool) -> list[Event]:
    """Open the card under squeeze, then go on with the deal."""
    rnd = t.round
    assert rnd is not None and rnd.squeeze is not None
    ref: CardRef = (rnd.squeeze.hand, rnd.squeeze.position)
    rnd.squeeze = None
    t.enter("squeeze")
    return [_reveal(rnd, ref, forced), *next_squeeze(t, now)]


def end_result(t: TableState, now: float) -> list[Event]:
    """After the result: end the shoe if it is done, else the next round."""
    t.round = None
    called = queue.call_dealer(t, now)
    if shoes.shoe_done(t):
        return called + shoes.end_shoe(t, now)
    events = called + (wait(t) if not t.has_quorum() else [])
    t.enter("waiting")
    return events + maybe_start(t, now)


def end_shuffle(t: TableState, now: float) -> list[Event]:
    """After the shuffle: start the new shoe and, with a quorum, a round."""
    events: list[Event] = shoes.new_shoe(t)
    t.enter("waiting")
    if not t.has_quorum():
        return events + wait(t)
    return events + maybe_start(t, now)

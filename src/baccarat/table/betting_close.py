"""The close of betting: idle bettors counted, stakes into escrow, the first four cards."""

from __future__ import annotations

from typing import TYPE_CHECKING

from baccarat.rules import HANDS, Hand
from baccarat.table import dealing, squeezing
from baccarat.table.betting import return_uncovered
from baccarat.table.events import BettingClosed, Event
from baccarat.table.round import Round
from baccarat.table.seats import Occupant

if TYPE_CHECKING:
    from baccarat.table.state import TableState

FIRST_FOUR: tuple[tuple[Hand, bool], ...] = (
    ("player", False),
    ("banker", False),
    ("player", True),
    ("banker", True),
)
"""The first four cards, each hand and whether it is face down: P1 and B1 up, P2 and B2 down."""


def close_betting(t: TableState, now: float) -> list[Event]:
    """Close betting: count idle bettors, escrow the stakes, deal four cards."""
    rnd = t.round
    assert rnd is not None
    idle, counted = _count_idle(t, rnd)
    events: list[Event] = []
    for occ in idle:
        events += t.free_seat(occ, "idle", now)
        if t.round is not rnd:
            return events
    events += _cover(t, rnd)
    rnd.closed = True
    # From here the round is recorded under its number, settled or voided: never reused.
    t.last_round_no = max(t.last_round_no, rnd.round_no)
    _escrow(t, rnd)
    events.append(
        BettingClosed(
            rnd.round_id,
            rnd.shoe_id,
            rnd.round_no,
            rnd.dealer_id,
            rnd.bet_list(t.config.chip_unit),
            counted,
            rnd.first_card,
        )
    )
    for hand in HANDS:
        rnd.controllers[hand] = squeezing.controller_for(t, rnd, hand)
    events.append(squeezing.controllers_event(rnd))
    events += [dealing.deal_card(t, rnd, hand, face_down) for hand, face_down in FIRST_FOUR]
    t.enter("squeeze")
    return events + dealing.next_squeeze(t, now)


def _count_idle(t: TableState, rnd: Round) -> tuple[list[Occupant], dict[int, int]]:
    """Idle count: every bettor dealt into this round who did not bet. The bettors it takes
    to the limit, and every other bettor's count by seat. A round the platform's wallet kept
    a bettor from betting in (theirs or the dealer's not confirmed) does not count."""
    idle: list[Occupant] = []
    counted: dict[int, int] = {}
    dealer = t.dealer
    kept_out = dealer is not None and dealer.wallet_away
    for occ in t.bettors():
        if occ.waiting_next_round:
            continue
        if rnd.slip(occ.user_id):
            occ.idle_rounds = 0
        elif not (kept_out or occ.wallet_away):
            occ.idle_rounds += 1
            if occ.idle_rounds >= t.config.idle_rounds_limit:
                idle.append(occ)
                continue
        counted[occ.seat] = occ.idle_rounds
    return idle, counted


def _cover(t: TableState, rnd: Round) -> list[Event]:
    """Return the bets the dealer cannot cover, if any."""
    dealer = t.dealer
    if dealer is None or rnd.liability(t.config.chip_unit) <= dealer.coins:
        return []
    # Bets taken back after others were placed (each chip was checked as it landed) left
    # the book uncovered: what the dealer cannot cover goes back (its bettors bet, so they
    # were counted as not idle), and the round is dealt for the rest.
    return return_uncovered(t, rnd, dealer.coins)


def _escrow(t: TableState, rnd: Round) -> None:
    """Take each bettor's stake from their balance into the round, and keep their slip."""
    unit = t.config.chip_unit
    assert t.shoe is not None
    rnd.first_card = t.shoe.dealt
    for uid, bettor in rnd.bettors.items():
        payer = t.occupant(uid)
        assert payer is not None, "bets of a bettor who left were dropped"
        rnd.escrow[uid] = bettor.stake_chips() * unit
        payer.coins -= rnd.escrow[uid]
        t.last_slips[uid] = dict(bettor.slip)

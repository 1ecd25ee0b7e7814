"""Betting at a table: chips, clearing, and the dealer's urge.

Each function checks everything before it changes anything, so a refused command changes
nothing; :func:`check_chip` is also the "can I bet" question a screen asks.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from baccarat.bets import DEALER_AREAS, Area, parse_area, stake_coins, verify_bet, verify_chip
from baccarat.errors import RuleViolation
from baccarat.table.commands import ClearBets, PlaceChip, Urge
from baccarat.table.events import BetsChanged, BetsCleared, BettorUrged, ChipPlaced, Event, Urged
from baccarat.table.round import Bettor, Round
from baccarat.table.seats import Occupant

if TYPE_CHECKING:
    from baccarat.table.state import TableState


def check_bettor(t: TableState, user_id: int, now: float) -> tuple[Occupant, Round]:
    """Raise why ``user_id`` may not bet now; return their seat and the open round."""
    occ = t.require_seat(user_id)
    if occ.is_dealer:
        raise RuleViolation("dealer_cannot_bet", "The dealer books the bets and cannot bet.")
    rnd = t.round
    if rnd is None:
        raise RuleViolation("not_betting", "No round is open for betting.")
    if not t.betting_open(now):
        raise RuleViolation("betting_closed", "Betting is closed for this round.")
    if occ.waiting_next_round:
        raise RuleViolation("not_in_round", "You sat down during this round; bet in the next.")
    return occ, rnd


def verify_wallet(t: TableState, occ: Occupant) -> None:
    """Raise ``wallet_unavailable`` when a stake of ``occ``'s would count on a balance the
    platform's wallet has not confirmed: the bettor's own, or the dealer's that covers it."""
    dealer = t.dealer
    if occ.wallet_away or (dealer is not None and dealer.wallet_away):
        raise RuleViolation(
            "wallet_unavailable",
            "The platform's wallet has not confirmed the balance this bet counts on; bets "
            "resume as soon as it answers.",
        )


def bettor_of(rnd: Round, occ: Occupant) -> Bettor:
    """The occupant's part in the round, made on their first chip."""
    bettor = rnd.bettors.get(occ.user_id)
    if bettor is None:
        bettor = Bettor(occ.user_id, occ.name, occ.level, occ.seat, rnd.next_order)
        rnd.next_order += 1
        rnd.bettors[occ.user_id] = bettor
    return bettor


def check_chip(t: TableState, c: PlaceChip, now: float) -> tuple[Occupant, Round, Area]:
    """Raise the rule a chip breaks; return who bets, the round and the area."""
    chip = verify_chip(c.chip)
    area = parse_area(c.area)
    occ, rnd = check_bettor(t, c.user_id, now)
    verify_wallet(t, occ)
    slip = rnd.slip(occ.user_id)
    verify_bet(slip, area, chip, chip_unit=t.config.chip_unit, coins=occ.coins)
    if area in DEALER_AREAS:
        verify_cover(t, rnd, {area: chip})
    return occ, rnd, area


def covers(
    t: TableState, rnd: Round, extra: dict[Area, int], book: tuple[int, int] | None = None
) -> bool:
    """Whether the dealer could pay the round's book with ``extra`` chips added, in the worse
    outcome (Player or Banker wins); ``book`` is the round's ``book_chips()`` when the caller
    already has them. Only ``extra``'s Player and Banker chips count: chips on neither need no
    cover."""
    if extra.keys().isdisjoint(DEALER_AREAS):
        return True
    dealer = t.dealer
    return dealer is not None and rnd.liability(t.config.chip_unit, extra, book) <= dealer.coins


def return_uncovered(t: TableState, rnd: Round, coins: int) -> list[Event]:
    """At the close, give back what the dealer's ``coins`` cannot cover, the latest bets first.

    Each chip was checked when it landed, but a bet cleared since (or the dealer's coins
    falling) can leave the book uncovered. The side whose win would cost the dealer more is
    the one not covered: its latest bet (by its first chip) gives back as many chips as the
    cover lacks, then the one before it, until the book is covered; the round is dealt for
    the rest. Tie and pair bets, which the house books, never go back for this. Each bettor
    whose slip changed gets a ``bets_changed`` (``uncovered``), or a ``bets_cleared`` when
    nothing is left of it."""
    unit = t.config.chip_unit
    touched: dict[int, Bettor] = {}
    while rnd.liability(unit) > coins:
        player, banker = rnd.book_chips()
        heavy: Area = "player" if player > banker else "banker"
        bets = [b for b in rnd.bettors.values() if b.slip.get(heavy)]
        latest = max(bets, key=lambda b: (b.placed_at[heavy], b.order))
        lacking = math.ceil((rnd.liability(unit) - coins) / unit)
        back = min(lacking, latest.slip[heavy])
        latest.slip[heavy] -= back
        if not latest.slip[heavy]:
            del latest.slip[heavy]
            del latest.placed_at[heavy]
        touched[latest.user_id] = latest
    events: list[Event] = []
    for uid, bettor in touched.items():
        occ = t.occupant(uid)
        assert occ is not None, "the bets of a bettor who left were dropped"
        if bettor.stake_chips():
            slip = dict(bettor.slip)
            events.append(
                BetsChanged(rnd.round_id, occ.seat, uid, "uncovered", slip, stake_coins(slip, unit))
            )
        else:
            events.append(drop_bets(t, rnd, occ, "uncovered"))
    return events


def verify_cover(
    t: TableState, rnd: Round, extra: dict[Area, int], book: tuple[int, int] | None = None
) -> None:
    """Refuse chips the dealer could not pay in the worse outcome (``covers``)."""
    if not covers(t, rnd, extra, book):
        dealer = t.dealer
        owed = rnd.liability(t.config.chip_unit, extra, book)
        raise RuleViolation(
            "dealer_cannot_cover",
            f"The dealer could not pay {owed} coins if that side won; the dealer has "
            f"{dealer.coins if dealer else 0}.",
            dealer_coins=dealer.coins if dealer else 0,
            liability=owed,
        )


def place_chip(t: TableState, c: PlaceChip, now: float) -> list[Event]:
    """Put one chip on an area for the bettor."""
    occ, rnd, area = check_chip(t, c, now)
    bettor = bettor_of(rnd, occ)
    bettor.slip[area] = bettor.slip.get(area, 0) + c.chip
    bettor.placed_at.setdefault(area, now)
    bettor.actions.append({area: c.chip})
    return [
        ChipPlaced(
            round_id=rnd.round_id,
            seat=occ.seat,
            user_id=occ.user_id,
            area=area,
            chip=c.chip,
            chips=bettor.slip[area],
            stake=stake_coins(bettor.slip, t.config.chip_unit),
        )
    ]


def clear_bets(t: TableState, c: ClearBets, now: float) -> list[Event]:
    """Take back all of a bettor's chips while betting is open."""
    occ = t.require_seat(c.user_id)
    if occ.is_dealer:
        raise RuleViolation("dealer_cannot_bet", "The dealer has no bets to clear.")
    rnd = t.round
    if rnd is None:
        raise RuleViolation("not_betting", "No round is open for betting.")
    if not t.betting_open(now):
        raise RuleViolation("betting_closed", "Betting is closed; bets are final.")
    if not rnd.slip(occ.user_id):
        raise RuleViolation("no_bets", "You have no bets to clear.")
    return [drop_bets(t, rnd, occ, "cleared")]


def drop_bets(t: TableState, rnd: Round, occ: Occupant, reason: str) -> BetsCleared:
    """Remove a bettor's bets from an open round (cleared, or the bettor left)."""
    del rnd.bettors[occ.user_id]
    return BetsCleared(rnd.round_id, occ.seat, occ.user_id, reason)


def urge(t: TableState, c: Urge, now: float) -> list[Event]:
    """The dealer reminds every bettor who has not bet yet; public and private events."""
    occ, rnd = verify_urge(t, c.user_id, now)
    deadline = t.deadline
    assert deadline is not None, "betting is open, so it has a deadline"
    t.last_urge_at = now
    targets = [o for o in t.bettors() if not o.waiting_next_round and not rnd.slip(o.user_id)]
    events: list[Event] = [
        Urged(
            round_id=rnd.round_id,
            dealer=occ.user_id,
            seats=tuple(o.seat for o in targets),
            ready_at=now + t.config.urge_cooldown_seconds,
        )
    ]
    events += [BettorUrged(o.user_id, rnd.round_id, occ.user_id, deadline) for o in targets]
    return events


def verify_urge(t: TableState, user_id: int, now: float) -> tuple[Occupant, Round]:
    """The dealer and the open round, or the rule an urge from ``user_id`` breaks now."""
    occ = t.occupant(user_id)
    if occ is None or not occ.is_dealer:
        raise RuleViolation("not_dealer", "Only the dealer may urge the bettors.")
    rnd = t.round
    if rnd is None:
        raise RuleViolation("not_betting", "No round is open for betting.")
    if not t.betting_open(now):
        raise RuleViolation("betting_closed", "Betting is closed for this round.")
    ready = t.urge_ready_at()
    if ready is not None and now < ready:
        left = round(ready - now, 3)
        raise RuleViolation(
            "urge_cooling_down",
            f"The urge button is cooling down for {math.ceil(left)} more seconds.",
            seconds_left=left,
        )
    return occ, rnd

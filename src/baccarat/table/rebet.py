"""Rebet, double and undo: each changes a bettor's slip as one command, whole or not at all.

- rebet (重複) places again the bets of the bettor's last round at this table, on an empty
  slip;
- double (加倍) adds to each area as many chips as are on it;
- undo (撤銷) takes back the last chip, or the last rebet or double as a whole.

Each is checked against every rule before anything changes (limits, Player/Banker
exclusivity, the bettor's coins, the dealer's cover), so a partial rebet or double never
happens. The ``can_`` functions answer the same questions for a screen's buttons.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from baccarat.bets import Area, stake_coins, verify_bets
from baccarat.errors import InvalidInput, RuleViolation
from baccarat.table.betting import bettor_of, check_bettor, verify_cover, verify_wallet
from baccarat.table.commands import Double, Rebet, Undo
from baccarat.table.events import BetsChanged, Event
from baccarat.table.round import Round
from baccarat.table.seats import Occupant

if TYPE_CHECKING:
    from baccarat.table.state import TableState


def _verify_added(t: TableState, occ: Occupant, rnd: Round, added: dict[Area, int]) -> None:
    verify_wallet(t, occ)
    verify_bets(rnd.slip(occ.user_id), added, chip_unit=t.config.chip_unit, coins=occ.coins)
    verify_cover(t, rnd, added)


def verify_rebet(
    t: TableState, user_id: int, now: float
) -> tuple[Occupant, Round, dict[Area, int]]:
    """Raise why a rebet is refused; return who bets, the round and the bets to place."""
    occ, rnd = check_bettor(t, user_id, now)
    last = t.last_slips.get(user_id)
    if not last:
        raise RuleViolation("nothing_to_rebet", "You have no earlier bets at this table to repeat.")
    if rnd.slip(user_id):
        raise RuleViolation(
            "already_bet", "Rebet repeats your last bets on an empty slip; clear yours first."
        )
    _verify_added(t, occ, rnd, last)
    return occ, rnd, dict(last)


def verify_double(
    t: TableState, user_id: int, now: float
) -> tuple[Occupant, Round, dict[Area, int]]:
    """Raise why a double is refused; return who bets, the round and the bets to add."""
    occ, rnd = check_bettor(t, user_id, now)
    added = rnd.slip(user_id)
    if not added:
        raise RuleViolation("no_bets", "You have no bets to double.")
    _verify_added(t, occ, rnd, added)
    return occ, rnd, added


def verify_undo(t: TableState, user_id: int, now: float) -> tuple[Occupant, Round]:
    """Raise why an undo is refused; return who bets and the round."""
    occ, rnd = check_bettor(t, user_id, now)
    if not rnd.slip(user_id):
        raise RuleViolation("no_bets", "You have no bets to undo.")
    return occ, rnd


def _can(
    check: Callable[[TableState, int, float], object], t: TableState, user_id: int, now: float
) -> bool:
    try:
        check(t, user_id, now)
    except (InvalidInput, RuleViolation):
        return False
    return True


def can_rebet(t: TableState, user_id: int, now: float) -> bool:
    """Whether a rebet would be taken now."""
    return _can(verify_rebet, t, user_id, now)


def can_double(t: TableState, user_id: int, now: float) -> bool:
    """Whether a double would be taken now."""
    return _can(verify_double, t, user_id, now)


def can_undo(t: TableState, user_id: int, now: float) -> bool:
    """Whether an undo would be taken now."""
    return _can(verify_undo, t, user_id, now)


def _changed(t: TableState, rnd: Round, occ: Occupant, action: str) -> BetsChanged:
    slip = rnd.slip(occ.user_id)
    return BetsChanged(
        rnd.round_id, occ.seat, occ.user_id, action, slip, stake_coins(slip, t.config.chip_unit)
    )


def _add(t: TableState, occ: Occupant, rnd: Round, added: dict[Area, int], now: float) -> None:
    bettor = bettor_of(rnd, occ)
    for area, chips in added.items():
        bettor.slip[area] = bettor.slip.get(area, 0) + chips
        bettor.placed_at.setdefault(area, now)
    bettor.actions.append(dict(added))


def rebet(t: TableState, c: Rebet, now: float) -> list[Event]:
    """Place the bettor's last round's bets again, all of them or none."""
    occ, rnd, added = verify_rebet(t, c.user_id, now)
    _add(t, occ, rnd, added, now)
    return [_changed(t, rnd, occ, "rebet")]


def double(t: TableState, c: Double, now: float) -> list[Event]:
    """Double every bet on the bettor's slip, all of them or none."""
    occ, rnd, added = verify_double(t, c.user_id, now)
    _add(t, occ, rnd, added, now)
    return [_changed(t, rnd, occ, "double")]


def undo(t: TableState, c: Undo, now: float) -> list[Event]:
    """Take back the bettor's last chip, or their last rebet or double."""
    occ, rnd = verify_undo(t, c.user_id, now)
    bettor = rnd.bettors[occ.user_id]
    for area, chips in bettor.actions.pop().items():
        bettor.slip[area] -= chips
        if not bettor.slip[area]:
            del bettor.slip[area]
            del bettor.placed_at[area]
    if not bettor.slip:
        # An empty slip is no bet at all, as after a clear.
        del rnd.bettors[occ.user_id]
    return [_changed(t, rnd, occ, "undo")]

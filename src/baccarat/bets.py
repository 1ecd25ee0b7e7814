"""Bet areas, chips and the per-bettor limits, as a verify / can / do triad.

``verify_bet`` raises the rule a bet breaks, ``can_bet`` answers yes or no (for greying out
a button), ``place_bet`` checks and returns the new slip. A slip maps each area to chips.
``verify_bets`` / ``can_add_bets`` / ``add_bets`` do the same for many bets taken as one
(a rebet, a double).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

from baccarat.errors import InvalidInput, RuleViolation
from baccarat.numbers import whole

Area = Literal["player", "banker", "tie", "player_pair", "banker_pair"]
AREAS: tuple[Area, ...] = get_args(Area)

CHIPS: tuple[int, ...] = (1, 2, 3, 5, 10)
"""Chip denominations, in units of the room's ``chip_unit``."""

LIMITS: dict[Area, int] = {
    "player": 50,
    "banker": 50,
    "tie": 10,
    "player_pair": 10,
    "banker_pair": 10,
}
"""Most chips a bettor may have on an area in one round."""

PAYOUT: dict[Area, int] = {"player": 1, "banker": 1, "tie": 8, "player_pair": 11, "banker_pair": 11}
"""Profit per unit staked on a winning bet."""

DEALER_AREAS: tuple[Area, ...] = ("player", "banker")
"""Areas the dealer books peer to peer; the house books the rest."""

AREA_NAMES: dict[Area, str] = {
    "player": "Player",
    "banker": "Banker",
    "tie": "Tie",
    "player_pair": "Player Pair",
    "banker_pair": "Banker Pair",
}

Slip = Mapping[Area, int]


def parse_area(text: object) -> Area:
    """Read an area name."""
    if text not in AREAS:
        raise InvalidInput(
            "unknown_area", f"{text!r} is not a bet area; the areas are {', '.join(AREAS)}."
        )
    return text


def verify_chip(chip: object) -> int:
    """Check that ``chip`` is one of the chip denominations."""
    if not whole(chip) or chip not in CHIPS:
        raise InvalidInput(
            "bad_chip", f"{chip!r} is not a chip; the chips are {', '.join(map(str, CHIPS))}."
        )
    return chip


def stake_coins(slip: Slip, chip_unit: int) -> int:
    """The slip's whole stake in coins."""
    return sum(slip.values()) * chip_unit


def verify_bet(slip: Slip, area: Area, chips: int, *, chip_unit: int, coins: int) -> None:
    """Raise the rule that adding ``chips`` on ``area`` to ``slip`` would break."""
    if area not in AREAS:
        raise InvalidInput(
            "unknown_area", f"{area!r} is not a bet area; the areas are {', '.join(AREAS)}."
        )
    if not whole(chips) or chips <= 0:
        raise InvalidInput(
            "bad_chips", f"A bet must be a whole positive number of chips, not {chips!r}."
        )
    other: Area | None = "banker" if area == "player" else "player" if area == "banker" else None
    if other is not None and slip.get(other, 0) > 0:
        raise RuleViolation(
            "player_banker_exclusive",
            f"You already bet on {AREA_NAMES[other]}; Player and Banker cannot both be bet in one round.",
        )
    limit = LIMITS[area]
    if slip.get(area, 0) + chips > limit:
        raise RuleViolation(
            "over_limit",
            f"{AREA_NAMES[area]} allows at most {limit} chips a round; you have {slip.get(area, 0)}.",
            area=area,
            limit=limit,
        )
    needed = stake_coins(slip, chip_unit) + chips * chip_unit
    if needed > coins:
        raise RuleViolation(
            "insufficient_coins",
            f"That bet would stake {needed} coins in all, but you have {coins}.",
        )


def can_bet(slip: Slip, area: Area, chips: int, *, chip_unit: int, coins: int) -> bool:
    """Whether adding ``chips`` on ``area`` keeps to every rule."""
    try:
        verify_bet(slip, area, chips, chip_unit=chip_unit, coins=coins)
    except (InvalidInput, RuleViolation):
        return False
    return True


def place_bet(slip: Slip, area: Area, chips: int, *, chip_unit: int, coins: int) -> dict[Area, int]:
    """Check the bet and return the new slip (``slip`` is not changed)."""
    verify_bet(slip, area, chips, chip_unit=chip_unit, coins=coins)
    out = dict(slip)
    out[area] = out.get(area, 0) + chips
    return out


def dealer_liability(player_coins: int, banker_coins: int) -> int:
    """What the dealer pays in the worse of the two outcomes (Player wins, Banker wins).

    The two sides offset each other: if Player wins the dealer pays the Player bets and
    collects the Banker bets, and the other way round; a tie pushes both.
    """
    return max(player_coins - banker_coins, banker_coins - player_coins, 0)


def max_liability(chip_unit: int, bettor_seats: int) -> int:
    """The largest liability the limits allow: every bettor seat at the limit on one side."""
    return bettor_seats * LIMITS["player"] * chip_unit


def verify_bets(slip: Slip, added: Slip, *, chip_unit: int, coins: int) -> None:
    """Raise the first rule that adding every bet of ``added`` to ``slip`` at once would break.

    The bets are checked as one: each area's limit, Player/Banker exclusivity and the whole
    stake against ``coins``, so a slip is either taken whole or refused whole.
    """
    current = dict(slip)
    for area, chips in added.items():
        verify_bet(current, area, chips, chip_unit=chip_unit, coins=coins)
        current[area] = current.get(area, 0) + chips


def can_add_bets(slip: Slip, added: Slip, *, chip_unit: int, coins: int) -> bool:
    """Whether every bet of ``added`` may join ``slip`` at once."""
    try:
        verify_bets(slip, added, chip_unit=chip_unit, coins=coins)
    except (InvalidInput, RuleViolation):
        return False
    return True


def add_bets(slip: Slip, added: Slip, *, chip_unit: int, coins: int) -> dict[Area, int]:
    """Check ``added`` as a whole and return the new slip (``slip`` is not changed)."""
    verify_bets(slip, added, chip_unit=chip_unit, coins=coins)
    out = dict(slip)
    for area, chips in added.items():
        out[area] = out.get(area, 0) + chips
    return out


def remaining_limits(slip: Slip) -> dict[Area, int]:
    """Chips still allowed on each area (0 on the area excluded by Player/Banker)."""
    out = {a: LIMITS[a] - slip.get(a, 0) for a in AREAS}
    if slip.get("player", 0) > 0:
        out["banker"] = 0
    if slip.get("banker", 0) > 0:
        out["player"] = 0
    return out

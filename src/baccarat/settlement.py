"""Exact integer settlement of one round (docs/rules.md, "Settlement").

Each bettor's net is the sum of their bets' results; the house takes 1% of a positive net.
The dealer's net is the opposite of the bettors' results on ``player`` and ``banker``; the
house takes 1% of it when positive. The house books Tie and the Pairs. Every stake is a
multiple of 100 coins, so every commission is a whole coin and nothing is rounded; the sum
of all changes is exactly 0.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Generic, TypeVar

from baccarat.bets import AREAS, DEALER_AREAS, PAYOUT, Area
from baccarat.errors import InvalidInput
from baccarat.numbers import whole
from baccarat.rules import Outcome

K = TypeVar("K", bound=Hashable)
"""Whatever names a user: a name in the CLI, an account id at a table."""

COMMISSION = Fraction(1, 100)
COIN_QUANTUM = 100
"""Every chip_unit is a multiple of this, which keeps 1% commissions whole."""


def verify_chip_unit(chip_unit: object) -> int:
    """Check that a room's chip_unit keeps every commission a whole coin."""
    if not whole(chip_unit) or chip_unit <= 0:
        raise InvalidInput(
            "bad_chip_unit",
            f"chip_unit must be a positive whole number of coins, not {chip_unit!r}.",
        )
    if chip_unit % COIN_QUANTUM:
        raise InvalidInput(
            "bad_chip_unit",
            f"chip_unit must be a multiple of {COIN_QUANTUM} coins so that 1% commission is whole; got {chip_unit}.",
        )
    return chip_unit


def area_result(outcome: Outcome, area: Area, stake: int) -> int:
    """What a stake on ``area`` wins (positive), loses (negative) or pushes (0)."""
    winner = outcome.winner
    if area in DEALER_AREAS:
        if winner == "tie":
            return 0
        return stake * PAYOUT[area] if winner == area else -stake
    won = (
        winner == "tie"
        if area == "tie"
        else outcome.player_pair
        if area == "player_pair"
        else outcome.banker_pair
    )
    return stake * PAYOUT[area] if won else -stake


def commission_on(net: int) -> int:
    """The house's 1% of a positive net; nothing on a loss or zero."""
    if net <= 0:
        return 0
    fee = net * COMMISSION
    if fee.denominator != 1:
        raise InvalidInput("inexact_commission", f"1% of {net} coins is not a whole coin.")
    return int(fee)


@dataclass(frozen=True, slots=True)
class Settlement(Generic[K]):
    """The coin changes of one round. ``deltas`` are after commission."""

    dealer: K
    deltas: dict[K, int]
    commission: dict[K, int]
    house: int
    results: dict[K, dict[Area, int]] = field(default_factory=dict)
    """Each bettor's gross result per area, before commission."""

    def total(self) -> int:
        """Sum of every change, the house's included: always 0."""
        return sum(self.deltas.values()) + self.house


def settle(outcome: Outcome, dealer: K, stakes: Mapping[K, Mapping[Area, int]]) -> Settlement[K]:
    """Settle one round. ``stakes`` maps each bettor to coins staked per area."""
    if dealer in stakes and any(stakes[dealer].values()):
        raise InvalidInput("dealer_cannot_bet", "The dealer books the bets and cannot bet.")
    deltas: dict[K, int] = {dealer: 0}
    commission: dict[K, int] = {}
    results: dict[K, dict[Area, int]] = {}
    house = 0
    dealer_gross = 0
    for bettor, slip in stakes.items():
        per_area = _area_results(outcome, slip)
        net = sum(per_area.values())
        fee = commission_on(net)
        if fee:
            commission[bettor] = fee
        deltas[bettor] = net - fee
        results[bettor] = per_area
        dealer_gross -= _dealer_booked(per_area)
        house -= _house_booked(per_area)
        house += fee
    dealer_fee = commission_on(dealer_gross)
    if dealer_fee:
        commission[dealer] = dealer_fee
    deltas[dealer] = dealer_gross - dealer_fee
    house += dealer_fee
    settlement = Settlement(dealer, deltas, commission, house, results)
    assert settlement.total() == 0, "settlement must conserve coins"
    return settlement


def _area_results(outcome: Outcome, slip: Mapping[Area, int]) -> dict[Area, int]:
    """One bettor's gross result on each area they staked, in the order of AREAS."""
    per_area: dict[Area, int] = {}
    for area in AREAS:
        stake = slip.get(area, 0)
        if stake:
            per_area[area] = area_result(outcome, area, stake)
    return per_area


def _dealer_booked(per_area: Mapping[Area, int]) -> int:
    """A bettor's gross result on the areas the dealer books (Player and Banker)."""
    return sum(v for a, v in per_area.items() if a in DEALER_AREAS)


def _house_booked(per_area: Mapping[Area, int]) -> int:
    """A bettor's gross result on the areas the house books (Tie and the Pairs)."""
    return sum(v for a, v in per_area.items() if a not in DEALER_AREAS)

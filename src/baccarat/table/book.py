"""The dealer's book: every seat's bets, the Player and Banker totals, and the exposure."""

from __future__ import annotations

from typing import TypedDict

from baccarat.bets import DEALER_AREAS, Area
from baccarat.table.round import Round


class Book(TypedDict):
    """The dealer's book: each seat's bets (by seat number as text), the Player and Banker
    totals in chips and coins, and the dealer's gross result for each winner."""

    per_seat: dict[str, dict[Area, int]]
    totals: dict[Area, dict[str, int]]
    exposure: dict[str, int]


def exposure(player_coins: int, banker_coins: int) -> dict[str, int]:
    """The dealer's gross result for each winner, before commission."""
    return {
        "if_player_wins": banker_coins - player_coins,
        "if_banker_wins": player_coins - banker_coins,
        "if_tie": 0,
    }


def book(rnd: Round | None, chip_unit: int) -> Book:
    """The dealer's view of the round's bets (an empty book between rounds)."""
    per_seat: dict[str, dict[Area, int]] = {}
    totals = {area: 0 for area in DEALER_AREAS}
    if rnd is not None:
        for bettor in rnd.bettors.values():
            if bettor.stake_chips():
                per_seat[str(bettor.seat)] = {a: n for a, n in bettor.slip.items() if n}
            for area in DEALER_AREAS:
                totals[area] += bettor.slip.get(area, 0)
    return {
        "per_seat": per_seat,
        "totals": {
            area: {"chips": chips, "coins": chips * chip_unit} for area, chips in totals.items()
        },
        "exposure": exposure(totals["player"] * chip_unit, totals["banker"] * chip_unit),
    }

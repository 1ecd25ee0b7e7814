"""A dealt round as the store keeps it: its cards in notation and its outcome's own record.

The store writes this form with a round's settlement and the audit deals the cards again and
compares against it. Its keys and values are the ones every round was ever stored with
(``{"player": {"cards", "points", "pair"}, "banker": ..., "winner"}``), so a database
written before keeps being read and audited alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

from baccarat.cards import Card
from baccarat.rules import Outcome, Winner
from baccarat.settlement import Settlement
from baccarat.store.ops import Settle


class StoredHand(TypedDict):
    """One hand of a dealt round: its cards in notation, its points, whether it is a pair."""

    cards: list[str]
    points: int
    pair: bool


class StoredOutcome(TypedDict):
    """A dealt round's hands and winner, as the store keeps them."""

    player: StoredHand
    banker: StoredHand
    winner: Winner


def stored_cards(cards: Iterable[Card]) -> tuple[str, ...]:
    """Cards in notation (``"AS"``, ``"TD"``), in the order they were dealt."""
    return tuple(str(c) for c in cards)


def stored_outcome(o: Outcome) -> StoredOutcome:
    """The record of a dealt round's outcome."""
    return {
        "player": {"cards": list(stored_cards(o.player)), "points": o.player_points,
                   "pair": o.player_pair},
        "banker": {"cards": list(stored_cards(o.banker)), "points": o.banker_points,
                   "pair": o.banker_pair},
        "winner": o.winner,
    }  # fmt: skip


def settle_op(
    round_id: str,
    cards: Iterable[Card],
    outcome: Outcome,
    settlement: Settlement[int],
    epoch: int,
) -> Settle:
    """The ledger's write of a dealt round's payout, in the stored form."""
    return Settle(
        round_id,
        stored_cards(cards),
        dict(stored_outcome(outcome)),
        dict(settlement.deltas),
        dict(settlement.commission),
        settlement.house,
        epoch,
    )

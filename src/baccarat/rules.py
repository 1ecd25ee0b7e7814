"""The rules of a baccarat deal: points, naturals, the third-card tableau, pairs, the result.

Dealing order: Player 1st, Banker 1st, Player 2nd, Banker 2nd, then the Player's third
card if it draws, then the Banker's. :func:`next_draw` tells which hand takes the next
card, so a table can deal (and squeeze) one card at a time; :func:`deal` does a whole round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from baccarat.cards import Card

Hand = Literal["player", "banker"]
HANDS: tuple[Hand, ...] = get_args(Hand)
"""The two hands, Player first."""
Winner = Literal["player", "banker", "tie"]

# BANKER_DRAWS[banker_total][player_third_card_value]: True = the Banker hand draws.
# Rows 0-2 always draw, row 7 always stands (docs/rules.md, "Card values and hands").
BANKER_DRAWS: dict[int, tuple[bool, ...]] = {
    0: (True,) * 10,
    1: (True,) * 10,
    2: (True,) * 10,
    3: tuple(v != 8 for v in range(10)),
    4: tuple(2 <= v <= 7 for v in range(10)),
    5: tuple(4 <= v <= 7 for v in range(10)),
    6: tuple(6 <= v <= 7 for v in range(10)),
    7: (False,) * 10,
}


def points(cards: Sequence[Card]) -> int:
    """A hand's points: the last digit of the sum of its card values."""
    return sum(c.value for c in cards) % 10


def is_natural(cards: Sequence[Card]) -> bool:
    """Two cards making 8 or 9."""
    return len(cards) == 2 and points(cards) >= 8


def is_pair(cards: Sequence[Card]) -> bool:
    """The first two cards are of the same rank (K-K is a pair; K-Q is not)."""
    return len(cards) >= 2 and cards[0].rank == cards[1].rank


def player_draws(player_total: int) -> bool:
    """The Player hand draws a third card on 0-5 and stands on 6-7."""
    return player_total <= 5


def banker_draws(banker_total: int, player_third: Card | None) -> bool:
    """Whether the Banker hand draws, given its two-card total and the Player's third card.

    With no Player third card (the Player stood), the Banker draws on 0-5 like the Player.
    """
    if player_third is None:
        return banker_total <= 5
    return BANKER_DRAWS.get(banker_total, (False,) * 10)[player_third.value]


def next_draw(player: Sequence[Card], banker: Sequence[Card]) -> Hand | None:
    """Which hand takes the next card, or None when the deal is complete."""
    if len(player) < 2 or len(banker) < 2:
        return _opening_draw(player, banker)
    if is_natural(player[:2]) or is_natural(banker[:2]):
        return None
    if len(player) == 2 and player_draws(points(player[:2])):
        return "player"
    if len(banker) == 2 and _banker_takes_third(player, banker):
        return "banker"
    return None


def _opening_draw(player: Sequence[Card], banker: Sequence[Card]) -> Hand:
    """The first four cards alternate, Player first."""
    return "player" if len(player) <= len(banker) else "banker"


def _banker_takes_third(player: Sequence[Card], banker: Sequence[Card]) -> bool:
    """Whether the Banker's two cards draw, once the Player has drawn or stood."""
    third = player[2] if len(player) == 3 else None
    return banker_draws(points(banker[:2]), third)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A dealt round: the two hands and what they decide."""

    player: tuple[Card, ...]
    banker: tuple[Card, ...]

    @property
    def player_points(self) -> int:
        """The Player hand's points."""
        return points(self.player)

    @property
    def banker_points(self) -> int:
        """The Banker hand's points."""
        return points(self.banker)

    @property
    def winner(self) -> Winner:
        """The hand closer to 9; equal points are a tie."""
        p, b = self.player_points, self.banker_points
        if p > b:
            return "player"
        if b > p:
            return "banker"
        return "tie"

    @property
    def player_pair(self) -> bool:
        """The Player's first two cards are a pair."""
        return is_pair(self.player)

    @property
    def banker_pair(self) -> bool:
        """The Banker's first two cards are a pair."""
        return is_pair(self.banker)

    @property
    def winner_points(self) -> int:
        """The winner's points (the tied points on a tie), as the roads show them."""
        return self.player_points if self.winner == "player" else self.banker_points


def deal(draw: Callable[[], Card]) -> Outcome:
    """Deal one whole round, taking cards from ``draw`` in dealing order."""
    player: list[Card] = []
    banker: list[Card] = []
    while (hand := next_draw(player, banker)) is not None:
        (player if hand == "player" else banker).append(draw())
    return Outcome(tuple(player), tuple(banker))

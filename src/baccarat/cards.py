"""Cards: ranks, suits, notation and baccarat values.

Notation is two characters, rank then suit: rank ``A 2-9 T J Q K``, suit ``S H D C``
(``TH`` is the ten of hearts). ``10H`` is accepted on input and always printed as ``TH``.
"""

from __future__ import annotations

from dataclasses import dataclass

from baccarat.errors import InvalidInput
from baccarat.numbers import whole

RANKS = "A23456789TJQK"
SUITS = "SHDC"


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card. ``rank`` is 1 (ace) to 13 (king); ``suit`` is one of ``SHDC``."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        # Check types first: a non-text suit would make `in SUITS` raise TypeError instead.
        rank_ok = whole(self.rank)
        suit_ok = isinstance(self.suit, str) and len(self.suit) == 1 and self.suit in SUITS
        if not (rank_ok and 1 <= self.rank <= 13 and suit_ok):
            raise InvalidInput(
                "unknown_card", f"There is no card of rank {self.rank!r} and suit {self.suit!r}."
            )

    @property
    def value(self) -> int:
        """Baccarat value: ace 1, two to nine at face value, ten and faces 0."""
        return self.rank if self.rank < 10 else 0

    def __str__(self) -> str:
        return RANKS[self.rank - 1] + self.suit


def parse_card(text: str) -> Card:
    """Read one card in notation (``TH``, ``10H``, ``as`` in any case)."""
    if not isinstance(text, str):
        raise InvalidInput("unknown_card", f"A card is written as text like 'TH', not {text!r}.")
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise InvalidInput(
            "unknown_card",
            f"'{text}' is not a card: write a rank (A 2-9 T J Q K) then a suit (S H D C), like 'TH'.",
        )
    return Card(RANKS.index(t[0]) + 1, t[1])


def parse_cards(texts: list[str]) -> list[Card]:
    """Read a list of cards in notation."""
    return [parse_card(t) for t in texts]


def deck() -> list[Card]:
    """One 52-card deck in canonical order: suits S, H, D, C; within a suit A to K."""
    return [Card(rank, suit) for suit in SUITS for rank in range(1, 14)]

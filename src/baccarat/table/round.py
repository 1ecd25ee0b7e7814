"""One round at a table: its bets, its cards as dealt, and how far it has gone."""

from __future__ import annotations

from dataclasses import dataclass, field

from baccarat.bets import AREAS, Area, dealer_liability
from baccarat.cards import Card
from baccarat.rules import Hand, Outcome, points
from baccarat.settlement import Settlement
from baccarat.table.events import Bet
from baccarat.table.squeeze import Squeeze

CardRef = tuple[Hand, int]
"""A card by hand and position in that hand (0-based: the second card is position 1)."""


@dataclass(slots=True)
class Bettor:
    """A bettor's part in a round; it stays in the round if they leave after betting closes."""

    user_id: int
    name: str
    level: int
    seat: int
    order: int
    """When this bettor's first chip landed, for the squeeze's tie-break."""
    slip: dict[Area, int] = field(default_factory=dict)
    placed_at: dict[Area, float] = field(default_factory=dict)
    """The time of the first chip on each area."""
    actions: list[dict[Area, int]] = field(default_factory=list)
    """What each chip, rebet or double added, oldest first, so undo can take the last back."""

    def stake_chips(self) -> int:
        """All chips this bettor has on the table."""
        return sum(self.slip.values())


@dataclass(slots=True)
class Round:
    """A round from the opening of betting to the end of its result display."""

    round_id: str
    shoe_id: str
    round_no: int
    dealer_id: int
    dealer_name: str
    opened_at: float
    first_card: int = 0
    """Where in the shoe the round's cards start (set when betting closes)."""
    bettors: dict[int, Bettor] = field(default_factory=dict)
    next_order: int = 0
    closed: bool = False
    """Betting has closed and the stakes are in escrow."""
    settled: bool = False
    escrow: dict[int, int] = field(default_factory=dict)
    """Coins each bettor staked, taken from their balance when betting closed."""
    player: list[Card] = field(default_factory=list)
    banker: list[Card] = field(default_factory=list)
    dealt: list[CardRef] = field(default_factory=list)
    """Every card in dealing order."""
    face_down: set[CardRef] = field(default_factory=set)
    pending: list[CardRef] = field(default_factory=list)
    """Face-down cards waiting for their squeeze, in order."""
    controllers: dict[Hand, int | None] = field(default_factory=dict)
    squeeze: Squeeze | None = None

    def hand(self, hand: Hand) -> list[Card]:
        """The cards of one hand."""
        return self.player if hand == "player" else self.banker

    def card(self, ref: CardRef) -> Card:
        """The card at a hand and position."""
        return self.hand(ref[0])[ref[1]]

    def open_points(self, hand: Hand) -> int:
        """The points of a hand's face-up cards."""
        return points([c for i, c in enumerate(self.hand(hand)) if (hand, i) not in self.face_down])

    def slip(self, user_id: int) -> dict[Area, int]:
        """A user's chips per area this round (empty if none)."""
        bettor = self.bettors.get(user_id)
        return dict(bettor.slip) if bettor else {}

    def book_chips(self) -> tuple[int, int]:
        """All bettors' chips on Player and on Banker (the dealer's book), in one pass."""
        player = banker = 0
        for b in self.bettors.values():
            player += b.slip.get("player", 0)
            banker += b.slip.get("banker", 0)
        return player, banker

    def liability(
        self,
        chip_unit: int,
        extra: dict[Area, int] | None = None,
        book: tuple[int, int] | None = None,
    ) -> int:
        """The dealer's payout in the worse outcome, with ``extra`` chips added to the book
        (``book``: this round's ``book_chips()``, when the caller already has them)."""
        added = extra or {}
        player, banker = self.book_chips() if book is None else book
        player += added.get("player", 0)
        banker += added.get("banker", 0)
        return dealer_liability(player * chip_unit, banker * chip_unit)

    def stakes(self, chip_unit: int) -> dict[int, dict[Area, int]]:
        """Coins per area per bettor, for settlement."""
        return {
            uid: {a: n * chip_unit for a, n in b.slip.items() if n}
            for uid, b in self.bettors.items()
            if b.stake_chips()
        }

    def bet_list(self, chip_unit: int) -> tuple[Bet, ...]:
        """Every bet, one entry per bettor and area, in the order they were made."""
        out = [
            Bet(b.user_id, b.seat, area, b.slip[area], b.slip[area] * chip_unit, b.placed_at[area])
            for b in self.bettors.values()
            for area in AREAS
            if b.slip.get(area)
        ]
        out.sort(key=lambda e: (e.at, e.seat))
        return tuple(out)

    def cards_in_order(self) -> tuple[Card, ...]:
        """The cards in dealing order."""
        return tuple(self.card(ref) for ref in self.dealt)


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A settled round's result, which the table shows until the next shoe."""

    round_id: str
    round_no: int
    outcome: Outcome
    settlement: Settlement[int]

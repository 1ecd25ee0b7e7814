"""The squeeze: who controls each hand's face-down cards, and the peel in progress."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from baccarat.bets import Area
from baccarat.rules import Hand


@dataclass(slots=True)
class Squeeze:
    """One face-down card being peeled by its controller until it opens or time runs out.

    ``card`` is the card's notation: betting is closed and the card is dealt, so every
    screen at the table may draw the real face under the controller's peel.
    """

    hand: Hand
    position: int
    card: str
    controller: int
    controller_name: str
    deadline: float
    progress: float = 0.0
    corner: str | None = None

    def public(self) -> dict[str, Any]:
        """The squeeze as every screen at the table sees it, the card under the peel included."""
        return {
            "hand": self.hand,
            "position": self.position,
            "card": self.card,
            "controller_user_id": self.controller,
            "controller_name": self.controller_name,
            "progress": self.progress,
            "corner": self.corner,
            "deadline": self.deadline,
        }


def choose_controller(
    hand: Hand,
    slips: Mapping[int, Mapping[Area, int]],
    levels: Mapping[int, int],
    order: Mapping[int, int],
) -> int | None:
    """The bettor who squeezes ``hand``'s face-down cards, or None when nobody bet.

    Most chips on the hand's own area; else the largest total stake; ties go to the higher
    level, then to whoever bet first.
    """
    on_area = {uid: s.get(hand, 0) for uid, s in slips.items() if s.get(hand, 0) > 0}
    weight = on_area or {uid: sum(s.values()) for uid, s in slips.items() if sum(s.values()) > 0}
    if not weight:
        return None
    return max(weight, key=lambda uid: (weight[uid], levels[uid], -order[uid]))

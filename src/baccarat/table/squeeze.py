"""The squeeze: who controls each hand's face-down cards, and the peel in progress."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from baccarat.bets import Area
from baccarat.cards import Card
from baccarat.rules import Hand

Corner = Literal["tl", "tr", "bl", "br", "l", "r", "t", "b"]
"""Where a squeeze peels from: a corner (top-left, top-right, bottom-left, bottom-right) or a
whole side (left, right, top, bottom; a long side shows the pip rows first, 看邊)."""
CORNERS: tuple[Corner, ...] = get_args(Corner)


@dataclass(slots=True)
class Squeeze:
    """One face-down card being peeled by its controller until it opens or time runs out.

    ``card`` is the card itself: betting is closed and the card is dealt, so every screen at
    the table may draw the real face under the controller's peel.
    """

    hand: Hand
    position: int
    card: Card
    controller: int
    controller_name: str
    deadline: float
    latest: float
    """The furthest peeling may push ``deadline`` (the room's ``squeeze_extra`` past it)."""
    progress: float = 0.0
    corner: Corner | None = None


def extend(sq: Squeeze, now: float, keep: float) -> bool:
    """Push ``sq``'s deadline to at least ``keep`` seconds after a peel move at ``now``, never
    past ``sq.latest``; whether it moved. A controller who lets go and peels again is not cut
    off mid-gesture, and one who keeps peeling cannot hold the table past the cap."""
    wanted = min(now + keep, sq.latest)
    if wanted <= sq.deadline:
        return False
    sq.deadline = wanted
    return True


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

"""A bot's plan: its strategy, where it plays, how often it squeezes, urges, cheers and talks."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from baccarat.bets import Area
from baccarat.rules import HANDS

STRATEGIES = ("flat", "streak", "random")


@dataclass(frozen=True)
class BotPlan:
    """What one bot does: its strategy, where it plays, whether it may deal."""

    strategy: str = "flat"
    table_id: str | None = None
    seat: int | None = None
    may_deal: bool = True
    squeeze_chance: float = 0.5
    urge_chance: float = 0.3
    emote_chance: float = 0.15
    """How often a bot that won a round cheers with an emote."""
    chat_chance: float = 0.1
    """How often a bot says a word in the table's chat after a round."""


SIDE_BETS: tuple[Area, ...] = ("tie", "player_pair", "banker_pair")


def choose_bet(
    strategy: str, history: list[dict[str, Any]], rng: random.Random
) -> list[tuple[Area, int]]:
    """The chips to place this round as (area, chip) pairs, by strategy."""
    if strategy == "flat":
        return [("banker", 2)]
    if strategy == "streak":
        last = next((h["winner"] for h in reversed(history) if h.get("winner") != "tie"), None)
        return [(last or "banker", 3)]
    area: Area = rng.choice(HANDS)
    bets: list[tuple[Area, int]] = [(area, rng.choice((1, 2, 3, 5, 10)))]
    if rng.random() < 0.2:
        bets.append((rng.choice(SIDE_BETS), 1))
    return bets

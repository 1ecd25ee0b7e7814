"""A table's settings: its room's money rules and its timers (seconds), plus who sits.

Timers are plain seconds on the driver's clock; :meth:`TableConfig.scaled` divides them all
by a speed factor for demonstrations and tests.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from baccarat.errors import InvalidInput
from baccarat.numbers import whole
from baccarat.settlement import verify_chip_unit
from baccarat.shoe import MIN_CARDS_TO_DEAL, ROUNDS_PER_SHOE

SEATS = 8
DEALER_SEAT = 0

TIMERS: tuple[str, ...] = (
    "betting_seconds",
    "squeeze_seconds",
    "squeeze_peel_seconds",
    "squeeze_extra_seconds",
    "result_seconds",
    "shuffle_seconds",
    "reconnect_grace_seconds",
    "urge_cooldown_seconds",
)


@dataclass(frozen=True, slots=True)
class RoomDefaults:
    """The money rules of one room (docs/rules.md, "Rooms")."""

    chip_unit: int
    bettor_floor: int
    dealer_floor: int


ROOMS: dict[str, RoomDefaults] = {
    "standard": RoomDefaults(100, 1_000, 35_000),
    "high": RoomDefaults(500, 5_000, 175_000),
    "vip": RoomDefaults(1_000, 10_000, 350_000),
}


@dataclass(frozen=True, slots=True)
class UserInfo:
    """A user as the table knows them; ``coins`` is their balance when they sit."""

    user_id: int
    name: str
    level: int
    coins: int
    auto_open: bool = False
    """Open the cards they control at once instead of squeezing (自動開牌)."""


@dataclass(frozen=True, slots=True)
class TableConfig:
    """One table's room settings and timers; the defaults are the standard room's."""

    table_id: str
    room: str = "standard"
    chip_unit: int = 100
    bettor_floor: int = 1_000
    dealer_floor: int = 35_000
    min_level: int = 50
    betting_seconds: float = 15.0
    squeeze_seconds: float = 10.0
    squeeze_peel_seconds: float = 3.0
    """A peel move leaves the controller at least this long before the card opens by itself."""
    squeeze_extra_seconds: float = 5.0
    """The most that peeling adds to ``squeeze_seconds`` for one card."""
    result_seconds: float = 5.0
    shuffle_seconds: float = 2.0
    reconnect_grace_seconds: float = 60.0
    urge_cooldown_seconds: float = 10.0
    idle_rounds_limit: int = 5
    dealer_round_limit: int = 10
    """Rounds in a row one dealer may deal while someone waits in the dealer queue (連莊上限)."""
    rounds_per_shoe: int = ROUNDS_PER_SHOE
    min_cards: int = MIN_CARDS_TO_DEAL

    def __post_init__(self) -> None:
        verify_chip_unit(self.chip_unit)
        _verify_counts(self, ("bettor_floor", "dealer_floor", "min_level"), least=0)
        _verify_counts(
            self, ("idle_rounds_limit", "dealer_round_limit", "rounds_per_shoe"), least=1
        )
        # A round takes at most 6 cards, so fewer could run the shoe dry mid-round.
        if not whole(self.min_cards) or self.min_cards < MIN_CARDS_TO_DEAL:
            raise InvalidInput(
                "bad_config",
                f"min_cards must be at least {MIN_CARDS_TO_DEAL} (a round's most cards), not {self.min_cards!r}.",
            )
        for name in TIMERS:
            value = getattr(self, name)
            if not _positive(value):
                raise InvalidInput(
                    "bad_config", f"{name} must be a positive number of seconds, not {value!r}."
                )

    @classmethod
    def for_room(cls, table_id: str, room: str, **overrides: Any) -> TableConfig:
        """A table of one of the rooms in :data:`ROOMS`, with any setting overridden."""
        if room not in ROOMS:
            raise InvalidInput(
                "bad_config", f"There is no room {room!r}; the rooms are {', '.join(ROOMS)}."
            )
        base = ROOMS[room]
        settings: dict[str, Any] = {
            "chip_unit": base.chip_unit,
            "bettor_floor": base.bettor_floor,
            "dealer_floor": base.dealer_floor,
        }
        settings.update(overrides)
        return cls(table_id=table_id, room=room, **settings)

    def scaled(self, speed: float) -> TableConfig:
        """The same table with every timer divided by ``speed`` (2 runs twice as fast)."""
        if not _positive(speed):
            raise InvalidInput("bad_config", f"speed must be a positive number, not {speed!r}.")
        return dataclasses.replace(self, **{name: getattr(self, name) / speed for name in TIMERS})


def _verify_counts(config: TableConfig, names: tuple[str, ...], least: int) -> None:
    """Refuse a setting among ``names`` that is not a whole number of at least ``least``."""
    for name in names:
        value = getattr(config, name)
        if not whole(value) or value < least:
            raise InvalidInput(
                "bad_config", f"{name} must be a whole number of at least {least}, not {value!r}."
            )


def _positive(value: object) -> bool:
    """Whether ``value`` is a finite number above 0 (a bool is not a number here)."""
    return (
        not isinstance(value, bool)
        and isinstance(value, int | float)
        and math.isfinite(value)
        and value > 0
    )

"""The lobby: the rooms with their rules, and a live line per table."""

from __future__ import annotations

from typing import Any

from baccarat.bets import CHIPS, LIMITS
from baccarat.server.config import RoomsConfig
from baccarat.server.driver import TableDriver


def room_json(config: RoomsConfig) -> list[dict[str, Any]]:
    """Every room's rules as the lobby shows them."""
    return [
        {
            "room_id": r.room_id,
            "name": r.name,
            "min_level": r.min_level,
            "chip_unit": r.chip_unit,
            "bettor_floor": r.bettor_floor,
            "dealer_floor": r.dealer_floor,
            "dealer_round_limit": r.dealer_round_limit,
            "limits": dict(LIMITS),
            "chips": list(CHIPS),
        }
        for r in config.rooms
    ]


def lobby_message(config: RoomsConfig, drivers: dict[str, TableDriver]) -> dict[str, Any]:
    """The whole lobby: rooms, then every table's current line, in file order."""
    tables = [d.summary for d in drivers.values() if d.summary is not None]
    return {"type": "lobby", "rooms": room_json(config), "tables": tables}

"""The table: a pure, sans-I/O state machine of one baccarat table.

``Table(config, shoe_factory, new_id)`` takes commands with ``handle(command, now)`` and
fires timers with ``advance(now)``; both return :class:`Event` lists. ``view(table,
user_id, now)`` projects what one viewer may see.
"""

from baccarat.table.commands import (
    CORNERS,
    ClearBets,
    Command,
    Disconnect,
    OpenCard,
    PlaceChip,
    Reconnect,
    SetCoins,
    Sit,
    SqueezeProgress,
    StandUp,
    Urge,
)
from baccarat.table.config import DEALER_SEAT, ROOMS, SEATS, RoomDefaults, TableConfig, UserInfo
from baccarat.table.events import Event
from baccarat.table.table import Phase, Table
from baccarat.table.view import view

__all__ = [
    "CORNERS",
    "DEALER_SEAT",
    "ROOMS",
    "SEATS",
    "ClearBets",
    "Command",
    "Disconnect",
    "Event",
    "OpenCard",
    "Phase",
    "PlaceChip",
    "Reconnect",
    "RoomDefaults",
    "SetCoins",
    "Sit",
    "SqueezeProgress",
    "StandUp",
    "Table",
    "TableConfig",
    "Urge",
    "UserInfo",
    "view",
]

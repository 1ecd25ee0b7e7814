"""The table: a pure, sans-I/O state machine of one baccarat table.

``Table(config, shoe_factory, new_id)`` takes commands with ``handle(command, now)`` and
fires timers with ``advance(now)``; both return lists of :data:`Event` (one frozen class per
event, :mod:`baccarat.table.events`). ``table_view(table, user_id, now)`` projects what one
viewer may see, as typed values; :mod:`baccarat.protocol` turns events, views and values into
the protocol's JSON (``baccarat.protocol.view.view``).

Refusal codes. ``InvalidInput``: ``user_mismatch``, ``bad_seat``, ``bad_coins``, ``bad_level``,
``bad_pref``, ``bad_chip``, ``unknown_area``, ``bad_hand``, ``bad_progress``, ``bad_corner``,
``unknown_command``, ``bad_config``. ``RuleViolation``: ``level_too_low``, ``coins_below_floor``, ``seat_taken``,
``already_seated``, ``round_in_play``, ``not_seated``, ``dealer_cannot_bet``, ``not_betting``,
``betting_closed``, ``not_in_round``, ``player_banker_exclusive``, ``over_limit``,
``insufficient_coins``, ``dealer_cannot_cover``, ``no_bets``, ``not_dealer``,
``urge_cooling_down`` (details: ``seconds_left``), ``nothing_to_squeeze``, ``not_controller``,
``already_leaving``, ``nothing_to_rebet``, ``already_bet``, ``already_disconnected``,
``not_disconnected``, ``grace_expired``, ``coins_below_stake``, ``already_dealer``,
``already_queued``, ``queue_full``, ``not_queued``, ``dealer_queue``, ``wallet_unavailable``,
``chat_rate_limited`` (details: ``seconds_left``). Chat input: ``bad_text``, ``empty_message``,
``message_too_long``, ``unknown_emote`` (``InvalidInput``).

Money: a seated user's ``coins`` mirror the store. Stakes leave the balance when betting
closes (escrow) and come back with the delta at settlement, so a user who stands up with
bets in play and sits again is loaded with the store's balance and stays in step.
"""

from baccarat.table.commands import (
    ClearBets,
    Command,
    Disconnect,
    Double,
    Emote,
    JoinQueue,
    LeaveQueue,
    OpenCard,
    PlaceChip,
    Rebet,
    Reconnect,
    Resume,
    Say,
    SetAutoOpen,
    SetCoins,
    Sit,
    SqueezeProgress,
    StandUp,
    Suspend,
    Undo,
    Unstake,
    Urge,
    WalletAway,
)
from baccarat.table.config import DEALER_SEAT, ROOMS, SEATS, RoomDefaults, TableConfig, UserInfo
from baccarat.table.events import Event
from baccarat.table.squeeze import CORNERS, Corner
from baccarat.table.table import Phase, Table
from baccarat.table.view import TableView, table_view

__all__ = [
    "CORNERS",
    "DEALER_SEAT",
    "ROOMS",
    "SEATS",
    "ClearBets",
    "Command",
    "Corner",
    "Disconnect",
    "Double",
    "Emote",
    "Event",
    "JoinQueue",
    "LeaveQueue",
    "OpenCard",
    "Phase",
    "PlaceChip",
    "Rebet",
    "Reconnect",
    "Resume",
    "RoomDefaults",
    "Say",
    "SetAutoOpen",
    "SetCoins",
    "Sit",
    "SqueezeProgress",
    "StandUp",
    "Suspend",
    "Table",
    "TableConfig",
    "TableView",
    "Undo",
    "Unstake",
    "Urge",
    "UserInfo",
    "WalletAway",
    "table_view",
]

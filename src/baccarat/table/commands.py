"""What users ask a table to do. Each command names the user it acts for."""

from __future__ import annotations

from dataclasses import dataclass

from baccarat.bets import Area
from baccarat.rules import Hand
from baccarat.table.config import UserInfo
from baccarat.table.squeeze import Corner


@dataclass(frozen=True, slots=True)
class Sit:
    """Take ``seat`` (0 is the dealer seat, 1-7 bettor seats), or move a bettor to seat 0."""

    user_id: int
    user: UserInfo
    seat: int


@dataclass(frozen=True, slots=True)
class StandUp:
    """Leave one's seat."""

    user_id: int


@dataclass(frozen=True, slots=True)
class PlaceChip:
    """Put one chip (a denomination of :data:`baccarat.bets.CHIPS`) on an area."""

    user_id: int
    area: Area
    chip: int


@dataclass(frozen=True, slots=True)
class ClearBets:
    """Take back all of one's bets while betting is open."""

    user_id: int


@dataclass(frozen=True, slots=True)
class Rebet:
    """Place again, as one, the bets of one's last round at this table."""

    user_id: int


@dataclass(frozen=True, slots=True)
class Double:
    """Double every bet one has on the table this round, as one."""

    user_id: int


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back one's last chip, or one's last rebet or double as a whole."""

    user_id: int


@dataclass(frozen=True, slots=True)
class Urge:
    """The dealer reminds every bettor who has not bet yet."""

    user_id: int


@dataclass(frozen=True, slots=True)
class SqueezeProgress:
    """The controller peels the face-down card of ``hand`` to ``progress`` (0 to 1)."""

    user_id: int
    hand: Hand
    progress: float
    corner: Corner


@dataclass(frozen=True, slots=True)
class OpenCard:
    """The controller turns the face-down card of ``hand`` over."""

    user_id: int
    hand: Hand


@dataclass(frozen=True, slots=True)
class JoinQueue:
    """Line up for the dealer seat (上莊排隊), seated here or watching."""

    user_id: int
    user: UserInfo


@dataclass(frozen=True, slots=True)
class LeaveQueue:
    """Leave the dealer queue; ``reason`` says why when the server takes a user out."""

    user_id: int
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Say:
    """Send a chat message to everyone at the table."""

    user_id: int
    text: str


@dataclass(frozen=True, slots=True)
class Emote:
    """Send an emote (a name of :data:`baccarat.table.chat.EMOTES`) to everyone at the table."""

    user_id: int
    emote: str


@dataclass(frozen=True, slots=True)
class SetAutoOpen:
    """A seated user's 自動開牌 preference changed: open the cards they control at once."""

    user_id: int
    on: bool


@dataclass(frozen=True, slots=True)
class Disconnect:
    """The user's connection dropped; the seat is kept for the reconnect grace."""

    user_id: int


@dataclass(frozen=True, slots=True)
class Reconnect:
    """The user is back within the reconnect grace."""

    user_id: int


@dataclass(frozen=True, slots=True)
class SetCoins:
    """A seated user's balance changed outside the table (an operator grant)."""

    user_id: int
    coins: int


@dataclass(frozen=True, slots=True)
class WalletAway:
    """Whether the wallet that keeps a seated user's coins (a platform's) could not confirm
    their balance: while it could not, the table keeps the last balance it knew, takes no
    stake that counts on it, and holds nothing against the user that the platform caused (no
    idle round, no floor). (Never read from a player's frame.)"""

    user_id: int
    away: bool


@dataclass(frozen=True, slots=True)
class Unstake:
    """The wallet that keeps a bettor's coins did not give the stakes of the round that just
    closed: they go back and the round plays on without them. (Never read from a player's
    frame.)"""

    round_id: str
    user_id: int


@dataclass(frozen=True, slots=True)
class Suspend:
    """An operator closes the table after the round in play: no round starts again and
    nobody new sits until :class:`Resume`. (Never read from a player's frame.)"""

    reason: str


@dataclass(frozen=True, slots=True)
class Resume:
    """An operator reopens a closed table."""


Command = (
    Sit
    | StandUp
    | PlaceChip
    | ClearBets
    | Rebet
    | Double
    | Undo
    | Urge
    | SqueezeProgress
    | OpenCard
    | JoinQueue
    | LeaveQueue
    | Say
    | Emote
    | SetAutoOpen
    | Disconnect
    | Reconnect
    | SetCoins
    | WalletAway
    | Unstake
    | Suspend
    | Resume
)

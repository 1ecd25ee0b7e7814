"""What a table tells the world: one frozen class per event, holding values, not JSON.

Every event is public (it goes to everyone watching) except :class:`BettorUrged`, which
carries the one user it goes to in ``to``. :data:`Event` is the
union of them all; consumers ``match`` on the class. :mod:`baccarat.protocol.values` turns an
event into the protocol's ``event`` name and ``data`` object: each class's ``kind`` is the
wire name and its fields (``to`` excepted) are the data's keys.

Positions count from 0 within a hand: the face-down second card is position 1. ``corner``
is where a peel starts: a corner (``tl``, ``tr``, ``bl``, ``br``) or a side (``l``, ``r``,
``t``, ``b``). Times (``deadline``, ``grace_until``, ``ready_at``) are on the driver's clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal

from baccarat.bets import Area
from baccarat.cards import Card
from baccarat.roads.marks import RoundMark
from baccarat.rules import Hand, Outcome
from baccarat.settlement import Settlement

Role = Literal["dealer", "bettor"]


@dataclass(frozen=True, slots=True)
class Bet:
    """One bettor's chips on one area; ``at`` is when the first chip landed there."""

    user_id: int
    seat: int
    area: Area
    chips: int
    coins: int
    at: float


@dataclass(frozen=True, slots=True)
class SeatResult:
    """What one seat made of a settled round; bettors get back ``stake`` plus ``delta``."""

    user_id: int
    seat: int | None
    role: Role
    stake: int
    areas: Mapping[Area, int]
    """The gross result per area, before commission."""
    commission: int
    delta: int


# -- seats --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seated:
    """A user took a seat (or a bettor moved to the dealer seat).

    ``bets`` are the user's chips in the round in play: empty, except for a bettor who left
    after betting closed and sat down again before the round settled.
    """

    kind: ClassVar[str] = "seated"
    seat: int
    user_id: int
    name: str
    level: int
    coins: int
    connected: bool
    waiting_next_round: bool
    idle_rounds: int
    leaving: bool
    dealer_rounds: int
    """Rounds dealt in a row from the dealer seat (連莊)."""
    bets: Mapping[Area, int]


@dataclass(frozen=True, slots=True)
class SeatFreed:
    """A seat is free again; ``coins`` is the balance the table kept (escrow excluded).

    ``reason``: ``stood_up``, ``moved`` (a bettor moving to the dealer seat), ``idle``,
    ``below_floor``, ``dealer_below_floor``, ``dealer_limit`` (連莊上限 reached while others
    wait in the dealer queue) or ``disconnected``.
    """

    kind: ClassVar[str] = "seat_freed"
    seat: int
    user_id: int
    reason: str
    coins: int


@dataclass(frozen=True, slots=True)
class DealerLeaving:
    """The dealer left during a round: they keep the seat and book until it settles.

    The ``seat_freed`` with the same reason follows the ``round_settled`` (or the
    ``round_cancelled``, if the last bettor left during betting).
    """

    kind: ClassVar[str] = "dealer_leaving"
    seat: int
    user_id: int
    reason: str


@dataclass(frozen=True, slots=True)
class Disconnected:
    """A seated user's last connection dropped; the seat is kept until ``grace_until``."""

    kind: ClassVar[str] = "disconnected"
    seat: int
    user_id: int
    grace_until: float


@dataclass(frozen=True, slots=True)
class Reconnected:
    """A disconnected user is back within the grace."""

    kind: ClassVar[str] = "reconnected"
    seat: int
    user_id: int


@dataclass(frozen=True, slots=True)
class CoinsSet:
    """A seated user's balance was set from outside the table (a grant, a voided round)."""

    kind: ClassVar[str] = "coins_set"
    seat: int
    user_id: int
    coins: int


@dataclass(frozen=True, slots=True)
class Queued:
    """One user waiting in the dealer queue."""

    user_id: int
    name: str
    level: int


@dataclass(frozen=True, slots=True)
class DealerQueueChanged:
    """The dealer queue (上莊排隊) changed; ``queue`` is the whole line, first in line first.

    ``change``: ``joined``, ``left`` (``reason`` set when the table or the server took the
    user out: ``coins_below_floor``, ``away``, or the code that refused them the seat) or
    ``promoted`` (they took the dealer seat).
    """

    kind: ClassVar[str] = "dealer_queue"
    queue: tuple[Queued, ...]
    user_id: int
    change: str
    reason: str | None


@dataclass(frozen=True, slots=True)
class DealerTurn:
    """The dealer seat is free and the first in line only watches: the server seats them
    with a fresh balance, or takes them out of the line."""

    kind: ClassVar[str] = "dealer_turn"
    user_id: int
    name: str


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """A seated user said ``text`` or sent ``emote`` (the other is None) to the table."""

    kind: ClassVar[str] = "chat"
    id: int
    user_id: int
    name: str
    seat: int
    text: str | None
    emote: str | None


# -- shoes and phases ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Waiting:
    """The table waits for a dealer, a bettor, or both."""

    kind: ClassVar[str] = "waiting"
    dealer_needed: bool
    bettor_needed: bool


@dataclass(frozen=True, slots=True)
class Closing:
    """The table is closing (its server is stopping for a restart): no round starts again
    here, the round in play finishes with its cards opened at once, and another server takes
    the table with its seats."""

    kind: ClassVar[str] = "table_closing"


@dataclass(frozen=True, slots=True)
class Suspended:
    """An operator closed the table: the round in play finishes as usual, then no round
    starts and nobody new sits until it reopens. ``reason`` is the operator's notice."""

    kind: ClassVar[str] = "table_suspended"
    reason: str


@dataclass(frozen=True, slots=True)
class Resumed:
    """An operator reopened the table."""

    kind: ClassVar[str] = "table_resumed"


@dataclass(frozen=True, slots=True)
class ShoeStarted:
    """A new shoe of ``cards_left`` cards, with the commitment to its seed (None: no seed)."""

    kind: ClassVar[str] = "shoe_started"
    shoe_id: str
    commitment: str | None
    cards_left: int


@dataclass(frozen=True, slots=True)
class ShoeEnded:
    """A shoe is done; its seed (hex) is revealed. The table keeps it as ``last_shoe``.

    ``history`` is the shoe's results, so its roads (上一靴) stay one tap away.
    """

    kind: ClassVar[str] = "shoe_ended"
    shoe_id: str
    commitment: str | None
    seed: str | None
    history: tuple[RoundMark, ...] = ()


@dataclass(frozen=True, slots=True)
class Shuffling:
    """The dealer shuffles a new shoe until ``deadline``."""

    kind: ClassVar[str] = "shuffling"
    deadline: float


# -- betting ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BettingOpened:
    """A round opens for betting until ``deadline``."""

    kind: ClassVar[str] = "betting_opened"
    round_id: str
    shoe_id: str
    round_no: int
    dealer: int
    deadline: float


@dataclass(frozen=True, slots=True)
class ChipPlaced:
    """A chip landed: ``chips`` is the bettor's total on the area, ``stake`` their whole stake."""

    kind: ClassVar[str] = "chip_placed"
    round_id: str
    seat: int
    user_id: int
    area: Area
    chip: int
    chips: int
    stake: int


@dataclass(frozen=True, slots=True)
class BetsCleared:
    """A bettor's chips went back: ``reason`` is ``cleared``, ``uncovered`` (the dealer could not
    cover them at the close), or why they left."""

    kind: ClassVar[str] = "bets_cleared"
    round_id: str
    seat: int
    user_id: int
    reason: str


@dataclass(frozen=True, slots=True)
class StakesReturned:
    """After the close, a bettor's stakes came back before the deal settled anything: the
    wallet that keeps their coins did not give them (``reason`` ``not_debited``). ``coins``
    is what went back to them; the round plays on for the rest."""

    kind: ClassVar[str] = "stakes_returned"
    round_id: str
    seat: int
    user_id: int
    coins: int
    reason: str


@dataclass(frozen=True, slots=True)
class BetsChanged:
    """A rebet, double or undo (``action``) changed a bettor's slip as one.

    ``bets`` is the whole slip now (chips per area), ``stake`` the whole stake in coins.
    """

    kind: ClassVar[str] = "bets_changed"
    round_id: str
    seat: int
    user_id: int
    action: str
    bets: Mapping[Area, int]
    stake: int


@dataclass(frozen=True, slots=True)
class Urged:
    """The dealer urged the bettors at ``seats``; they may urge again at ``ready_at``."""

    kind: ClassVar[str] = "urged"
    round_id: str
    dealer: int
    seats: tuple[int, ...]
    ready_at: float


@dataclass(frozen=True, slots=True)
class RoundCancelled:
    """A round called off before betting closed: no coin moved.

    ``reason``: ``no_bettors`` (the last bettor left during betting) or ``closing`` (the table
    closed before anyone bet, see :class:`Closing`). A book the dealer cannot
    cover at the close does not call the round off: the uncovered bets go back instead.
    """

    kind: ClassVar[str] = "round_cancelled"
    round_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class BettingClosed:
    """Betting closed: the stakes leave the bettors' balances into escrow.

    ``idle_rounds`` is each dealt-in bettor's count of rounds in a row without a bet, by
    seat, as counted at the close (a bettor who reached the limit left just before).
    """

    kind: ClassVar[str] = "betting_closed"
    round_id: str
    shoe_id: str
    round_no: int
    dealer: int
    bets: tuple[Bet, ...]
    idle_rounds: Mapping[int, int]
    first_card: int = 0
    """Where in the shoe (from 0) this round's cards start: a verifier places them there."""


# -- the deal -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Controllers:
    """Who squeezes each hand's face-down cards (None: nobody bet).

    Sent again when a controller leaves the table and control passes to the next bettor by
    the same rule (a card under squeeze then restarts with a ``squeeze_started``).
    """

    kind: ClassVar[str] = "controllers"
    round_id: str
    player: int | None
    banker: int | None


@dataclass(frozen=True, slots=True)
class CardDealt:
    """A card left the shoe; ``card`` and the hand's open ``points`` only when face up."""

    kind: ClassVar[str] = "card_dealt"
    round_id: str
    hand: Hand
    position: int
    face_down: bool
    card: Card | None = None
    points: int | None = None


@dataclass(frozen=True, slots=True)
class SqueezeStarted:
    """A face-down card's squeeze begins; it opens by itself at ``deadline``.

    ``card`` is the card about to be peeled: betting is closed and the card is dealt, so
    every screen at the table draws the same face under the controller's peel (a face-down
    card waiting for its turn stays hidden from everyone).
    """

    kind: ClassVar[str] = "squeeze_started"
    round_id: str
    hand: Hand
    position: int
    card: Card
    controller_user_id: int
    controller_name: str
    progress: float
    corner: str | None
    deadline: float


@dataclass(frozen=True, slots=True)
class SqueezeMoved:
    """The controller peeled the card to ``progress`` from ``corner``; ``deadline`` is the
    squeeze's new deadline when the move extended it (docs/rules.md, "Squeeze")."""

    kind: ClassVar[str] = "squeeze_progress"
    round_id: str
    hand: Hand
    position: int
    progress: float
    corner: str | None
    deadline: float | None = None


@dataclass(frozen=True, slots=True)
class CardOpened:
    """A face-down card turned over (``forced``: by the countdown or because nobody bet)."""

    kind: ClassVar[str] = "card_opened"
    round_id: str
    hand: Hand
    position: int
    card: Card
    points: int
    forced: bool


@dataclass(frozen=True, slots=True)
class RoundSettled:
    """The round's result and every coin it moves; each bettor gets stake plus delta.

    The result shows until ``deadline``. The dealer seat's occupant has dealt one more round
    in a row (``dealer_rounds``).
    """

    kind: ClassVar[str] = "round_settled"
    round_id: str
    shoe_id: str
    round_no: int
    dealer: int
    bets: tuple[Bet, ...]
    cards: tuple[Card, ...]
    """In dealing order."""
    outcome: Outcome
    settlement: Settlement[int]
    results: tuple[SeatResult, ...]
    deadline: float


@dataclass(frozen=True, slots=True)
class RoundVoided:
    """The server's own event: the ledger refused the round, so it moves no coin."""

    kind: ClassVar[str] = "round_voided"
    round_id: str
    reason: str


# -- private ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BettorUrged:
    """The dealer's urge, to one bettor who has not bet yet."""

    kind: ClassVar[str] = "urge"
    to: int
    round_id: str
    dealer: int
    deadline: float


PrivateEvent = BettorUrged
"""An event for one user only (its ``to``)."""

PublicEvent = (
    Seated
    | SeatFreed
    | DealerLeaving
    | Disconnected
    | Reconnected
    | CoinsSet
    | DealerQueueChanged
    | DealerTurn
    | ChatMessage
    | Waiting
    | Closing
    | Suspended
    | Resumed
    | ShoeStarted
    | ShoeEnded
    | Shuffling
    | BettingOpened
    | ChipPlaced
    | BetsCleared
    | StakesReturned
    | BetsChanged
    | Urged
    | RoundCancelled
    | BettingClosed
    | Controllers
    | CardDealt
    | SqueezeStarted
    | SqueezeMoved
    | CardOpened
    | RoundSettled
    | RoundVoided
)
"""An event for everyone watching the table."""

Event = PublicEvent | PrivateEvent
"""Anything a table (or its server) tells the world."""

EVENTS: tuple[type[PublicEvent] | type[PrivateEvent], ...] = (
    Seated,
    SeatFreed,
    DealerLeaving,
    Disconnected,
    Reconnected,
    CoinsSet,
    DealerQueueChanged,
    DealerTurn,
    ChatMessage,
    Waiting,
    Closing,
    Suspended,
    Resumed,
    ShoeStarted,
    ShoeEnded,
    Shuffling,
    BettingOpened,
    ChipPlaced,
    BetsCleared,
    StakesReturned,
    BetsChanged,
    Urged,
    RoundCancelled,
    BettingClosed,
    Controllers,
    CardDealt,
    SqueezeStarted,
    SqueezeMoved,
    CardOpened,
    RoundSettled,
    RoundVoided,
    BettorUrged,
)
"""Every event class, for the wire module and the schema tests."""


def recipient(event: Event) -> int | None:
    """The one user a private event goes to; None for a public event."""
    match event:
        case BettorUrged(to=to):
            return to
    return None

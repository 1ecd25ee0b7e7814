"""What one viewer may see of a table: a typed projection built from an allow-list.

The shoe's order and seed never appear; a face-down card appears only while it is being
squeezed, and then to every viewer of the table alike (betting is closed, the card is dealt).
The projection holds the table's own values (cards, seats, results, marks); their JSON form
is the wire's business (``baccarat.protocol.view``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypedDict

from baccarat.bets import AREAS, CHIPS, Area, remaining_limits, stake_coins
from baccarat.cards import Card
from baccarat.roads.marks import RoundMark
from baccarat.rules import HANDS, Hand
from baccarat.table import queue, rebet
from baccarat.table.betting import covers
from baccarat.table.book import Book, book
from baccarat.table.config import TableConfig
from baccarat.table.events import (
    CardDealt,
    CardOpened,
    ChatMessage,
    ChipPlaced,
    Controllers,
    Event,
    Queued,
    Seated,
    ShoeEnded,
    SqueezeMoved,
    SqueezeStarted,
)
from baccarat.table.round import RoundResult
from baccarat.table.seats import Occupant, seated
from baccarat.table.squeeze import Squeeze
from baccarat.table.table import Phase, Table

PERSONAL_UNCHANGED: frozenset[type[Event]] = frozenset(
    {SqueezeMoved, SqueezeStarted, CardDealt, CardOpened, Controllers, ChatMessage}
)
"""Events that change nobody's ``personal``: the deal (cards, who controls them, the peel)
and the chat. After a step made only of these a server need not look at anyone's ``me``."""

BOOK_KEPT: frozenset[type[Event]] = PERSONAL_UNCHANGED | {ChipPlaced}
"""Events after which the dealer's ``personal`` differs at most in the book, which a
dealer's client adds up itself from each ``chip_placed`` (``baccarat.table.reducer``)."""


def book_kept(events: Iterable[Event]) -> bool:
    """Whether a step of ``events`` (not none: an empty step may change anyone's ``me``)
    changes nothing of the dealer's ``personal`` that the dealer's client does not keep
    itself. The server sends the dealer no ``me`` after such a step: chips are most of the
    steps that change anyone's ``me``, and each would otherwise send the dealer a whole
    book."""
    kinds = {type(ev) for ev in events}
    return bool(kinds) and kinds <= BOOK_KEPT


class Me(TypedDict):
    """The viewer's own part of the view: their seat, coins, bets and what they may do."""

    user_id: int | None
    seat: int | None
    role: Literal["spectator", "bettor", "dealer"]
    coins: int | None
    bets: dict[Area, int]
    stake: int
    remaining: dict[Area, int] | None
    can_bet: bool
    urge_ready_at: float | None
    rebet: dict[Area, int] | None
    can_rebet: bool
    can_double: bool
    can_undo: bool
    auto_open: bool | None
    queue_position: int | None


class Personal(TypedDict):
    """The data of the private ``me`` event: ``me``, and the dealer's ``book``."""

    me: Me
    book: Book | None


class BettorFacts(NamedTuple):
    """What a seated bettor's ``me`` shows, read once from the table. A bettor's ``me`` is
    built from it, and their ``personal_key`` is it with the dealer's cover, so the key holds
    whatever the ``me`` is made of."""

    seat: int
    coins: int
    waiting_next_round: bool
    auto_open: bool
    queue_position: int | None
    round_id: str | None
    betting_open: bool
    slip: tuple[tuple[Area, int], ...]
    """The bettor's chips this round, in the order first bet: the same slip, the same tuple
    (two equal slips in another order only build a ``me`` that was not needed)."""
    last_slip: tuple[tuple[Area, int], ...] | None
    """The bets of the last round they bet in here, for a rebet."""
    wallet_away: bool
    """The platform's wallet has not confirmed their balance or the dealer's: no stake now."""


PersonalKey = tuple[BettorFacts, tuple[bool, ...]]
"""A bettor's facts, and whether the dealer covers each bet the bet buttons ask about."""


Cover = Callable[[dict[Area, int], dict[Area, int] | None], tuple[bool, ...]]
"""Whether the dealer covers each bet a bettor's buttons ask about, from their slip and last
slip."""


def _key(
    table: Table, occ: Occupant, position: int | None, open_now: bool, cover: Cover | None
) -> PersonalKey:
    """A seated bettor's facts, the one read of what their ``me`` shows, and with ``cover``
    whether the dealer covers what their buttons ask about (empty without)."""
    rnd = table.round
    own = rnd.bettors.get(occ.user_id) if rnd is not None else None
    slip: dict[Area, int] = own.slip if own is not None else {}
    last = table.last_slips.get(occ.user_id)
    dealer = table.dealer
    facts = BettorFacts(
        occ.seat,
        occ.coins,
        occ.waiting_next_round,
        occ.auto_open,
        position,
        None if rnd is None else rnd.round_id,
        open_now,
        tuple(slip.items()),
        None if last is None else tuple(last.items()),
        occ.wallet_away or (dealer is not None and dealer.wallet_away),
    )
    return facts, () if cover is None else cover(slip, last)


def _spectator_me(viewer: int | None, position: int | None) -> Me:
    return {
        "user_id": viewer,
        "seat": None,
        "role": "spectator",
        "coins": None,
        "bets": {},
        "stake": 0,
        "remaining": None,
        "can_bet": False,
        "urge_ready_at": None,
        "rebet": None,
        "can_rebet": False,
        "can_double": False,
        "can_undo": False,
        "auto_open": None,
        "queue_position": position,
    }


def _dealer_me(table: Table, occ: Occupant, position: int | None) -> Me:
    rnd = table.round
    slip: dict[Area, int] = rnd.slip(occ.user_id) if rnd is not None else {}
    return {
        "user_id": occ.user_id,
        "seat": occ.seat,
        "role": "dealer",
        "coins": occ.coins,
        "bets": slip,
        "stake": stake_coins(slip, table.config.chip_unit),
        "remaining": None,
        "can_bet": False,
        "urge_ready_at": table.urge_ready_at(),
        "rebet": None,
        "can_rebet": False,
        "can_double": False,
        "can_undo": False,
        "auto_open": occ.auto_open,
        "queue_position": position,
    }


def _bettor_me(table: Table, user_id: int, facts: BettorFacts, now: float) -> Me:
    slip = dict(facts.slip)
    # Every bet-like command is first refused for what ``check_bettor`` checks: when that
    # fails, each can_* below is False without asking (most steps of a round are not betting).
    may = facts.round_id is not None and facts.betting_open and not facts.waiting_next_round
    stake = may and not facts.wallet_away
    return {
        "user_id": user_id,
        "seat": facts.seat,
        "role": "bettor",
        "coins": facts.coins,
        "bets": slip,
        "stake": stake_coins(slip, table.config.chip_unit),
        "remaining": remaining_limits(slip),
        "can_bet": stake and any(table.can_bet(user_id, area, CHIPS[0], now) for area in AREAS),
        "urge_ready_at": None,
        "rebet": None if facts.last_slip is None else dict(facts.last_slip),
        "can_rebet": stake and rebet.can_rebet(table, user_id, now),
        "can_double": stake and rebet.can_double(table, user_id, now),
        "can_undo": may and rebet.can_undo(table, user_id, now),
        "auto_open": facts.auto_open,
        "queue_position": facts.queue_position,
    }


def _me(table: Table, viewer: int | None, now: float) -> Me:
    occ = table.occupant(viewer) if viewer is not None else None
    position = None if viewer is None else queue.position(table, viewer)
    if occ is None:
        return _spectator_me(viewer, position)
    if occ.is_dealer:
        return _dealer_me(table, occ, position)
    facts, _ = _key(table, occ, position, table.betting_open(now), None)
    return _bettor_me(table, occ.user_id, facts, now)


def personal(table: Table, user_id: int | None, now: float) -> Personal:
    """The part of the view that is the viewer's own: ``me``, and the dealer's ``book``.

    It is the data of the private ``me`` event the server sends a seated or queued user
    whenever it changes, so a client keeps its whole view from events alone.
    """
    me = _me(table, user_id, now)
    is_dealer = me["role"] == "dealer"
    return {"me": me, "book": book(table.round, table.config.chip_unit) if is_dealer else None}


def personal_key(table: Table, user_id: int, now: float) -> PersonalKey | None:
    """Everything a seated bettor's ``personal`` is made of, or None for anyone else.

    Two equal keys of one user mean two equal ``personal``s, so a server can skip building a
    bettor's ``me`` again after a step that changed nothing it is made of (most chips at a
    table change only the placer's and the dealer's). It is the bettor's ``BettorFacts``
    (which their ``me`` is built from) and, while betting is open, whether the dealer covers
    each booked bet the bet buttons ask about (a smallest chip on Player or on Banker, a
    rebet, a double). None for the dealer (the book follows every chip) and for anyone not
    seated: build theirs.
    """
    return personal_keys(table, (user_id,), now)[user_id]


def personal_keys(
    table: Table, user_ids: Iterable[int], now: float
) -> dict[int, PersonalKey | None]:
    """``personal_key`` of each of ``user_ids``; what the users share is worked out once."""
    open_now = table.betting_open(now)
    cover = _cover(table, open_now)
    # Read once for all the users: who sits where, and the dealer queue's places.
    seats = {occ.user_id: occ for occ in table.seats if occ is not None}
    places = {w.user_id: i for i, w in enumerate(table.queue, 1)}
    out: dict[int, PersonalKey | None] = {}
    for user_id in user_ids:
        occ = seats.get(user_id)
        if occ is None or occ.is_dealer:
            out[user_id] = None
        else:
            out[user_id] = _key(table, occ, places.get(user_id), open_now, cover)
    return out


def _cover(table: Table, open_now: bool) -> Cover | None:
    """Whether the dealer covers each bet a bettor's buttons ask about, given their slip and
    last slip (a smallest chip on Player, on Banker, a rebet, a double); None unless betting
    is open. The book and the first two are worked out once for every bettor."""
    rnd = table.round
    if rnd is None or not open_now:
        return None
    book = rnd.book_chips()
    common = (
        covers(table, rnd, {"player": CHIPS[0]}, book),
        covers(table, rnd, {"banker": CHIPS[0]}, book),
    )

    def of(slip: dict[Area, int], last: dict[Area, int] | None) -> tuple[bool, ...]:
        return (*common, covers(table, rnd, last or {}, book), covers(table, rnd, slip, book))

    return of


@dataclass(frozen=True, slots=True)
class HandCard:
    """A card of a hand as every viewer sees it: face up, or face down with its face shown
    only while it is being squeezed."""

    card: Card | None
    face_down: bool


@dataclass(frozen=True, slots=True)
class ShoeShown:
    """The shoe in play as a viewer sees it: its id, commitment and how far it is dealt."""

    shoe_id: str | None
    commitment: str | None
    round_no: int
    cards_left: int


@dataclass(frozen=True, slots=True)
class TableView:
    """The table as one viewer may see it: the allow-list of the projection."""

    config: TableConfig
    phase: Phase
    closing: bool
    suspended: str | None
    deadline: float | None
    round_id: str | None
    round_no: int
    dealer: int | None
    shoe: ShoeShown | None
    last_shoe: ShoeEnded | None
    seats: tuple[Seated | None, ...]
    """Each seat as the ``seated`` event that fills it shows it, with its bets this round."""
    hands: dict[Hand, tuple[HandCard, ...]]
    squeeze: Squeeze | None
    controllers: dict[Hand, int | None]
    result: RoundResult | None
    history: tuple[RoundMark, ...]
    dealer_queue: tuple[Queued, ...]
    chat: tuple[ChatMessage, ...]
    me: Me
    book: Book | None


def _hands(table: Table) -> dict[Hand, tuple[HandCard, ...]]:
    rnd = table.round
    if rnd is None:
        return {hand: () for hand in HANDS}
    sq = rnd.squeeze
    shown = None if sq is None else (sq.hand, sq.position)
    return {
        hand: tuple(
            HandCard(card, False)
            if (hand, pos) not in rnd.face_down
            else HandCard(card if shown == (hand, pos) else None, True)
            for pos, card in enumerate(rnd.hand(hand))
        )
        for hand in HANDS
    }


def _shoe(table: Table) -> ShoeShown | None:
    shoe = table.shoe
    if shoe is None:
        return None
    return ShoeShown(table.shoe_id, shoe.commitment, table.rounds_in_shoe, shoe.remaining)


def table_view(table: Table, user_id: int | None, now: float) -> TableView:
    """The table as ``user_id`` sees it (a spectator when None or not seated)."""
    rnd = table.round
    own = personal(table, user_id, now)
    squeeze = None if rnd is None or rnd.squeeze is None else dataclasses.replace(rnd.squeeze)
    return TableView(
        config=table.config,
        phase=table.phase,
        closing=table.closing,
        suspended=table.suspended,
        deadline=table.deadline,
        round_id=rnd.round_id if rnd is not None else None,
        round_no=rnd.round_no if rnd is not None else table.rounds_in_shoe,
        dealer=rnd.dealer_id if rnd is not None else None,
        shoe=_shoe(table),
        last_shoe=table.last_shoe,
        seats=tuple(None if occ is None else seated(occ, rnd) for occ in table.seats),
        hands=_hands(table),
        squeeze=squeeze,
        controllers={h: rnd.controllers.get(h) if rnd is not None else None for h in HANDS},
        result=table.last_result,
        history=tuple(table.history),
        dealer_queue=tuple(table.queue),
        chat=tuple(table.chat.messages),
        me=own["me"],
        book=own["book"],
    )

"""What one viewer may see of a table: a JSON-ready projection built from an allow-list.

The shoe's order and seed never appear; a face-down card appears only while it is being
squeezed, and then to every viewer of the table alike (betting is closed, the card is dealt).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, TypedDict

from baccarat.bets import (
    AREAS,
    CHIPS,
    LIMITS,
    Area,
    remaining_limits,
    stake_coins,
)

# Imported as a module: protocol.events imports the table's events, and may be first.
from baccarat.protocol import events, values
from baccarat.protocol.values import JsonObject
from baccarat.rules import HANDS, Hand
from baccarat.table import queue, rebet
from baccarat.table.betting import covers
from baccarat.table.book import Book, book
from baccarat.table.config import DEALER_SEAT
from baccarat.table.events import (
    CardDealt,
    CardOpened,
    ChatMessage,
    ChipPlaced,
    Controllers,
    Event,
    SqueezeMoved,
    SqueezeStarted,
)
from baccarat.table.table import Table

View = dict[str, object]
"""A viewer's view, ready for JSON (its keys are pinned in ``docs/protocol``)."""

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


def _copy(slip: dict[Area, int] | None) -> dict[Area, int] | None:
    return None if slip is None else dict(slip)


def _hands(table: Table) -> dict[Hand, list[JsonObject]]:
    rnd = table.round
    out: dict[Hand, list[JsonObject]] = {hand: [] for hand in HANDS}
    if rnd is None:
        return out
    sq = rnd.squeeze
    for hand in HANDS:
        for pos, card in enumerate(rnd.hand(hand)):
            if (hand, pos) not in rnd.face_down:
                out[hand].append({"card": values.card(card)})
                continue
            entry: JsonObject = {"face_down": True}
            if sq is not None and (sq.hand, sq.position) == (hand, pos):
                entry["card"] = values.card(card)
            out[hand].append(entry)
    return out


def _seats(table: Table) -> list[dict[str, object] | None]:
    rnd = table.round
    out: list[dict[str, object] | None] = []
    for occ in table.seats:
        if occ is None:
            out.append(None)
            continue
        entry: dict[str, object] = dict(values.occupant(occ))
        entry["bets"] = rnd.slip(occ.user_id) if rnd is not None else {}
        out.append(entry)
    return out


def _me(table: Table, viewer: int | None, now: float) -> Me:
    occ = table.occupant(viewer) if viewer is not None else None
    position = None if viewer is None else queue.position(table, viewer)
    if occ is None:
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
    rnd = table.round
    slip: dict[Area, int] = rnd.slip(occ.user_id) if rnd is not None else {}
    is_dealer = occ.seat == DEALER_SEAT
    # Every bet-like command is first refused for what ``check_bettor`` checks: when that
    # fails, each can_* below is False without asking (most steps of a round are not betting).
    may = (
        not is_dealer and rnd is not None and table.betting_open(now) and not occ.waiting_next_round
    )
    return {
        "user_id": occ.user_id,
        "seat": occ.seat,
        "role": "dealer" if is_dealer else "bettor",
        "coins": occ.coins,
        "bets": slip,
        "stake": stake_coins(slip, table.config.chip_unit),
        "remaining": None if is_dealer else remaining_limits(slip),
        "can_bet": may and any(table.can_bet(occ.user_id, area, CHIPS[0], now) for area in AREAS),
        "urge_ready_at": table.urge_ready_at() if is_dealer else None,
        "rebet": None if is_dealer else _copy(table.last_slips.get(occ.user_id)),
        "can_rebet": may and rebet.can_rebet(table, occ.user_id, now),
        "can_double": may and rebet.can_double(table, occ.user_id, now),
        "can_undo": may and rebet.can_undo(table, occ.user_id, now),
        "auto_open": occ.auto_open,
        "queue_position": position,
    }


def _result(table: Table) -> JsonObject | None:
    res = table.last_result
    if res is None:
        return None
    return {
        "round_id": res.round_id,
        "round_no": res.round_no,
        "outcome": values.outcome(res.outcome),
        "settlement": values.settlement(res.settlement),
    }


def personal(table: Table, user_id: int | None, now: float) -> Personal:
    """The part of the view that is the viewer's own: ``me``, and the dealer's ``book``.

    It is the data of the private ``me`` event the server sends a seated or queued user
    whenever it changes, so a client keeps its whole view from events alone.
    """
    me = _me(table, user_id, now)
    is_dealer = me["role"] == "dealer"
    return {"me": me, "book": book(table.round, table.config.chip_unit) if is_dealer else None}


def personal_key(table: Table, user_id: int, now: float) -> tuple[object, ...] | None:
    """Everything a seated bettor's ``personal`` is made of, or None for anyone else.

    Two equal keys of one user mean two equal ``personal``s, so a server can skip building a
    bettor's ``me`` again after a step that changed nothing it is made of (most chips at a
    table change only the placer's and the dealer's). What ``_me`` reads for a bettor: the
    seat's own fields, the queue, the round, whether betting is open, the bettor's slip and
    last slip, and, while betting is open, whether the dealer covers each booked bet the
    bet buttons ask about (a smallest chip on Player or on Banker, a rebet, a double). None
    for the dealer (the book follows every chip) and for anyone not seated: build theirs.
    """
    return personal_keys(table, (user_id,), now)[user_id]


def personal_keys(
    table: Table, user_ids: Iterable[int], now: float
) -> dict[int, tuple[object, ...] | None]:
    """``personal_key`` of each of ``user_ids``; what the users share is worked out once."""
    rnd = table.round
    open_now = table.betting_open(now)
    round_id = None if rnd is None else rnd.round_id
    book = (0, 0)
    common: tuple[bool, ...] = ()
    if rnd is not None and open_now:
        book = rnd.book_chips()
        common = (
            covers(table, rnd, {"player": CHIPS[0]}, book),
            covers(table, rnd, {"banker": CHIPS[0]}, book),
        )
    # Read once for all the users: who sits where, and the dealer queue's places.
    seated = {occ.user_id: occ for occ in table.seats if occ is not None}
    places = {w.user_id: i for i, w in enumerate(table.queue, 1)}
    bettors = rnd.bettors if rnd is not None else {}
    out: dict[int, tuple[object, ...] | None] = {}
    for user_id in user_ids:
        occ = seated.get(user_id)
        if occ is None or occ.seat == DEALER_SEAT:
            out[user_id] = None
            continue
        own = bettors.get(user_id)
        slip: dict[Area, int] = own.slip if own is not None else {}
        last = table.last_slips.get(user_id)
        covered = common
        if rnd is not None and open_now:
            covered += (
                covers(table, rnd, last or {}, book),
                covers(table, rnd, slip, book),
            )
        # A slip's items in the order they were first bet: the same slip, the same tuple
        # (two equal slips in another order only build a ``me`` that was not needed).
        out[user_id] = (
            occ.seat,
            occ.coins,
            occ.waiting_next_round,
            occ.auto_open,
            places.get(user_id),
            round_id,
            open_now,
            tuple(slip.items()),
            None if last is None else tuple(last.items()),
            covered,
        )
    return out


def view(table: Table, user_id: int | None, now: float) -> View:
    """The table as ``user_id`` sees it (a spectator when None or not seated)."""
    cfg = table.config
    rnd = table.round
    own = personal(table, user_id, now)
    shoe = table.shoe
    out: View = {
        "table_id": cfg.table_id,
        "room": cfg.room,
        "chip_unit": cfg.chip_unit,
        "chips": list(CHIPS),
        "limits": {
            "areas": dict(LIMITS),
            "bettor_floor": cfg.bettor_floor,
            "dealer_floor": cfg.dealer_floor,
            "min_level": cfg.min_level,
            "dealer_round_limit": cfg.dealer_round_limit,
        },
        "timers": {
            "betting_seconds": cfg.betting_seconds,
            "squeeze_seconds": cfg.squeeze_seconds,
            "result_seconds": cfg.result_seconds,
        },
        "phase": table.phase,
        "closing": table.closing,
        "suspended": table.suspended,
        "deadline": table.deadline,
        "remaining_ms": values.time_left(table.deadline, now),
        "round_id": rnd.round_id if rnd is not None else None,
        "round_no": rnd.round_no if rnd is not None else table.rounds_in_shoe,
        "dealer": rnd.dealer_id if rnd is not None else None,
        "shoe": None
        if shoe is None
        else {
            "id": table.shoe_id,
            "commitment": shoe.commitment,
            "round_no": table.rounds_in_shoe,
            "cards_left": shoe.remaining,
        },
        "last_shoe": None if table.last_shoe is None else events.event_data(table.last_shoe, now),
        "seats": _seats(table),
        "hands": _hands(table),
        "squeeze": values.squeeze(rnd.squeeze)
        if rnd is not None and rnd.squeeze is not None
        else None,
        "controllers": {h: rnd.controllers.get(h) if rnd is not None else None for h in HANDS},
        "result": _result(table),
        "history": [values.mark(m) for m in table.history],
        "dealer_queue": queue.public(table),
        "chat": [events.event_data(m, now) for m in table.chat.messages],
        "me": own["me"],
        "book": own["book"],
    }
    return out

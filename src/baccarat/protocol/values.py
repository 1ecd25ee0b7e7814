"""The one JSON form of each value the table shows: cards, hands, settlements, marks, seats.

The view (:mod:`.view`), the events (:mod:`.events`), the lobby, the store's records and the
audit all write a value through these, so it has one shape everywhere.
User-id keys become text (JSON keys are text). A time on the driver's clock goes out as the
milliseconds left when it was sent, because a client's clock is not the server's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from baccarat.cards import Card
from baccarat.roads.marks import RoundMark
from baccarat.roads.patterns import GoodRoad
from baccarat.rules import Outcome
from baccarat.settlement import Settlement

if TYPE_CHECKING:
    from baccarat.table.events import Seated
    from baccarat.table.squeeze import Squeeze

Json = None | bool | int | float | str | Sequence["Json"] | Mapping[str, "Json"]
"""A JSON value."""

JsonObject = dict[str, Json]

K = TypeVar("K", int, str)


def time_left(at: float | None, now: float) -> int | None:
    """Milliseconds from ``now`` until ``at`` (never negative); None without a time."""
    if at is None:
        return None
    return max(0, round((at - now) * 1000))


def card(c: Card) -> str:
    """A card in notation (``"AS"``, ``"TD"``)."""
    return str(c)


def outcome(o: Outcome) -> JsonObject:
    """A dealt round's hands, points, pairs and winner."""
    return {
        "player": {
            "cards": [card(c) for c in o.player],
            "points": o.player_points,
            "pair": o.player_pair,
        },
        "banker": {
            "cards": [card(c) for c in o.banker],
            "points": o.banker_points,
            "pair": o.banker_pair,
        },
        "winner": o.winner,
    }


def settlement(s: Settlement[K]) -> JsonObject:
    """A round's coin changes, keyed by user id (or a name) as text."""
    return {
        "deltas": {str(uid): v for uid, v in s.deltas.items()},
        "commission": {str(uid): v for uid, v in s.commission.items()},
        "house": s.house,
    }


def mark(m: RoundMark) -> JsonObject:
    """One result as the roads and the lobby's beads show it."""
    return {
        "winner": m.winner,
        "points": m.points,
        "player_pair": m.player_pair,
        "banker_pair": m.banker_pair,
        "natural": m.natural,
    }


def good_road(g: GoodRoad) -> JsonObject:
    """A good road (好路) that holds now, and how far it goes."""
    return {"pattern": g.pattern, "length": g.length}


def seat(s: Seated) -> JsonObject:
    """A seat's occupant and their bets this round, as every screen sees them in a view (the
    ``seated`` event's data, written field by field: a snapshot writes eight)."""
    return {
        "seat": s.seat,
        "user_id": s.user_id,
        "name": s.name,
        "level": s.level,
        "coins": s.coins,
        "connected": s.connected,
        "waiting_next_round": s.waiting_next_round,
        "idle_rounds": s.idle_rounds,
        "leaving": s.leaving,
        "dealer_rounds": s.dealer_rounds,
        "bets": {str(area): n for area, n in s.bets.items()},
    }


def squeeze(sq: Squeeze) -> JsonObject:
    """The squeeze in progress as every screen at the table sees it, the card included."""
    return {
        "hand": sq.hand,
        "position": sq.position,
        "card": card(sq.card),
        "controller_user_id": sq.controller,
        "controller_name": sq.controller_name,
        "progress": sq.progress,
        "corner": sq.corner,
        "deadline": sq.deadline,
    }

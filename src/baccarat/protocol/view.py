"""A viewer's view on the wire: the table's typed projection (``baccarat.table.view``) as
the JSON of a snapshot, each value in its one form (:mod:`.values`, :mod:`.events`).

Its keys are pinned in ``docs/protocol/server.schema.json`` (``$defs/view``). A time on the
driver's clock also goes out as the milliseconds left when it was sent.
"""

from __future__ import annotations

from baccarat.bets import CHIPS, LIMITS
from baccarat.protocol import values
from baccarat.protocol.events import event_data
from baccarat.protocol.values import JsonObject
from baccarat.table.config import TableConfig
from baccarat.table.round import RoundResult
from baccarat.table.table import Table
from baccarat.table.view import HandCard, ShoeShown, TableView, table_view

View = dict[str, object]
"""A viewer's view, ready for JSON (its keys are pinned in ``docs/protocol``)."""


def _card(c: HandCard) -> JsonObject:
    entry: JsonObject = {"face_down": True} if c.face_down else {}
    if c.card is not None:
        entry["card"] = values.card(c.card)
    return entry


def _shoe(s: ShoeShown) -> JsonObject:
    return {
        "id": s.shoe_id,
        "commitment": s.commitment,
        "round_no": s.round_no,
        "cards_left": s.cards_left,
    }


def _result(res: RoundResult) -> JsonObject:
    return {
        "round_id": res.round_id,
        "round_no": res.round_no,
        "outcome": values.outcome(res.outcome),
        "settlement": values.settlement(res.settlement),
    }


def view_json(seen: TableView, now: float) -> View:
    """A typed view as sent at ``now`` (driver's clock)."""
    return {
        **_room(seen.config),
        **_state(seen, now),
        **_round(seen, now),
        **_people(seen, now),
    }


def _room(cfg: TableConfig) -> View:
    return {
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
            # How long a seat waits for its user to come back: the page says so while away.
            "reconnect_grace_seconds": cfg.reconnect_grace_seconds,
        },
    }


def _state(seen: TableView, now: float) -> View:
    return {
        "phase": seen.phase,
        "closing": seen.closing,
        "suspended": seen.suspended,
        "deadline": seen.deadline,
        "remaining_ms": values.time_left(seen.deadline, now),
        "round_id": seen.round_id,
        "round_no": seen.round_no,
        "dealer": seen.dealer,
        "shoe": None if seen.shoe is None else _shoe(seen.shoe),
        "last_shoe": None if seen.last_shoe is None else event_data(seen.last_shoe, now),
    }


def _round(seen: TableView, now: float) -> View:
    return {
        "seats": [None if s is None else values.seat(s) for s in seen.seats],
        "hands": {hand: [_card(c) for c in cards] for hand, cards in seen.hands.items()},
        "squeeze": None if seen.squeeze is None else values.squeeze(seen.squeeze),
        "controllers": dict(seen.controllers),
        "result": None if seen.result is None else _result(seen.result),
    }


def _people(seen: TableView, now: float) -> View:
    return {
        "history": [values.mark(m) for m in seen.history],
        "dealer_queue": [
            {"user_id": w.user_id, "name": w.name, "level": w.level} for w in seen.dealer_queue
        ],
        "chat": [event_data(m, now) for m in seen.chat],
        "me": seen.me,
        "book": seen.book,
    }


def view(table: Table, user_id: int | None, now: float) -> View:
    """The table as ``user_id`` sees it (a spectator when None or not seated), as JSON."""
    return view_json(table_view(table, user_id, now), now)

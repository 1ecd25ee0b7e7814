"""What the server reads off the pure table and its events: seats, lobby lines, ledger records.

Kept in one place so the driver does not depend on the shape of the table's internals.
"""

from __future__ import annotations

from typing import Any

from baccarat.store import BetRecord
from baccarat.table import Table

BEADS = 12
"""How many of the last results a lobby line shows."""


def seated(table: Table) -> dict[int, int]:
    """Each seated user's id mapped to the seat number."""
    out: dict[int, int] = {}
    for seat, occupant in enumerate(table.seats):
        if occupant is not None:
            out[occupant.user_id] = seat
    return out


def _bead(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "winner": entry["winner"],
        "points": int(entry["points"]),
        "player_pair": bool(entry["player_pair"]),
        "banker_pair": bool(entry["banker_pair"]),
    }


def lobby_table(
    table: Table, table_id: str, room_id: str, name: str, watchers: int
) -> dict[str, Any]:
    """The table's line in the lobby: seats, phase, round of the shoe, the last results."""
    seats: list[dict[str, Any] | None] = [
        None if o is None else {"user_id": o.user_id, "name": o.name} for o in table.seats
    ]
    return {
        "table_id": table_id,
        "room_id": room_id,
        "name": name,
        "seats": seats,
        "taken": sum(1 for s in seats if s is not None),
        "watchers": watchers,
        "phase": table.phase,
        "shoe_round": table.round.round_no if table.round is not None else table.rounds_in_shoe,
        "beads": [_bead(b) for b in table.history[-BEADS:]],
    }


def bet_records(data: dict[str, Any]) -> list[BetRecord]:
    """The ledger's bet records from a ``betting_closed`` event."""
    return [
        BetRecord(
            user_id=int(b["user_id"]),
            area=str(b["area"]),
            chips=int(b["chips"]),
            coins=int(b["coins"]),
            at=float(b["at"]),
        )
        for b in data.get("bets", [])
    ]


def dealer_id(data: dict[str, Any]) -> int:
    """The dealer's user id from a ``betting_closed`` event."""
    dealer = data["dealer"]
    if isinstance(dealer, dict):
        return int(dealer["user_id"])
    return int(dealer)


def settlement(data: dict[str, Any]) -> tuple[dict[int, int], dict[int, int], int]:
    """(deltas, commission, house) from a ``round_settled`` event."""
    s = data["settlement"]
    deltas = {int(k): int(v) for k, v in s["deltas"].items()}
    commission = {int(k): int(v) for k, v in s.get("commission", {}).items()}
    return deltas, commission, int(s["house"])

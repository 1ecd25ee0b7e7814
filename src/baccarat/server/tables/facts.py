"""What the server reads off the pure table: who sits where, and its lobby line.

Kept in one place so the driver does not depend on the shape of the table's internals;
a lobby line's JSON comes from :mod:`baccarat.protocol.lobby`.
"""

from __future__ import annotations

from baccarat.protocol.ids import TableId, UserId
from baccarat.protocol.lobby import LobbyLine, SeatLine
from baccarat.roads.patterns import good_roads
from baccarat.table import Table
from baccarat.table.events import ChipPlaced, Event, SqueezeMoved

BEADS = 12
"""How many of the last results a lobby line shows."""
SEATS_UNCHANGED: frozenset[type[Event]] = frozenset({SqueezeMoved, ChipPlaced})
"""Events that change neither ``seated`` nor ``line_key`` (most steps of a round are one of
these): after a step made only of these a server need not look at either."""


def seated(table: Table) -> dict[int, int]:
    """Each seated user's id mapped to the seat number."""
    out: dict[int, int] = {}
    for seat, occupant in enumerate(table.seats):
        if occupant is not None:
            out[occupant.user_id] = seat
    return out


def lobby_line(
    table: Table, table_id: str, room_id: str, names: dict[str, str], watchers: int
) -> LobbyLine:
    """The table's line in the lobby: names, seats, phase, round of the shoe, the last results."""
    return LobbyLine(
        table_id=TableId(table_id),
        room_id=room_id,
        names=names,
        seats=tuple(
            None if o is None else SeatLine(UserId(o.user_id), o.name) for o in table.seats
        ),
        watchers=watchers,
        phase=table.phase,
        shoe_round=table.round.round_no if table.round is not None else table.rounds_in_shoe,
        commitment=table.shoe.commitment if table.shoe is not None else None,
        beads=tuple(table.history[-BEADS:]),
        queue=len(table.queue),
        good_roads=good_roads(table.history),
        suspended=table.suspended,
    )


def line_key(table: Table) -> tuple[object, ...]:
    """What the table's lobby line is made of, but the watchers (the hub marks those).

    Equal keys mean equal lines, so a step that leaves the key alone (a chip, an undo) need
    not have its line rebuilt: the history only grows within a shoe, so with the shoe its
    length stands for it."""
    return (
        tuple(None if o is None else (o.user_id, o.name) for o in table.seats),
        table.phase,
        table.round.round_no if table.round is not None else table.rounds_in_shoe,
        table.shoe_id,
        len(table.history),
        len(table.queue),
        table.suspended,
    )

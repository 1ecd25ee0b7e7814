"""The table's shoe: a new one, one resumed after a restart, and its end before the shuffle."""

from __future__ import annotations

from typing import TYPE_CHECKING

from baccarat.errors import InternalError
from baccarat.roads.marks import RoundMark
from baccarat.table.events import Event, ShoeEnded, ShoeStarted, Shuffling

if TYPE_CHECKING:
    from baccarat.shoe import Shoe
    from baccarat.table.state import TableState


def shoe_done(t: TableState) -> bool:
    """Whether the table needs a new shoe: it has none, dealt its rounds (a round a crash
    voided counts, so that no round is numbered past the last), or runs short."""
    return t.shoe is None or (
        t.last_round_no >= t.config.rounds_per_shoe or t.shoe.remaining < t.config.min_cards
    )


def new_shoe(t: TableState) -> list[Event]:
    """Start a shoe from the table's factory, with a fresh id and empty roads."""
    t.shoe = t.shoe_factory()
    t.shoe_id = t.new_id()
    t.rounds_in_shoe = t.last_round_no = 0
    t.history = []
    t.last_result = None
    return [ShoeStarted(t.shoe_id, t.shoe.commitment, t.shoe.remaining)]


def resume_shoe(
    t: TableState, shoe_id: str, shoe: Shoe, history: list[RoundMark], last_round_no: int = 0
) -> None:
    """Deal on a shoe begun before a restart: its id, its cards from where they stopped, the
    results of its settled rounds, and the highest round number it recorded (its voided
    rounds' too), which no round of it takes again. Only a table that has not dealt yet
    takes one."""
    if t.shoe is not None or t.round is not None:
        raise InternalError("A table that is dealing a shoe cannot take another.")
    t.shoe, t.shoe_id = shoe, shoe_id
    t.rounds_in_shoe = len(history)
    t.last_round_no = max(len(history), last_round_no)
    t.history = list(history)


def end_shoe(t: TableState, now: float) -> list[Event]:
    """End the shoe, revealing its seed, and shuffle the next one."""
    assert t.shoe is not None and t.shoe_id is not None
    seed = t.shoe.seed
    t.last_shoe = ShoeEnded(
        t.shoe_id, t.shoe.commitment, seed.hex() if seed is not None else None, tuple(t.history)
    )
    t.shoe = None
    deadline = now + t.config.shuffle_seconds
    t.enter("shuffling", deadline)
    return [t.last_shoe, Shuffling(deadline)]

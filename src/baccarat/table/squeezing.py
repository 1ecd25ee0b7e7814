"""The squeeze's commands: the controller peels or opens the card, and who takes it over.

Each hand's controller is chosen among the round's bettors still at the table
(:func:`baccarat.table.squeeze.choose_controller`); one who leaves mid-squeeze hands the card
on to the next by the same rule.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from baccarat.errors import InvalidInput, RuleViolation
from baccarat.rules import HANDS, Hand
from baccarat.table import dealing
from baccarat.table.commands import OpenCard, SqueezeProgress
from baccarat.table.events import Controllers, Event, SqueezeMoved
from baccarat.table.round import Round
from baccarat.table.squeeze import CORNERS, Squeeze, choose_controller, extend

if TYPE_CHECKING:
    from baccarat.table.state import TableState


def _current_squeeze(
    t: TableState, user_id: int, hand: object, now: float
) -> tuple[Round, Squeeze]:
    if hand not in HANDS:
        raise InvalidInput("bad_hand", f"The hand is 'player' or 'banker', not {hand!r}.")
    rnd = t.round
    sq = rnd.squeeze if rnd is not None and t.phase == "squeeze" else None
    if rnd is None or sq is None or sq.hand != hand or now >= sq.deadline:
        raise RuleViolation(
            "nothing_to_squeeze", f"No face-down card of the {hand} hand is being squeezed."
        )
    if sq.controller != user_id:
        raise RuleViolation(
            "not_controller",
            f"{sq.controller_name} controls this card; only they may squeeze or open it.",
        )
    return rnd, sq


def squeeze_progress(t: TableState, c: SqueezeProgress, now: float) -> list[Event]:
    """The controller peels the card under squeeze; every screen sees it move."""
    p = c.progress
    if (
        isinstance(p, bool)
        or not isinstance(p, int | float)
        or not math.isfinite(p)
        or not 0 <= p <= 1
    ):
        raise InvalidInput("bad_progress", f"Progress runs from 0 to 1, not {p!r}.")
    if c.corner not in CORNERS:
        raise InvalidInput(
            "bad_corner",
            f"The corner or side is one of {', '.join(CORNERS)}, not {c.corner!r}.",
        )
    rnd, sq = _current_squeeze(t, c.user_id, c.hand, now)
    sq.progress = float(p)
    sq.corner = c.corner
    extended = extend(sq, now, t.config.squeeze_peel_seconds)
    if extended:
        t.enter("squeeze", sq.deadline)
    return [
        SqueezeMoved(
            rnd.round_id,
            sq.hand,
            sq.position,
            sq.progress,
            sq.corner,
            sq.deadline if extended else None,
        )
    ]


def open_card(t: TableState, c: OpenCard, now: float) -> list[Event]:
    """The controller turns the card under squeeze over."""
    _current_squeeze(t, c.user_id, c.hand, now)
    return dealing.open_current(t, now, forced=False)


def controller_for(t: TableState, rnd: Round, hand: Hand) -> int | None:
    """Who squeezes ``hand``: chosen among the round's bettors still seated at the table."""
    present = {uid: b for uid, b in rnd.bettors.items() if t.occupant(uid) is not None}
    slips = {uid: b.slip for uid, b in present.items()}
    levels = {uid: b.level for uid, b in present.items()}
    order = {uid: b.order for uid, b in present.items()}
    return choose_controller(hand, slips, levels, order)


def controllers_event(rnd: Round) -> Controllers:
    """The event naming each hand's controller."""
    return Controllers(rnd.round_id, rnd.controllers["player"], rnd.controllers["banker"])


def controller_left(t: TableState, user_id: int, now: float) -> list[Event]:
    """A controller left the table mid-squeeze: the next bettor by the same rule takes over.

    The card under squeeze passes at once (with a fresh countdown, since the new controller
    starts from nothing), or opens if nobody who bet is left at the table.
    """
    rnd = t.round
    if rnd is None or not rnd.closed or rnd.settled:
        return []
    hands = [h for h in HANDS if rnd.controllers.get(h) == user_id]
    if not hands:
        return []
    for hand in hands:
        rnd.controllers[hand] = controller_for(t, rnd, hand)
    return [controllers_event(rnd), *_pass_on(t, rnd, hands, now)]


def _pass_on(t: TableState, rnd: Round, hands: list[Hand], now: float) -> list[Event]:
    """The card under squeeze, if it is one of ``hands``, to its new controller, or open."""
    sq = rnd.squeeze
    if t.phase != "squeeze" or sq is None or sq.hand not in hands:
        return []
    if rnd.controllers[sq.hand] is None:
        return dealing.open_current(t, now, forced=True)
    rnd.pending.insert(0, (sq.hand, sq.position))
    rnd.squeeze = None
    return dealing.next_squeeze(t, now)

"""Stakes the wallet did not give: after the close, a bettor's bets go back.

With the platform keeping the coins (a seamless wallet), the stakes are asked of it when
betting closes, as the built-in wallet escrows them. A bettor whose stakes it does not give
is taken out of the round: the stakes go back to the seat, a card they were to squeeze
passes to the next bettor by the same rule, and the round plays on for the rest, as the
cover rule returns the bets a dealer cannot cover. When the book leaned on those stakes (the
dealer could not cover it without them) the table refuses, and the round is called off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baccarat.bets import Area
from baccarat.errors import RuleViolation
from baccarat.table.commands import Unstake
from baccarat.table.events import Event, StakesReturned
from baccarat.table.squeezing import controller_left

if TYPE_CHECKING:
    from baccarat.table.state import TableState

NOT_DEBITED = "not_debited"


def unstake(t: TableState, c: Unstake, now: float) -> list[Event]:
    """Return ``c.user_id``'s stakes of the round that closed; ``not_in_round`` if there are
    none (the round moved on, or the user did not bet)."""
    rnd = t.round
    if (
        rnd is None
        or rnd.round_id != c.round_id
        or not rnd.closed
        or rnd.settled
        or c.user_id not in rnd.bettors
    ):
        raise RuleViolation("not_in_round", "The user has no stakes in this round.")
    slip = rnd.bettors[c.user_id].slip
    without: dict[Area, int] = {a: -slip.get(a, 0) for a in ("player", "banker")}
    dealer = t.dealer
    if dealer is not None and rnd.liability(t.config.chip_unit, without) > dealer.coins:
        # The book leaned on these stakes: without them the dealer could not pay the worse
        # outcome. The caller calls the round off instead.
        raise RuleViolation(
            "dealer_cannot_cover", "Without these stakes the dealer could not cover the book."
        )
    stake = rnd.escrow.pop(c.user_id, 0)
    del rnd.bettors[c.user_id]
    t.last_slips.pop(c.user_id, None)
    occ = t.occupant(c.user_id)
    events: list[Event] = []
    if occ is not None:
        occ.coins += stake
        events.append(StakesReturned(rnd.round_id, occ.seat, c.user_id, stake, NOT_DEBITED))
    return events + controller_left(t, c.user_id, now)

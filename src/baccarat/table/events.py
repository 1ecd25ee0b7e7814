"""What a table tells the world: events with JSON-ready data.

Public events (``to=None``), by type, with their data:

- ``seated`` {seat, user_id, name, level, coins, connected, waiting_next_round, idle_rounds,
  leaving}
- ``seat_freed`` {seat, user_id, reason, coins}; reason is ``stood_up``, ``moved`` (a bettor
  moving to the dealer seat), ``idle``, ``below_floor``, ``dealer_below_floor`` or
  ``disconnected``; ``coins`` is the balance the table kept, stakes in escrow excluded
- ``dealer_leaving`` {seat, user_id, reason}: the dealer stood up (or lost the connection)
  during a round, betting included; they keep the seat and their book until the round
  settles, then a ``seat_freed`` with that reason follows the ``round_settled`` (or the
  ``round_cancelled``, if the last bettor left during betting)
- ``disconnected`` {seat, user_id, grace_until}, ``reconnected`` {seat, user_id},
  ``coins_set`` {seat, user_id, coins}
- ``waiting`` {dealer_needed, bettor_needed}
- ``shoe_started`` {shoe_id, commitment}, ``shoe_ended`` {shoe_id, commitment, seed},
  ``shuffling`` {deadline}
- ``betting_opened`` {round_id, shoe_id, round_no, dealer, deadline}
- ``chip_placed`` {round_id, seat, user_id, area, chip, chips, stake}: ``chips`` is the
  bettor's total on the area, ``stake`` their whole stake in coins
- ``bets_cleared`` {round_id, seat, user_id, reason}; reason is ``cleared`` or why they left
- ``bets_changed`` {round_id, seat, user_id, action, bets, stake}: a rebet, double or undo
  (``action``) changed the bettor's slip as one; ``bets`` is the whole slip now (chips per
  area), ``stake`` the whole stake in coins
- ``urged`` {round_id, dealer, seats, ready_at}
- ``round_cancelled`` {round_id, reason}: before the close, so no coin moved; reason is
  ``no_bettors`` or ``dealer_cannot_cover`` (bets taken back left the
  dealer unable to pay the worse outcome)
- ``betting_closed`` {round_id, shoe_id, round_no, dealer, bets: [{user_id, seat, area,
  chips, coins, at}]}: the stakes leave the bettors' balances into escrow here; ``at`` is
  when the first chip landed on that area
- ``controllers`` {round_id, player, banker}: who squeezes each hand (None: nobody bet);
  sent again when a controller leaves the table and control passes to the next bettor by
  the same rule (a card under squeeze then restarts with a ``squeeze_started``)
- ``card_dealt`` {round_id, hand, position, face_down, card?, points?}: ``card`` and the
  hand's open ``points`` only when dealt face up
- ``squeeze_started`` {round_id, hand, position, card, controller_user_id, controller_name,
  progress, corner, deadline}: ``card`` is the face-down card about to be peeled; betting
  is closed and the card is dealt, so every screen at the table draws the same face under
  the controller's peel (a face-down card waiting for its turn stays hidden from everyone)
- ``squeeze_progress`` {round_id, hand, position, progress, corner}
- ``card_opened`` {round_id, hand, position, card, points, forced}
- ``round_settled`` {round_id, shoe_id, round_no, dealer, bets, cards, outcome, settlement:
  {deltas, commission, house}, results: [{user_id, seat, role, stake, areas, commission,
  delta}]}: user ids are text keys in ``deltas`` and ``commission``; each bettor gets back
  their escrowed stake plus their delta

Private events (``to=user_id``):

- ``urge`` {round_id, dealer, deadline}: to each bettor who has not bet yet

Positions count from 0 within a hand: the face-down second card is position 1. ``corner``
is where the peel starts: a corner (``tl``, ``tr``, ``bl``, ``br``) or a side (``l``, ``r``,
``t``, ``b``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``to=None`` goes to everyone watching, else to that user only."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)
    to: int | None = None

    @property
    def private(self) -> bool:
        """Whether only one user may see this event."""
        return self.to is not None

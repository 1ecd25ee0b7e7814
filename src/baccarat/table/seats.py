"""Who sits where: the occupant of a seat and what the table remembers about them."""

from __future__ import annotations

from dataclasses import dataclass

from baccarat.table.config import DEALER_SEAT
from baccarat.table.events import Seated
from baccarat.table.round import Round


@dataclass(slots=True)
class Occupant:
    """A user in a seat. ``coins`` is the balance the table keeps while they sit."""

    user_id: int
    name: str
    level: int
    coins: int
    seat: int
    connected: bool = True
    grace_until: float | None = None
    """When a disconnected user loses the seat."""
    waiting_next_round: bool = False
    """Sat while a round was being dealt: may not bet until the next one."""
    idle_rounds: int = 0
    """Rounds in a row this bettor was dealt in without betting."""
    leaving: str | None = None
    """Why a dealer who asked to leave mid-round will leave once the round settles."""
    auto_open: bool = False
    """Their cards open at once when they control them (自動開牌)."""
    dealer_rounds: int = 0
    """Rounds dealt in a row from the dealer seat (連莊), for the room's limit."""
    wallet_away: bool = False
    """The platform that keeps their coins could not confirm the balance (``WalletAway``)."""

    @property
    def is_dealer(self) -> bool:
        """Whether this occupant holds the dealer seat."""
        return self.seat == DEALER_SEAT


def seated(occ: Occupant, rnd: Round | None) -> Seated:
    """The event of ``occ`` sitting down, as every screen may see them."""
    return Seated(
        seat=occ.seat,
        user_id=occ.user_id,
        name=occ.name,
        level=occ.level,
        coins=occ.coins,
        connected=occ.connected,
        waiting_next_round=occ.waiting_next_round,
        idle_rounds=occ.idle_rounds,
        leaving=occ.leaving is not None,
        dealer_rounds=occ.dealer_rounds,
        # One who sat down during a round has no bets in it (not even a settled round's, bet
        # from the seat they stood up from).
        bets=rnd.slip(occ.user_id) if rnd is not None and not occ.waiting_next_round else {},
    )

"""What changes a seated user without a game move: their connection, a preference, a balance."""

from __future__ import annotations

from typing import TYPE_CHECKING

from baccarat.bets import stake_coins
from baccarat.errors import InvalidInput, RuleViolation
from baccarat.numbers import whole
from baccarat.table.commands import Disconnect, Reconnect, SetAutoOpen, SetCoins, WalletAway
from baccarat.table.events import CoinsSet, Disconnected, Event, Reconnected

if TYPE_CHECKING:
    from baccarat.table.seats import Occupant
    from baccarat.table.state import TableState


def set_auto_open(t: TableState, c: SetAutoOpen) -> list[Event]:
    """A seated user's 自動開牌 preference: only their own view shows it."""
    occ = t.require_seat(c.user_id)
    if not isinstance(c.on, bool):
        raise InvalidInput("bad_pref", f"auto_open is true or false, not {c.on!r}.")
    # Only the user's own view shows it: no public event.
    occ.auto_open = c.on
    return []


def disconnect(t: TableState, c: Disconnect, now: float) -> list[Event]:
    """The user's connection dropped: the seat is kept for the reconnect grace."""
    occ = t.require_seat(c.user_id)
    if not occ.connected:
        raise RuleViolation("already_disconnected", "You are already marked disconnected.")
    grace_until = now + t.config.reconnect_grace_seconds
    occ.connected = False
    occ.grace_until = grace_until
    return [Disconnected(occ.seat, occ.user_id, grace_until)]


def reconnect(t: TableState, c: Reconnect, now: float) -> list[Event]:
    """The user is back within the reconnect grace."""
    occ = t.require_seat(c.user_id)
    if occ.connected:
        raise RuleViolation("not_disconnected", "You are connected already.")
    if occ.grace_until is not None and now >= occ.grace_until:
        raise RuleViolation("grace_expired", "The reconnect grace ran out; the seat is lost.")
    occ.connected = True
    occ.grace_until = None
    return [Reconnected(occ.seat, occ.user_id)]


def set_coins(t: TableState, c: SetCoins, now: float) -> list[Event]:
    """A seated user's balance changed outside the table (an operator grant); refused
    when it would leave the dealer's book or the user's stakes uncovered."""
    occ = check_coins(t, c.user_id, c.coins)
    occ.coins = c.coins
    return [CoinsSet(occ.seat, occ.user_id, c.coins)]


def set_wallet_away(t: TableState, c: WalletAway, now: float) -> list[Event]:
    """Whether the platform's wallet could not confirm a seated user's balance. No event: the
    balance shown stays the last one known, and what changes (the stakes the user and the
    dealer's bettors may place) reaches each screen as their ``me``."""
    occ = t.require_seat(c.user_id)
    occ.wallet_away = bool(c.away)
    return []


def check_coins(t: TableState, user_id: int, coins: int) -> Occupant:
    """Raise why a seated user's balance may not become ``coins`` (it would leave the
    dealer's book or the user's stakes uncovered); their occupant otherwise. Changes
    nothing, so a server can ask before it writes a grant."""
    occ = t.require_seat(user_id)
    if not whole(coins) or coins < 0:
        raise InvalidInput("bad_coins", f"A balance is a whole number of coins, not {coins!r}.")
    rnd = t.round
    if rnd is not None and not rnd.settled:
        if occ.is_dealer:
            owed = rnd.liability(t.config.chip_unit)
            if coins < owed:
                raise RuleViolation(
                    "dealer_cannot_cover",
                    f"The dealer could pay out {owed} coins on Player and Banker this round.",
                )
        elif not rnd.closed:
            staked = stake_coins(rnd.slip(occ.user_id), t.config.chip_unit)
            if coins < staked:
                raise RuleViolation(
                    "coins_below_stake", f"You have {staked} coins on the table this round."
                )
    return occ

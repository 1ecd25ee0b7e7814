"""Coins in flight: users whose coins a table has moved and the ledger has not yet settled.

When betting closes, a round's stakes go into escrow and its bettors' and dealer's balances
will change again when it settles. Until that settlement is committed (or the round is
voided), the ledger's balance of those users is not the one they will end with, so no other
table may seat them on it. One registry per server; every table's ledger writer keeps it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from baccarat.errors import RuleViolation


class CoinsInFlight:
    """Which users have coins in an unsettled round, and at which table."""

    def __init__(self) -> None:
        self._rounds: dict[str, tuple[str, frozenset[int]]] = {}
        """Each open round's table id and users (its bettors and its dealer)."""
        self._users: dict[int, dict[str, str]] = {}
        """Each user's open rounds: round id -> table id."""
        self.on_landed: Callable[[int], None] | None = None
        """Called with a user's id when their last open round has landed in the ledger."""

    def hold(self, table_id: str, round_id: str, user_ids: Iterable[int]) -> None:
        """Betting closed at ``table_id``: these users' coins are in ``round_id`` now."""
        users = frozenset(user_ids)
        self._rounds[round_id] = (table_id, users)
        for uid in users:
            self._users.setdefault(uid, {})[round_id] = table_id

    def land(self, round_id: str) -> None:
        """The round's settlement (or void) is committed: its users' balances are final."""
        entry = self._rounds.pop(round_id, None)
        if entry is None:
            return
        for uid in entry[1]:
            rounds = self._users.get(uid, {})
            rounds.pop(round_id, None)
            if not rounds:
                self._users.pop(uid, None)
                if self.on_landed is not None:
                    self.on_landed(uid)

    def tables_of(self, user_id: int) -> set[str]:
        """The tables where ``user_id`` has coins in an unsettled round."""
        return set(self._users.get(user_id, {}).values())

    def elsewhere(self, user_id: int, table_id: str) -> str | None:
        """A table other than ``table_id`` holding ``user_id``'s coins in play, if any."""
        others = sorted(self.tables_of(user_id) - {table_id})
        return others[0] if others else None

    def verify_free(self, user_id: int, table_id: str) -> None:
        """Refuse (``coins_in_play``) a seat at ``table_id`` while another table's unsettled
        round holds the user's coins: its settlement will change the balance."""
        other = self.elsewhere(user_id, table_id)
        if other is not None:
            raise RuleViolation(
                "coins_in_play",
                f"Your coins are in a round still being dealt at table {other!r}; "
                "sit down once it has settled.",
                table_id=other,
            )

    def users(self) -> dict[int, str]:
        """Every user with coins in flight, mapped to one table holding them."""
        return {uid: min(rounds.values()) for uid, rounds in self._users.items() if rounds}

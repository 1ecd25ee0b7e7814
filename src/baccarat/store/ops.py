"""Ledger operations: each is one ledger transaction with an idempotency key.

Every operation on a round carries the epoch of the round's table that its writer holds
(``baccarat.store.epochs``); the database refuses it unless that epoch is the table's
current one, so a node that lost its table can no longer move that table's coins.

:mod:`baccarat.store.batch` applies them; the store's writer queues them for group commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from baccarat.errors import BaccaratError
from baccarat.store.records import Applied, BetRecord


@dataclass(frozen=True, slots=True)
class Escrow:
    """Betting closed: every stake moves from its bettor's wallet into the round's escrow."""

    round_id: str
    table_id: str
    shoe_id: str
    round_no: int
    dealer_id: int
    bets: tuple[BetRecord, ...]
    epoch: int = 0
    """The table's epoch the writer holds; refused unless it is the table's current one."""

    @property
    def key(self) -> str:
        """The idempotency key."""
        return f"round:{self.round_id}:escrow"


@dataclass(frozen=True, slots=True)
class Settle:
    """The round is dealt: escrow empties, every wallet ends at its old balance + delta."""

    round_id: str
    cards: tuple[str, ...]
    outcome: dict[str, Any]
    deltas: dict[int, int]
    commission: dict[int, int]
    house: int
    epoch: int = 0
    """The table's epoch the writer holds; refused unless it is the table's current one."""

    @property
    def key(self) -> str:
        """The idempotency key."""
        return f"round:{self.round_id}:settle"


@dataclass(frozen=True, slots=True)
class Void:
    """The round will never be settled: every stake goes back to its bettor."""

    round_id: str
    epoch: int = 0
    """The table's epoch the writer holds; refused unless it is the table's current one."""

    @property
    def key(self) -> str:
        """The idempotency key."""
        return f"round:{self.round_id}:void"


@dataclass(frozen=True, slots=True)
class Grant:
    """Coins from the mint to a user (negative: back to the mint)."""

    user_id: int
    coins: int
    reason: str
    key: str


Op = Escrow | Settle | Void | Grant
Outcome = Applied | BaccaratError

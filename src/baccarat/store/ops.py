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
    first_card: int | None = None
    """Where in the shoe the round's cards start: the shoe is then known dealt up to 6 cards
    further (a round's most), so no card this round may show is dealt again after a restart."""

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


VOID_CRASH = "crash"
"""Left in escrow by a process that stopped without settling it; voided by the next one."""
VOID_SHUTDOWN = "shutdown"
"""The server stopped (or gave the table up) before the round could finish."""
VOID_SETTLEMENT_REFUSED = "settlement_refused"
"""The ledger refused the round's payout: the table disagreed with it."""
VOID_ESCROW_REFUSED = "escrow_refused"
"""The ledger refused the round's stakes: the table disagreed with it."""
VOID_WALLET = "wallet"
"""The platform's wallet (a seamless wallet) did not give the dealer's cover, or stakes the
book leaned on: no stake was taken."""
EXPECTED_VOIDS = frozenset({VOID_CRASH, VOID_SHUTDOWN, VOID_WALLET, "unrecorded"})
"""Reasons that are no fault of the server (``unrecorded``: voided before reasons were kept);
the audit reports any other as a problem."""


@dataclass(frozen=True, slots=True)
class Void:
    """The round will never be settled: every stake goes back to its bettor."""

    round_id: str
    epoch: int = 0
    """The table's epoch the writer holds; refused unless it is the table's current one."""
    reason: str = VOID_CRASH
    """Why (``VOID_*``); kept with the round for the audit."""

    @property
    def key(self) -> str:
        """The idempotency key."""
        return f"round:{self.round_id}:void"


@dataclass(frozen=True, slots=True)
class Unescrowed:
    """The ledger refused a round's stakes: record the round as voided, moving no coin."""

    round_id: str
    table_id: str
    shoe_id: str
    round_no: int
    dealer_id: int
    epoch: int = 0
    reason: str = VOID_ESCROW_REFUSED
    first_card: int | None = None
    """As an escrow's: the round's cards were drawn (and shown) all the same."""

    @property
    def key(self) -> str:
        """The idempotency key (the same as a void's: a round is voided once)."""
        return f"round:{self.round_id}:void"


@dataclass(frozen=True, slots=True)
class Grant:
    """Coins from the mint to a user (negative: back to the mint), and its entry in the
    operator log, written in the same transaction."""

    user_id: int
    coins: int
    reason: str
    key: str
    actor: str = "system"
    """Who granted: an operator's name, ``cli`` for ``baccarat admin``, ``system`` for the
    server's own grants (an account's opening balance)."""
    actor_id: int | None = None
    """The operator's user id (None when no account acted)."""


MAX_ROUND_CARDS = 6
"""The most cards a round draws: a shoe is reserved this far past a round's first card."""


Op = Escrow | Settle | Void | Unescrowed | Grant
Outcome = Applied | BaccaratError

"""What the store hands out: users, bets, rounds, shoes, audit reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HOUSE = "house"
MINT = "mint"
PLATFORM = "platform"
SYSTEM_WALLETS = (HOUSE, MINT, PLATFORM)
"""The house books Tie and Pairs and takes commission; the mint is where granted coins
come from (its balance is minus every coin ever granted); the operator's platform is where
transferred coins come from (minus every coin it moved in and not out)."""


def user_wallet(user_id: int) -> str:
    """The ledger name of a user's wallet."""
    return f"user:{user_id}"


def escrow_wallet(round_id: str) -> str:
    """The ledger name of a round's escrow."""
    return f"escrow:{round_id}"


@dataclass(frozen=True, slots=True)
class User:
    """An account. ``coins`` is the wallet balance when the row was read."""

    user_id: int
    username: str
    display_name: str
    level: int
    coins: int
    created_at: float
    role: str = "player"
    """``player``, ``operator`` or ``admin`` (the console is for the last two)."""
    banned: str | None = None
    """Why the account is banned, or None."""
    muted_until: float | None = None
    """Until when (epoch seconds) the user may not chat, or None."""

    def muted(self, now: float) -> bool:
        """Whether the user may not chat at ``now``."""
        return self.muted_until is not None and now < self.muted_until

    def to_dict(self) -> dict[str, Any]:
        """The user as JSON-ready data (no password hash)."""
        return {
            "user_id": self.user_id,
            "username": self.username,
            "display_name": self.display_name,
            "level": self.level,
            "coins": self.coins,
            "created_at": self.created_at,
        }


@dataclass(frozen=True, slots=True)
class BetRecord:
    """One chip placement: ``chips`` on ``area`` worth ``coins``, placed at ``at`` (seconds)."""

    user_id: int
    area: str
    chips: int
    coins: int
    at: float


@dataclass(frozen=True, slots=True)
class Applied:
    """The result of a ledger operation: balances after it, and whether it was a replay."""

    key: str
    balances: dict[int, int]
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A round as stored: what is needed to recompute its result and settlement."""

    round_id: str
    table_id: str
    shoe_id: str
    round_no: int
    dealer_id: int
    status: str
    bets: list[BetRecord]
    cards: list[str] | None
    outcome: dict[str, Any] | None
    deltas: dict[int, int]
    commission: dict[int, int]
    house: int | None
    escrowed_at: float
    closed_at: float | None
    void_reason: str | None = None
    """Why a voided round was voided (``baccarat.store.ops.VOID_*``)."""

    def to_dict(self) -> dict[str, Any]:
        """The round as JSON-ready data."""
        return {
            "round_id": self.round_id,
            "table_id": self.table_id,
            "shoe_id": self.shoe_id,
            "round_no": self.round_no,
            "dealer_id": self.dealer_id,
            "status": self.status,
            "bets": [
                {
                    "user_id": b.user_id,
                    "area": b.area,
                    "chips": b.chips,
                    "coins": b.coins,
                    "at": b.at,
                }
                for b in self.bets
            ],
            "cards": self.cards,
            "outcome": self.outcome,
            "deltas": {str(k): v for k, v in self.deltas.items()},
            "commission": {str(k): v for k, v in self.commission.items()},
            "house": self.house,
            "escrowed_at": self.escrowed_at,
            "closed_at": self.closed_at,
            "void_reason": self.void_reason,
        }


@dataclass(frozen=True, slots=True)
class ShoeRecord:
    """A shoe: its commitment, and its seed once it has ended."""

    shoe_id: str
    table_id: str
    commitment: str
    seed: str | None
    started_at: float
    ended_at: float | None
    sealed_seed: str | None = None
    """The seed sealed with a node's key while the shoe is dealt (``baccarat.seal``)."""
    next_card: int | None = None
    """The first position no card was drawn from (or reserved) yet; None: not recorded."""
    end_reason: str | None = None
    """Why it ended: ``SHOE_DEALT`` and the others (``baccarat.store.shoelog``)."""
    log_index: int | None = None
    """Its entry in the commitment log (None: logged before the log existed)."""


@dataclass(frozen=True, slots=True)
class ShoeRound:
    """A round as the public shoe archive shows it: its cards and result, no bet, no user."""

    round_id: str
    round_no: int
    status: str
    cards: list[str] | None
    """In dealing order; None unless the round was settled."""
    winner: str | None
    escrowed_at: float
    closed_at: float | None
    first_card: int | None = None
    """Where in the shoe (from 0) the round's cards start; None when not recorded."""


@dataclass(frozen=True, slots=True)
class AuditReport:
    """What ``audit`` found: ``ok`` when ``problems`` is empty."""

    ok: bool
    rounds: int
    voided: int
    in_play: int = 0
    """Rounds escrowed too recently to count as left behind: being dealt now."""
    problems: list[str] = field(default_factory=list)
    void_reasons: dict[str, int] = field(default_factory=dict)
    """Voided rounds counted by reason."""

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "ok": self.ok,
            "rounds": self.rounds,
            "voided": self.voided,
            "in_play": self.in_play,
            "void_reasons": dict(self.void_reasons),
            "problems": list(self.problems),
        }

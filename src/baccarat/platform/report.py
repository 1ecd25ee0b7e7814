"""Reconciliation: the game's record of transfers (or of seamless wallet calls) beside the
platform's report of a period, and every difference between them (``baccarat reconcile``).

With the seamless wallet, what is compared is each round's net change to each user's coins
at the platform (debits, credits and rollbacks summed), named by round and user: a debit the
game gave up on and its rollback net to nothing on both sides whether or not the platform took
the debit, and a credit the game owes and the platform has not taken yet shows as a
difference until it has.

Pure: the two lists come in, the differences go out. Each side's clock stamps its own
records, so both lists are read with ``MARGIN`` seconds either side of the period, and a
transfer belongs to the period when the side that has it (the game, when both do) stamped
it inside.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from baccarat.errors import InvalidInput
from baccarat.numbers import whole

MARGIN = 300.0
"""Seconds either side of the period each list is read with: a transfer signed at the
window's edge is stamped within it on both sides."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One transfer as one side reports it (or, with the seamless wallet, one round's net
    change to one user's coins: ``transfer_id`` is then ``<round_id>:<user>``)."""

    transfer_id: str
    user: str
    amount: int
    at: float
    round_id: str | None = None
    """The seamless wallet's round (None for a transfer)."""


@dataclass(frozen=True, slots=True)
class Difference:
    """One transfer the two sides do not agree on."""

    transfer_id: str
    kind: str
    """``missing_in_game``, ``missing_at_platform``, ``user_differs`` or ``amount_differs``."""
    game: Entry | None
    platform: Entry | None

    def line(self) -> str:
        """The difference as one line of text."""
        g, p = self.game, self.platform
        shown = {
            "missing_in_game": f"the platform moved {p.amount if p else 0} for {p.user if p else '?'}"
            ", the game has no such transfer",
            "missing_at_platform": f"the game moved {g.amount if g else 0} for {g.user if g else '?'}"
            ", the platform does not report it",
            "user_differs": f"the game names user {g.user if g else '?'}, the platform "
            f"{p.user if p else '?'}",
            "amount_differs": f"the game moved {g.amount if g else 0}, the platform says "
            f"{p.amount if p else 0}",
        }[self.kind]
        return f"{self._named()}: {self.kind}: {shown}"

    def _round(self) -> tuple[str, str] | None:
        """The seamless wallet's round and user this difference is of, or None."""
        e = self.game or self.platform
        return None if e is None or e.round_id is None else (e.round_id, e.user)

    def _named(self) -> str:
        found = self._round()
        return self.transfer_id if found is None else f"round {found[0]} of {found[1]}"

    def json(self) -> dict[str, Any]:
        """The difference as JSON: a transfer's by ``transfer_id``, a round's net change by
        ``round_id`` and ``user``."""

        def side(e: Entry | None) -> dict[str, Any] | None:
            return None if e is None else {"user": e.user, "amount": e.amount, "at": e.at}

        found = self._round()
        named = (
            {"transfer_id": self.transfer_id}
            if found is None
            else {"round_id": found[0], "user": found[1]}
        )
        return {
            **named,
            "kind": self.kind,
            "game": side(self.game),
            "platform": side(self.platform),
        }


def _entry(row: Any) -> Entry:
    if not isinstance(row, Mapping):
        raise InvalidInput("bad_report", "Each transfer in the report is an object.")
    tid, user, amount, at = (row.get(k) for k in ("transfer_id", "user", "amount", "created_at"))
    if not isinstance(tid, str) or not isinstance(user, str) or not whole(amount):
        raise InvalidInput("bad_report", f"A transfer of the report is malformed: {row!r}.")
    if not isinstance(at, int | float) or isinstance(at, bool):
        raise InvalidInput("bad_report", f"A transfer of the report has no time: {row!r}.")
    return Entry(tid, user, amount, float(at))


def platform_entries(report: Any) -> list[Entry]:
    """The platform's report ``{"transfers": [{transfer_id, user, amount, created_at}]}``
    read strictly; ``bad_report`` naming what is wrong."""
    rows = report.get("transfers") if isinstance(report, Mapping) else None
    if not isinstance(rows, list):
        raise InvalidInput("bad_report", "The platform's report has no 'transfers' list.")
    return [_entry(row) for row in rows]


def _kind(g: Entry | None, p: Entry | None) -> str | None:
    """What is wrong with one id on the two sides, or None when they agree."""
    if g is None:
        return "missing_in_game"
    if p is None:
        return "missing_at_platform"
    if g.user != p.user:
        return "user_differs"
    if g.amount != p.amount:
        return "amount_differs"
    return None


def differences(
    game: Iterable[Entry], platform: Iterable[Entry], start: float, end: float
) -> list[Difference]:
    """Every transfer of ``[start, end)`` the two sides disagree on, by id."""
    ours = {e.transfer_id: e for e in game}
    theirs = {e.transfer_id: e for e in platform}
    found = []
    for tid in sorted(set(ours) | set(theirs)):
        g, p = ours.get(tid), theirs.get(tid)
        # Stamped by the game when it has it, else by the platform.
        side = g if g is not None else p
        stamped = side.at if side is not None else 0.0
        kind = _kind(g, p)
        if kind is not None and start <= stamped < end:
            found.append(Difference(tid, kind, g, p))
    return found


def platform_transactions(report: Any) -> list[Entry]:
    """The platform's seamless report ``{"transactions": [{transaction_id, round_id, user,
    amount, created_at}]}`` (``amount``: the change to the user's coins), netted by round
    and user; ``bad_report`` naming what is wrong."""
    rows = report.get("transactions") if isinstance(report, Mapping) else None
    if not isinstance(rows, list):
        raise InvalidInput("bad_report", "The platform's report has no 'transactions' list.")
    nets: dict[str, Entry] = {}
    for row in rows:
        e = _entry(
            {**row, "transfer_id": row.get("transaction_id")} if isinstance(row, Mapping) else row
        )
        round_id = row.get("round_id")
        if not isinstance(round_id, str):
            raise InvalidInput("bad_report", f"A transaction of the report has no round: {row!r}.")
        key = f"{round_id}:{e.user}"
        seen = nets.get(key)
        nets[key] = (
            Entry(key, e.user, e.amount, e.at, round_id)
            if seen is None
            else Entry(key, e.user, seen.amount + e.amount, min(seen.at, e.at), round_id)
        )
    return [e for e in nets.values() if e.amount]


def net_entries(changes: Iterable[tuple[str, str, int, float]]) -> list[Entry]:
    """The game's side: ``(round_id, user, change, at)`` netted by round and user."""
    nets: dict[str, Entry] = {}
    for round_id, user, change, at in changes:
        key = f"{round_id}:{user}"
        seen = nets.get(key)
        nets[key] = (
            Entry(key, user, change, at, round_id)
            if seen is None
            else Entry(key, user, seen.amount + change, min(seen.at, at), round_id)
        )
    return [e for e in nets.values() if e.amount]

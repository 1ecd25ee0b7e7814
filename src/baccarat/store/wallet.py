"""The seamless wallet in the store: every call the game makes to the platform's wallet,
and the coins each one moves (``docs/integration.md``, "Seamless wallet").

The platform keeps the balance. A round's coins come into the game only for the round (the
users the platform launched, that is: an account of the game's own keeps its coins in the
game's wallet):

- At the close of betting each bettor's stakes (and the dealer's cover) are a ``debit``. Once
  the platform took it, the ledger transaction ``wallet:<call id>`` moves the coins from the
  ``platform`` system wallet into the user's game wallet, where the round's escrow takes them.
  A debit the platform refused, or that was not answered in time, moves nothing and is
  ``failed``: a ``rollback`` of it is owed, in case the platform took it after all.
- When the round lands, the coins go back out at once (the ledger transaction is written with
  the call, before the platform answers): a ``credit`` of what the round left the user
  (what was debited plus the round's result) when it settled, or a ``rollback`` of each debit
  when it was voided; each debit is then ``closed``. The call stays ``pending`` until the
  platform answers, and is sent again with the same id until it does: never lost, never paid
  twice.

So a seamless user's game wallet is empty outside a round, and ``baccarat audit`` balances
the ledger as it does for transfers. Each call's id is made of the round's id, the user's id
and the kind, so a call is made once per round and user whoever makes it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from baccarat.errors import NotFound
from baccarat.store import crossing
from baccarat.store import schema as s
from baccarat.store.engine import reading
from baccarat.store.records import PLATFORM

DEBIT, CREDIT, ROLLBACK = "debit", "credit", "rollback"
PENDING, DONE, FAILED, CLOSED = "pending", "done", "failed", "closed"
ANSWER_MAX = 2000
"""Characters of an answer kept (a platform's error page can be long)."""
UNFINISHED_AFTER = 120.0
"""Seconds after which a round that never reached the ledger is given up: its debits are
rolled back (the node that dealt it stopped before its stakes were escrowed)."""


@dataclass(frozen=True, slots=True)
class WalletCall:
    """One call to the platform's wallet, as the game recorded it."""

    call_id: str
    kind: str
    round_id: str
    user_id: int
    platform_user: str
    amount: int
    refers_to: str | None
    state: str
    attempts: int
    created_at: float

    def json(self) -> dict[str, Any]:
        """The call as the game's report and the reconciliation show it."""
        return {
            "transaction_id": self.call_id,
            "kind": self.kind,
            "round_id": self.round_id,
            "user": self.platform_user,
            "amount": self.amount,
            "refers_to": self.refers_to,
            "state": self.state,
            "created_at": self.created_at,
        }


def call_id(round_id: str, user_id: int, kind: str) -> str:
    """The game's id of a round's call for one user (the same whoever makes it)."""
    return f"{round_id}:{user_id}:{kind}"


def _call(row: Any) -> WalletCall:
    return WalletCall(
        call_id=row.call_id,
        kind=row.kind,
        round_id=row.round_id,
        user_id=int(row.user_id),
        platform_user=row.platform_user,
        amount=int(row.amount),
        refers_to=row.refers_to,
        state=row.state,
        attempts=int(row.attempts),
        created_at=float(row.created_at),
    )


def _find(conn: sa.Connection, cid: str) -> WalletCall | None:
    row = conn.execute(sa.select(s.wallet_calls).where(s.wallet_calls.c.call_id == cid)).first()
    return None if row is None else _call(row)


def _platform_user(conn: sa.Connection, user_id: int) -> str:
    found = crossing.platform_user_of(conn, user_id)
    if found is None:
        raise NotFound("unknown_user", f"User {user_id} did not come from the platform.")
    return found


def _move(conn: sa.Connection, cid: str, kind: str, user_id: int, amount: int) -> None:
    """The ledger transaction of a call: ``amount`` from the platform into the user's game
    wallet (negative: back out)."""
    crossing.cross(conn, f"wallet:{cid}", f"wallet_{kind}", user_id, amount, time.time())
    conn.execute(
        sa.update(s.users).where(s.users.c.id == user_id).values(coins=s.users.c.coins + amount)
    )


def _insert(
    conn: sa.Connection,
    cid: str,
    kind: str,
    round_id: str,
    user_id: int,
    amount: int,
    refers_to: str | None = None,
) -> WalletCall:
    now = time.time()
    who = _platform_user(conn, user_id)
    values = {
        "call_id": cid,
        "kind": kind,
        "round_id": round_id,
        "user_id": user_id,
        "platform_user": who,
        "amount": amount,
        "refers_to": refers_to,
        "state": PENDING,
        "attempts": 0,
        "created_at": now,
        "answered_at": None,
    }
    conn.execute(sa.insert(s.wallet_calls).values(**values))
    return WalletCall(cid, kind, round_id, user_id, who, amount, refers_to, PENDING, 0, now)


def _round_state(conn: sa.Connection, round_id: str) -> tuple[str | None, float | None]:
    row = conn.execute(
        sa.select(s.rounds.c.status, s.rounds.c.escrowed_at).where(s.rounds.c.id == round_id)
    ).first()
    return (None, None) if row is None else (str(row.status), row.escrowed_at)


def _close(conn: sa.Connection, round_id: str, settled: bool) -> list[WalletCall]:
    """The credits or rollbacks a landed round owes, written with their coins' move out; each
    debit it gives back is ``closed``."""
    calls = s.wallet_calls
    debits = conn.execute(
        sa.select(calls).where(
            calls.c.round_id == round_id, calls.c.kind == DEBIT, calls.c.state == DONE
        )
    ).all()
    if not debits:
        return []
    conn.execute(
        sa.update(calls)
        .where(calls.c.call_id.in_([d.call_id for d in debits]), calls.c.state == DONE)
        .values(state=CLOSED)
    )
    out: list[WalletCall] = []
    if not settled:
        for d in debits:
            cid = call_id(round_id, int(d.user_id), ROLLBACK)
            out.append(_insert(conn, cid, ROLLBACK, round_id, int(d.user_id), d.amount, d.call_id))
            _move(conn, cid, ROLLBACK, int(d.user_id), -int(d.amount))
        return out
    deltas = dict(
        conn.execute(
            sa.select(s.round_results.c.user_id, s.round_results.c.delta).where(
                s.round_results.c.round_id == round_id
            )
        ).all()
    )
    for d in debits:
        uid = int(d.user_id)
        back = int(d.amount) + int(deltas.get(uid, 0))
        cid = call_id(round_id, uid, CREDIT)
        out.append(_insert(conn, cid, CREDIT, round_id, uid, back, d.call_id))
        if back:
            _move(conn, cid, CREDIT, uid, -back)
    return out


def _answered(conn: sa.Connection, call: WalletCall, ok: bool, now: float) -> None:
    """A pending call's new state, and what it moves: a debit taken brings its coins in, a
    debit not taken owes its rollback."""
    debit = call.kind == DEBIT
    state = DONE if ok else (FAILED if debit else PENDING)
    conn.execute(
        sa.update(s.wallet_calls)
        .where(s.wallet_calls.c.call_id == call.call_id, s.wallet_calls.c.state == PENDING)
        .values(
            state=state,
            attempts=s.wallet_calls.c.attempts + 1,
            answered_at=None if state == PENDING else now,
        )
    )
    if debit and ok:
        _move(conn, call.call_id, DEBIT, call.user_id, call.amount)
    elif debit:
        rid = call_id(call.round_id, call.user_id, ROLLBACK)
        if _find(conn, rid) is None:
            _insert(conn, rid, ROLLBACK, call.round_id, call.user_id, call.amount, call.call_id)


class WalletCalls:
    """The seamless wallet's calls: a part of the store."""

    engine: sa.Engine

    def wallet_debit(self, round_id: str, user_id: int, amount: int) -> WalletCall:
        """Record a debit about to be asked for (``pending``); the one recorded before if
        this round already asked it."""
        cid = call_id(round_id, user_id, DEBIT)
        with self.engine.begin() as conn:
            found = _find(conn, cid)
            return (
                found if found is not None else _insert(conn, cid, DEBIT, round_id, user_id, amount)
            )

    def wallet_answer(self, cid: str, status: int, answer: str, *, ok: bool) -> WalletCall:
        """Record one attempt's answer. A debit the platform took (``ok``) moves its coins into
        the game; any other answer to a debit fails it, once, and owes its rollback. A credit
        or rollback is ``done`` once answered ``ok``, and stays ``pending`` otherwise."""
        now = time.time()
        with self.engine.begin() as conn:
            call = _find(conn, cid)
            if call is None:
                raise NotFound("unknown_call", f"No wallet call {cid!r} was made.")
            conn.execute(
                sa.insert(s.wallet_answers).values(
                    call_id=cid, at=now, status=status, answer=answer[:ANSWER_MAX]
                )
            )
            if call.state != PENDING:
                return call  # answered before (a late answer, or another node's)
            _answered(conn, call, ok, now)
            found = _find(conn, cid)
            assert found is not None
            return found

    def wallet_close(self, round_id: str) -> list[WalletCall]:
        """The credits (a settled round) or rollbacks (a voided one) the round owes, recorded
        now with their coins moved back to the platform; none before it lands, or twice."""
        return self._closing(round_id, landed_only=True)

    def _closing(self, round_id: str, *, landed_only: bool) -> list[WalletCall]:
        for attempt in range(2):
            try:
                with self.engine.begin() as conn:
                    status, _ = _round_state(conn, round_id)
                    if status == "escrowed" or (landed_only and status is None):
                        return []
                    return _close(conn, round_id, status == "settled")
            except sa.exc.IntegrityError:
                # Another node closed it meanwhile: the next look finds its calls.
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def wallet_unfinished(self, older_than: float) -> list[str]:
        """Rounds owing coins back to the platform: a debit it took and the game has not given
        back, in a round that landed, or that never reached the ledger and is over
        ``older_than`` seconds old (its node stopped before the escrow)."""
        calls = s.wallet_calls
        now = time.time()
        with reading(self.engine) as conn:
            rows = conn.execute(
                sa.select(calls.c.round_id, calls.c.created_at, s.rounds.c.status)
                .outerjoin(s.rounds, s.rounds.c.id == calls.c.round_id)
                .where(calls.c.kind == DEBIT, calls.c.state == DONE)
            ).all()
        return sorted(
            {
                r.round_id
                for r in rows
                if r.status in ("settled", "voided")
                or (r.status is None and now - float(r.created_at) > older_than)
            }
        )

    def wallet_give_back(self, round_id: str) -> list[WalletCall]:
        """The credits or rollbacks of a landed round, or the rollbacks of one that never
        reached the ledger (``wallet_unfinished`` found it): nothing of it will settle."""
        return self._closing(round_id, landed_only=False)

    def wallet_pending(self, older_than: float = 0.0) -> list[WalletCall]:
        """Calls still waiting for the platform's answer, made over ``older_than`` seconds
        ago, oldest first."""
        calls = s.wallet_calls
        with reading(self.engine) as conn:
            rows = conn.execute(
                sa.select(calls)
                .where(calls.c.state == PENDING, calls.c.created_at <= time.time() - older_than)
                .order_by(calls.c.created_at, calls.c.call_id)
            )
            return [_call(r) for r in rows]

    def wallet_calls_between(self, start: float, end: float) -> list[WalletCall]:
        """Every call made in ``[start, end)``, oldest first."""
        with reading(self.engine) as conn:
            rows = crossing.made_between(conn, s.wallet_calls, "call_id", start, end)
        return [_call(r) for r in rows]

    def wallet_calls_of(self, round_id: str) -> list[WalletCall]:
        """A round's calls, oldest first."""
        calls = s.wallet_calls
        with reading(self.engine) as conn:
            rows = conn.execute(
                sa.select(calls)
                .where(calls.c.round_id == round_id)
                .order_by(calls.c.created_at, calls.c.call_id)
            )
            return [_call(r) for r in rows]


def wallet_problems(conn: sa.Connection) -> Iterator[str]:
    """The audit's look at the seamless wallet: every call's coins moved once, as recorded."""
    calls = s.wallet_calls
    rows = conn.execute(
        sa.select(calls.c.call_id, calls.c.kind, calls.c.state, calls.c.amount, calls.c.refers_to)
    ).all()
    states = {r.call_id: r.state for r in rows}
    moved = dict(
        conn.execute(
            sa.select(s.postings.c.tx_key, s.postings.c.amount)
            .join(s.ledger_tx, s.ledger_tx.c.key == s.postings.c.tx_key)
            .where(s.ledger_tx.c.kind.like("wallet_%"), s.postings.c.wallet != PLATFORM)
        ).all()
    )
    for r in rows:
        key = f"wallet:{r.call_id}"
        want = 0
        if r.kind == DEBIT and r.state in (DONE, CLOSED):
            want = int(r.amount)
        elif r.kind == CREDIT or states.get(r.refers_to) == CLOSED:
            # A rollback of a debit that failed gives back nothing the game had.
            want = -int(r.amount)
        got = int(moved.pop(key, 0))
        if got != want:
            yield f"wallet call {r.call_id} ({r.kind}, {r.state}) moved {got}, not {want}"
    for key in moved:
        yield f"ledger transaction {key} has no wallet call"

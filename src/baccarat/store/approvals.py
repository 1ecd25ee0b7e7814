"""The store's grants by operators: four eyes on money, and a daily total per operator.

An operator's grant moves coins at once only when it is small and to someone else. A grant
of more than ``GrantPolicy.approve_above`` coins (either way), and any grant to oneself, is
a request that waits for a second operator: ``pending``, then ``approved`` (the coins move,
one ledger transaction keyed by the request, so it is paid at most once) or ``refused``.
Each step is in the operator log with who and why, in the same transaction as the step.
The coins an operator gives (direct grants, and requests not refused) within 24 hours are
at most ``GrantPolicy.daily_cap``. ``baccarat admin`` (``cli``) is bound by neither: it
is run by whoever holds the database.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from baccarat.errors import InvalidInput, NotFound, RuleViolation
from baccarat.numbers import whole
from baccarat.store import accounts, powers
from baccarat.store import schema as s
from baccarat.store.batch import apply_ops
from baccarat.store.engine import reading
from baccarat.store.ledger import MAX_GRANT
from baccarat.store.operators import Actor, append, verify_reason
from baccarat.store.ops import Grant
from baccarat.store.records import Applied, User, user_wallet

DAY = 86_400.0
STATUSES = ("pending", "approved", "refused")


@dataclass(frozen=True, slots=True)
class GrantPolicy:
    """The ``[server]`` bounds of operators' grants."""

    approve_above: int = 100_000
    """A grant of more coins than this (given or taken) waits for a second operator."""
    daily_cap: int = 1_000_000
    """Coins one operator may give within 24 hours, approved or waiting."""


@dataclass(frozen=True, slots=True)
class GrantRequest:
    """A grant waiting for, or decided by, a second operator."""

    id: int
    created_at: float
    user_id: int
    username: str
    coins: int
    reason: str
    why: str
    """``amount`` (above the bound) or ``self`` (to the operator who asked)."""
    requested_by: str
    requested_by_id: int | None
    status: str
    decided_by: str | None
    decided_at: float | None
    decision: str | None
    ledger_tx: str | None

    def json(self) -> dict[str, Any]:
        """The request as JSON-ready data."""
        return {k: getattr(self, k) for k in self.__slots__}


def _request(row: Any) -> GrantRequest:
    return GrantRequest(
        id=int(row.id),
        created_at=row.created_at,
        user_id=int(row.user_id),
        username=row.username,
        coins=int(row.coins),
        reason=row.reason,
        why=row.why,
        requested_by=row.requested_by,
        requested_by_id=row.requested_by_id,
        status=row.status,
        decided_by=row.decided_by,
        decided_at=row.decided_at,
        decision=row.decision,
        ledger_tx=row.ledger_tx,
    )


_REQUESTS = sa.select(s.grant_requests, s.users.c.username).join(
    s.users, s.users.c.id == s.grant_requests.c.user_id
)


def verify_grant_amount(coins: object) -> int:
    """A grant is a non-zero whole number of coins, at most ``MAX_GRANT`` either way."""
    if not whole(coins) or coins == 0 or abs(coins) > MAX_GRANT:
        raise InvalidInput(
            "bad_amount", f"A grant is a non-zero whole number of coins, at most {MAX_GRANT:,}."
        )
    return int(coins)


def given_within_a_day(conn: sa.Connection, operator_id: int, now: float) -> int:
    """Coins the operator gave in the last 24 hours, with their requests still waiting."""
    log, p = s.operator_log, s.postings
    granted = conn.scalar(
        sa.select(sa.func.coalesce(sa.func.sum(p.c.amount), 0))
        .select_from(
            log.join(p, sa.and_(p.c.tx_key == log.c.ledger_tx, p.c.wallet == log.c.target))
        )
        .where(
            log.c.action == "grant",
            log.c.actor_id == operator_id,
            log.c.at >= now - DAY,
            p.c.amount > 0,
        )
    )
    r = s.grant_requests
    waiting = conn.scalar(
        sa.select(sa.func.coalesce(sa.func.sum(r.c.coins), 0)).where(
            r.c.requested_by_id == operator_id, r.c.status == "pending", r.c.coins > 0
        )
    )
    return int(granted or 0) + int(waiting or 0)


def _grant(conn: sa.Connection, op: Grant) -> None:
    outcome = apply_ops(conn, [op])[0]
    if not isinstance(outcome, Applied):
        raise outcome


class Approvals:
    """Operators' grants, the requests waiting for a second operator, and their decisions:
    a part of the store."""

    engine: sa.Engine

    def operator_grant(
        self, actor: Actor, user_id: int, coins: int, reason: str, policy: GrantPolicy
    ) -> tuple[User, GrantRequest | None]:
        """Grant ``coins`` to the user as ``actor``, or ask a second operator to: the user
        after it, and the request when it waits."""
        reason = verify_reason(reason)
        coins = verify_grant_amount(coins)
        now = time.time()
        with self.engine.begin() as conn:
            acting = powers.party_of(conn, actor.user_id, actor.name)
            row = conn.execute(sa.select(s.users).where(s.users.c.id == user_id)).first()
            if row is None:
                raise NotFound("unknown_user", f"There is no user with id {user_id}.")
            powers.verify_may_act(acting, powers.target_of(row), "grant")
            why = None
            if actor.user_id is not None:
                why = "self" if actor.user_id == user_id else None
                why = why or ("amount" if abs(coins) > policy.approve_above else None)
                if coins > 0:
                    _verify_daily_cap(conn, actor.user_id, coins, policy, now)
            if why is None:
                key = f"grant:{uuid.uuid4()}"
                _grant(conn, Grant(user_id, coins, reason, key, actor.name, actor.user_id))
                return accounts.load_user(conn, user_id), None
            rid = conn.execute(
                sa.insert(s.grant_requests).values(
                    created_at=now,
                    user_id=user_id,
                    coins=coins,
                    reason=reason,
                    why=why,
                    requested_by=actor.name,
                    requested_by_id=actor.user_id,
                    status="pending",
                )
            ).inserted_primary_key[0]  # type: ignore[index]
            after = {"request_id": int(rid), "coins": coins, "why": why}
            append(conn, actor, "grant_requested", user_wallet(user_id), reason, None, after)
            return accounts.load_user(conn, user_id), self._one(conn, int(rid))

    def grant_requests(
        self, status: str | None = "pending", limit: int = 100
    ) -> list[GrantRequest]:
        """Requests by status (all with None), newest first."""
        q = _REQUESTS.order_by(s.grant_requests.c.id.desc()).limit(limit)
        if status is not None:
            q = q.where(s.grant_requests.c.status == status)
        with reading(self.engine) as conn:
            return [_request(r) for r in conn.execute(q)]

    def grant_request(self, request_id: int) -> GrantRequest:
        """One request; ``unknown_request`` when there is none."""
        with reading(self.engine) as conn:
            return self._one(conn, request_id)

    def _one(self, conn: sa.Connection, request_id: int) -> GrantRequest:
        row = conn.execute(_REQUESTS.where(s.grant_requests.c.id == request_id)).first()
        if row is None:
            raise NotFound("unknown_request", f"There is no grant request {request_id}.")
        return _request(row)

    def approve_grant(
        self, actor: Actor, request_id: int, reason: str
    ) -> tuple[User, GrantRequest]:
        """Approve a waiting grant as a second operator: its coins move now."""
        reason = verify_reason(reason)
        with self.engine.begin() as conn:
            _verify_requester_not_banned(conn, self._one(conn, request_id))
            req = self._decide(conn, actor, request_id, "approved", reason)
            key = f"grant_request:{req.id}"
            grant = Grant(
                req.user_id, req.coins, req.reason, key, req.requested_by, req.requested_by_id
            )
            _grant(conn, grant)
            conn.execute(
                sa.update(s.grant_requests)
                .where(s.grant_requests.c.id == req.id)
                .values(ledger_tx=key)
            )
            after = {"request_id": req.id, "coins": req.coins, "status": "approved"}
            append(conn, actor, "grant_approved", user_wallet(req.user_id), reason, None, after)
            return accounts.load_user(conn, req.user_id), self._one(conn, req.id)

    def refuse_grant(self, actor: Actor, request_id: int, reason: str) -> GrantRequest:
        """Refuse a waiting grant (or withdraw one's own): no coin moves."""
        reason = verify_reason(reason)
        with self.engine.begin() as conn:
            req = self._decide(conn, actor, request_id, "refused", reason)
            after = {"request_id": req.id, "coins": req.coins, "status": "refused"}
            append(conn, actor, "grant_refused", user_wallet(req.user_id), reason, None, after)
            return self._one(conn, req.id)

    def _decide(
        self, conn: sa.Connection, actor: Actor, request_id: int, status: str, reason: str
    ) -> GrantRequest:
        """Mark a waiting request decided by ``actor``, once; the request as it was."""
        acting = powers.party_of(conn, actor.user_id, actor.name)
        req = self._one(conn, request_id)
        row = conn.execute(sa.select(s.users).where(s.users.c.id == req.user_id)).one()
        withdrawn = status == "refused" and actor.user_id == req.requested_by_id
        if not withdrawn:
            powers.verify_may_approve(acting, powers.target_of(row), req.requested_by_id)
        r = s.grant_requests
        done = conn.execute(
            sa.update(r)
            .where(r.c.id == request_id, r.c.status == "pending")
            .values(
                status=status,
                decided_by=actor.name,
                decided_by_id=actor.user_id,
                decided_at=time.time(),
                decision=reason,
            )
        )
        if not done.rowcount:
            raise RuleViolation(
                "request_decided", f"Grant request {request_id} was {req.status} already."
            )
        return req


def _verify_requester_not_banned(conn: sa.Connection, req: GrantRequest) -> None:
    """A grant asked for by an account banned since is not paid (a ban withdraws its waiting
    requests; this holds for any left from before that rule)."""
    if req.requested_by_id is None or req.status != "pending":
        return
    banned = conn.scalar(sa.select(s.users.c.banned).where(s.users.c.id == req.requested_by_id))
    if banned is not None:
        raise RuleViolation(
            "requester_banned",
            f"{req.requested_by} #{req.requested_by_id}, who asked for grant request {req.id}, "
            "is banned: refuse it instead.",
        )


def _verify_daily_cap(
    conn: sa.Connection, operator_id: int, coins: int, policy: GrantPolicy, now: float
) -> None:
    if conn.dialect.name == "postgresql":
        # One operator's grants one at a time: two at once cannot both fit under the cap.
        conn.execute(sa.select(s.users.c.id).where(s.users.c.id == operator_id).with_for_update())
    given = given_within_a_day(conn, operator_id, now)
    if given + coins > policy.daily_cap:
        raise RuleViolation(
            "daily_cap",
            f"You gave {given:,} coins in the last 24 hours; {policy.daily_cap:,} is the most "
            "one operator gives in a day.",
        )

"""The store's operators: roles, bans and mutes, console sessions, TOTP secrets and the
operator log.

Every change an operator makes is written with its log entry in one transaction, so the log
and the accounts never disagree. Grants log themselves inside the ledger's batch
(:class:`baccarat.store.ops.Grant`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from baccarat import names
from baccarat.errors import InvalidInput, NotFound
from baccarat.store import accounts, powers
from baccarat.store import schema as s
from baccarat.store.engine import reading
from baccarat.store.records import User, user_wallet

ROLES = ("player", "operator", "admin")
"""A player plays; an operator uses the console; an admin also sets roles."""
CONSOLE_ROLES = ("operator", "admin")
ADMIN_SESSION_TTL = 30 * 60.0
"""A console session lasts half an hour: short, and apart from the game's."""
MAX_REASON = 500
MAX_MUTE = 30 * 24 * 3600.0
LOG_PAGE = 200


@dataclass(frozen=True, slots=True)
class Actor:
    """Who acts: an operator's account (with its id), or ``cli`` (``baccarat admin``) or
    ``system`` (the server), which no account may be named (``names.RESERVED``)."""

    name: str
    user_id: int | None = None


CLI = Actor("cli")


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the operator log."""

    id: int
    at: float
    actor: str
    actor_id: int | None
    action: str
    target: str
    reason: str
    before: Any
    after: Any
    ledger_tx: str | None

    def json(self) -> dict[str, Any]:
        """The entry as JSON-ready data."""
        return {
            "id": self.id,
            "at": self.at,
            "actor": self.actor,
            "actor_id": self.actor_id,
            "action": self.action,
            "target": self.target,
            "reason": self.reason,
            "before": self.before,
            "after": self.after,
            "ledger_tx": self.ledger_tx,
        }


def verify_reason(reason: object) -> str:
    """A reason every operator action needs: non-empty text, at most ``MAX_REASON`` long."""
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("bad_reason", "Every operator action needs a reason.")
    if len(reason) > MAX_REASON:
        raise InvalidInput("bad_reason", f"A reason is at most {MAX_REASON} characters.")
    if not reason.isprintable():
        # A control character, a line break or a lone surrogate: nothing a log should keep.
        raise InvalidInput("bad_reason", "A reason is one line of printable text.")
    return reason.strip()


def verify_role(role: object) -> str:
    """One of ``ROLES``."""
    if role not in ROLES:
        raise InvalidInput("bad_role", f"A role is one of {', '.join(ROLES)}, not {role!r}.")
    return str(role)


def append(
    conn: sa.Connection,
    actor: Actor,
    action: str,
    target: str,
    reason: str,
    before: Any = None,
    after: Any = None,
) -> None:
    """Append one entry to the operator log inside the caller's transaction."""
    conn.execute(
        sa.insert(s.operator_log).values(
            at=time.time(),
            actor_id=actor.user_id,
            actor=actor.name,
            action=action,
            target=target,
            reason=reason,
            before=before,
            after=after,
        )
    )


def shown_actor(name: str, actor_id: int | None) -> str:
    """An actor as the log shows it: an account with its id (``mei #12``), or a name no
    account holds bare (``cli``, ``system``, a login that named no account)."""
    return name if actor_id is None else f"{name} #{actor_id}"


def _end_banned(conn: sa.Connection, actor: Actor, user_id: int, username: str) -> None:
    """What a ban ends with it: every session of the account, and every grant it asked for
    that still waits (withdrawn, each in the log), so none is paid on a later approval."""
    conn.execute(sa.delete(s.sessions).where(s.sessions.c.user_id == user_id))
    conn.execute(sa.delete(s.admin_sessions).where(s.admin_sessions.c.user_id == user_id))
    r = s.grant_requests
    waiting = conn.execute(
        sa.select(r.c.id, r.c.user_id, r.c.coins).where(
            r.c.requested_by_id == user_id, r.c.status == "pending"
        )
    ).all()
    why = f"withdrawn: {username} #{user_id}, who asked for it, was banned"
    for rid, target, coins in waiting:
        conn.execute(
            sa.update(r)
            .where(r.c.id == rid)
            .values(
                status="refused",
                decided_by=actor.name,
                decided_by_id=actor.user_id,
                decided_at=time.time(),
                decision=why,
            )
        )
        after = {"request_id": int(rid), "coins": int(coins), "status": "refused"}
        append(conn, actor, "grant_refused", user_wallet(int(target)), why, None, after)


def _entry(row: Any) -> LogEntry:
    return LogEntry(
        id=int(row.id),
        at=row.at,
        actor=row.actor,
        actor_id=row.actor_id,
        action=row.action,
        target=row.target,
        reason=row.reason,
        before=row.before,
        after=row.after,
        ledger_tx=row.ledger_tx,
    )


class Operators:
    """Roles, moderation, console sessions and the operator log: a part of the store."""

    engine: sa.Engine

    def _change_user(
        self, user_id: int, actor: Actor, action: str, reason: str, values: dict[str, Any]
    ) -> User:
        """Set ``values`` on a user and log the change, in one transaction."""
        reason = verify_reason(reason)
        with self.engine.begin() as conn:
            acting = powers.party_of(conn, actor.user_id, actor.name)
            row = conn.execute(sa.select(s.users).where(s.users.c.id == user_id)).first()
            if row is None:
                raise NotFound("unknown_user", f"There is no user with id {user_id}.")
            target = powers.target_of(row)
            powers.verify_may_act(acting, target, action)
            demoted = values.get("role", "admin") != "admin"
            if target.role == "admin" and (demoted or action == "ban"):
                powers.verify_keeps_an_admin(
                    target, powers.admins_left(conn), demoted=demoted, banned=action == "ban"
                )
            before = {k: getattr(row, k) for k in values}
            conn.execute(sa.update(s.users).where(s.users.c.id == user_id).values(**values))
            append(conn, actor, action, user_wallet(user_id), reason, before, values)
            if action == "ban":
                _end_banned(conn, actor, user_id, row.username)
            return accounts.load_user(conn, user_id)

    def user_id_of(self, name: str) -> int:
        """The id of the user named ``name``; NotFound otherwise."""
        with reading(self.engine) as conn:
            return int(accounts.find_user(conn, name).id)

    def set_role(self, user_id: int, role: str, reason: str, actor: Actor = CLI) -> User:
        """Give a user a role (``player``, ``operator``, ``admin``)."""
        return self._change_user(user_id, actor, "set_role", reason, {"role": verify_role(role)})

    def set_level_logged(self, user_id: int, level: int, reason: str, actor: Actor = CLI) -> User:
        """Set a user's level, with its log entry."""
        level = accounts.verify_level(level)
        return self._change_user(user_id, actor, "set_level", reason, {"level": level})

    def ban(self, user_id: int, reason: str, actor: Actor = CLI) -> User:
        """Ban a user: every session ends, and logging in is refused with ``reason``."""
        why = verify_reason(reason)
        return self._change_user(user_id, actor, "ban", why, {"banned": why})

    def unban(self, user_id: int, reason: str, actor: Actor = CLI) -> User:
        """Lift a ban."""
        return self._change_user(user_id, actor, "unban", reason, {"banned": None})

    def unlock_console(self, user_id: int, reason: str, actor: Actor = CLI) -> User:
        """Lift the console's lockout after wrong authenticator codes."""
        values = {"code_failures": 0, "console_locked": None}
        return self._change_user(user_id, actor, "unlock", reason, values)

    def mute(self, user_id: int, seconds: float, reason: str, actor: Actor = CLI) -> User:
        """Keep a user out of the chat for ``seconds`` (0 lifts a mute)."""
        if (
            not isinstance(seconds, int | float)
            or isinstance(seconds, bool)
            or not 0 <= seconds <= MAX_MUTE
        ):
            raise InvalidInput("bad_duration", f"A mute lasts from 0 to {int(MAX_MUTE)} seconds.")
        until = time.time() + seconds if seconds else None
        action = "mute" if seconds else "unmute"
        return self._change_user(user_id, actor, action, reason, {"muted_until": until})

    def log_action(
        self,
        actor: Actor,
        action: str,
        target: str,
        reason: str,
        before: Any = None,
        after: Any = None,
    ) -> None:
        """Log an action that changes nothing in the database (a notice, a stand-up, an
        audit run)."""
        reason = verify_reason(reason)
        with self.engine.begin() as conn:
            append(conn, actor, action, target, reason, before, after)

    def operator_log(
        self,
        *,
        action: str | None = None,
        target: str | None = None,
        actor: str | None = None,
        before_id: int | None = None,
        limit: int = LOG_PAGE,
    ) -> list[LogEntry]:
        """The log, newest first, filtered by action, target and actor."""
        q = sa.select(s.operator_log).order_by(s.operator_log.c.id.desc()).limit(limit)
        if action:
            q = q.where(s.operator_log.c.action == action)
        if target:
            q = q.where(s.operator_log.c.target == target)
        if actor:
            q = q.where(s.operator_log.c.actor == actor)
        if before_id is not None:
            q = q.where(s.operator_log.c.id < before_id)
        with reading(self.engine) as conn:
            return [_entry(r) for r in conn.execute(q)]

    def search_users(self, query: str, limit: int = 50) -> list[User]:
        """Users whose name or display name contains ``query`` (canonical forms), by name."""
        key = names.username_key(query.strip())
        escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        pattern = f"%{escaped}%"
        q = (
            sa.select(s.users)
            .where(
                sa.or_(
                    s.users.c.username_key.like(pattern, escape="\\"),
                    s.users.c.display_key.like(pattern, escape="\\"),
                )
            )
            .order_by(s.users.c.username_key)
            .limit(limit)
        )
        with reading(self.engine) as conn:
            return [accounts.user_from_row(r) for r in conn.execute(q)]

    # The console's own sessions --------------------------------------------------------

    def create_admin_session(self, user_id: int, ttl: float = ADMIN_SESSION_TTL) -> str:
        """A console token for an operator or admin."""
        with self.engine.begin() as conn:
            return accounts.new_session(conn, user_id, ttl, s.admin_sessions)

    def operator_for_session(self, token: str) -> User | None:
        """The operator or admin a live console token belongs to, or None."""
        if not isinstance(token, str) or not token or len(token) > 256:
            return None
        with reading(self.engine) as conn:
            row = accounts.session_user(conn, token, s.admin_sessions)
        if row is None or row.role not in CONSOLE_ROLES or row.banned:
            return None
        return accounts.user_from_row(row)

    def delete_admin_session(self, token: str) -> None:
        """Log a console token out; expired console sessions go too."""
        with self.engine.begin() as conn:
            accounts.end_session(conn, token, s.admin_sessions)

    # TOTP ------------------------------------------------------------------------------

    def totp(self, user_id: int) -> tuple[str | None, bool]:
        """The user's TOTP secret (None before the first console login) and whether a code
        from it was ever accepted (enrolled)."""
        with reading(self.engine) as conn:
            row = conn.execute(
                sa.select(s.users.c.totp_secret, s.users.c.totp_enrolled).where(
                    s.users.c.id == user_id
                )
            ).first()
        if row is None:
            raise NotFound("unknown_user", f"There is no user with id {user_id}.")
        return row.totp_secret, bool(row.totp_enrolled)

    def set_totp(self, user_id: int, secret: str | None, *, enrolled: bool) -> None:
        """Keep a new secret (not yet enrolled), or clear it (None)."""
        with self.engine.begin() as conn:
            conn.execute(
                sa.update(s.users)
                .where(s.users.c.id == user_id)
                .values(totp_secret=secret, totp_enrolled=enrolled, totp_last=None)
            )

    def use_totp_step(self, user_id: int, step: int) -> bool:
        """Accept a code of time step ``step`` once: True, and the user's authenticator is
        enrolled, only when no code of this step or a later one was accepted before (a code
        seen on the wire cannot be played again, RFC 6238 section 5.2)."""
        users = s.users
        with self.engine.begin() as conn:
            done = conn.execute(
                sa.update(users)
                .where(
                    users.c.id == user_id,
                    sa.or_(users.c.totp_last.is_(None), users.c.totp_last < step),
                )
                .values(totp_last=step, totp_enrolled=True, code_failures=0)
            )
            return bool(done.rowcount)

    def console_locked(self, user_id: int) -> bool:
        """Whether wrong codes locked the account out of the console (until an admin)."""
        with reading(self.engine) as conn:
            at = conn.scalar(sa.select(s.users.c.console_locked).where(s.users.c.id == user_id))
        return at is not None

    def console_locked_named(self, name: str) -> bool:
        """Whether the account named ``name`` (if any) is locked out of the console."""
        with reading(self.engine) as conn:
            at = conn.scalar(
                sa.select(s.users.c.console_locked).where(
                    s.users.c.username_key == names.username_key(name)
                )
            )
        return at is not None

    def code_failed(self, user_id: int, limit: int) -> bool:
        """Count one more wrong code after the right password; True when it is the
        ``limit``-th in a row and locks the account out of the console."""
        users = s.users
        with self.engine.begin() as conn:
            conn.execute(
                sa.update(users)
                .where(users.c.id == user_id)
                .values(code_failures=users.c.code_failures + 1)
            )
            failures = conn.scalar(sa.select(users.c.code_failures).where(users.c.id == user_id))
            if int(failures or 0) < limit:
                return False
            conn.execute(
                sa.update(users)
                .where(users.c.id == user_id, users.c.console_locked.is_(None))
                .values(console_locked=time.time())
            )
            return True

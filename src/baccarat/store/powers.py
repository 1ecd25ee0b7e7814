"""Who may act on whom: the roles' ranks, one's own account, and the last admin.

An operator acts on players only; an admin on anyone. Nobody sets their own level, lifts
their own ban, mutes, bans or stands themselves up; a grant to oneself waits for a second
operator (``baccarat.store.approvals``). The last admin who is not banned can be neither
demoted nor banned, so the console always has someone who can set roles. ``baccarat admin``
(the actor ``cli``, no account) acts as an admin: whoever runs it can write the database.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from baccarat.errors import RuleViolation
from baccarat.store import schema as s

RANK = {"player": 0, "operator": 1, "admin": 2}
"""A role's rank: an operator acts on ranks below theirs, an admin on every rank."""
ON_ONESELF = frozenset({"grant", "set_role"})
"""What one may do to one's own account (a grant to oneself waits for approval; an admin
may step down while another admin remains)."""


@dataclass(frozen=True, slots=True)
class Party:
    """One side of an action: an account's id, name and role, or ``cli`` (id None)."""

    user_id: int | None
    name: str
    role: str
    banned: bool = False


def verify_may_act(actor: Party, target: Party, action: str) -> None:
    """Raise the rule ``actor`` would break by doing ``action`` to ``target``: an account of
    their own rank or above (``outranked``), or their own account (``own_account``)."""
    if actor.user_id is not None and actor.user_id == target.user_id:
        if action not in ON_ONESELF:
            raise RuleViolation(
                "own_account", "Nobody acts on their own account; ask another operator."
            )
        return
    if actor.role == "admin":
        return
    if RANK.get(target.role, 0) >= RANK.get(actor.role, 0):
        raise RuleViolation(
            "outranked",
            f"An operator acts on players only; {target.name} is {_a(target.role)}.",
        )


def can_act(actor: Party, target: Party, action: str) -> bool:
    """Whether ``actor`` may do ``action`` to ``target`` (the console greys out the rest)."""
    try:
        verify_may_act(actor, target, action)
    except RuleViolation:
        return False
    return True


def verify_may_approve(approver: Party, target: Party, requested_by: int | None) -> None:
    """Raise the rule ``approver`` would break by approving (or refusing) a grant to
    ``target`` that ``requested_by`` asked for: a second operator decides, never the one
    who asked (``own_request``) nor the one paid (``own_account``), and an operator decides
    on grants to players and operators, not to admins (``outranked``)."""
    if approver.user_id is not None and approver.user_id == requested_by:
        raise RuleViolation(
            "own_request", "A second operator decides on a grant, not the one who asked for it."
        )
    if approver.user_id is not None and approver.user_id == target.user_id:
        raise RuleViolation("own_account", "Nobody decides on a grant to themselves.")
    if RANK.get(target.role, 0) > RANK.get(approver.role, 0):
        raise RuleViolation(
            "outranked",
            f"An operator decides on grants to players and operators; {target.name} "
            f"is {_a(target.role)}.",
        )


def verify_keeps_an_admin(target: Party, admins: int, *, demoted: bool, banned: bool) -> None:
    """Refuse to demote or ban the last admin who is not banned (``last_admin``); ``admins``
    counts the admins who are not banned, the target among them."""
    if target.role != "admin" or target.banned or not (demoted or banned):
        return
    if admins <= 1:
        raise RuleViolation(
            "last_admin", f"{target.name} is the last admin; make another admin first."
        )


def _a(role: str) -> str:
    return f"an {role}" if role[0] in "aeiou" else f"a {role}"


def party_of(conn: sa.Connection, user_id: int | None, name: str) -> Party:
    """The acting account as it is in the database now (``cli`` when ``user_id`` is None)."""
    if user_id is None:
        return Party(None, name, "admin")
    row = conn.execute(
        sa.select(s.users.c.username, s.users.c.role, s.users.c.banned).where(
            s.users.c.id == user_id
        )
    ).first()
    if row is None:
        raise RuleViolation("not_operator", "The acting account is gone.")
    if row.banned or row.role not in ("operator", "admin"):
        # A session read a moment ago may have outlived the role or the ban.
        raise RuleViolation("not_operator", "The acting account is no longer an operator.")
    return Party(user_id, row.username, row.role)


def target_of(row: Any) -> Party:
    """A ``users`` row as the party acted on."""
    return Party(int(row.id), str(row.username), str(row.role), bool(row.banned))


def admins_left(conn: sa.Connection) -> int:
    """Admins who are not banned, their rows locked until the transaction ends (so that two
    admins demoting each other at once cannot both succeed on PostgreSQL)."""
    q = sa.select(s.users.c.id).where(s.users.c.role == "admin", s.users.c.banned.is_(None))
    if conn.dialect.name == "postgresql":
        q = q.with_for_update()
    return len(conn.execute(q).all())

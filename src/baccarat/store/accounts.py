"""Accounts and sessions: names, password hashes, levels, login tokens."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from baccarat.errors import Conflict, InvalidInput, NotFound
from baccarat.names import display_key, username_key
from baccarat.numbers import whole
from baccarat.store import schema as s
from baccarat.store.records import User

SESSION_TTL = 30 * 24 * 3600.0
"""A login lasts 30 days."""

ARGON2_TIME_COST = 2
ARGON2_MEMORY_KIB = 19 * 1024
ARGON2_PARALLELISM = 1
"""Argon2id at OWASP's recommended minimum (Password Storage Cheat Sheet): 19 MiB, 2 passes,
1 lane. Each hash in progress holds its memory, so these and the server's few hashing
threads bound what a login flood can take; hashes made with other parameters still verify
and are rehashed at the next good login."""


MAX_LEVEL = 1_000_000
"""Far above any room's level; it keeps a level inside the database's integer."""


def password_hasher() -> PasswordHasher:
    """The argon2id hasher new passwords are hashed with."""
    return PasswordHasher(
        time_cost=ARGON2_TIME_COST,
        memory_cost=ARGON2_MEMORY_KIB,
        parallelism=ARGON2_PARALLELISM,
    )


def verify_password(password: object) -> str:
    """Check a password: non-empty text of at most 1024 characters."""
    if not isinstance(password, str) or not 1 <= len(password) <= 1024:
        raise InvalidInput("bad_password", "A password is 1 to 1024 characters of text.")
    return password


def verify_level(level: object) -> int:
    """Check a level: a whole number from 0 to ``MAX_LEVEL``."""
    if not whole(level) or not 0 <= level <= MAX_LEVEL:
        raise InvalidInput(
            "bad_level", f"A level is a whole number from 0 to {MAX_LEVEL}, not {level!r}."
        )
    return level


def user_from_row(row: Any) -> User:
    """A :class:`User` from a ``users`` row."""
    return User(
        user_id=row.id,
        username=row.username,
        display_name=row.display_name,
        level=row.level,
        coins=int(row.coins),
        created_at=row.created_at,
        role=row.role,
        banned=row.banned,
        muted_until=row.muted_until,
    )


def load_user(conn: sa.Connection, user_id: int) -> User:
    """The user with ``user_id``, or NotFound."""
    row = conn.execute(sa.select(s.users).where(s.users.c.id == user_id)).first()
    if row is None:
        raise NotFound("unknown_user", f"There is no user with id {user_id}.")
    return user_from_row(row)


def find_user(conn: sa.Connection, name: str) -> Any:
    """The ``users`` row named ``name`` (in any form with the same canonical key), or NotFound."""
    row = conn.execute(
        sa.select(s.users).where(s.users.c.username_key == username_key(name))
    ).first()
    if row is None:
        raise NotFound("unknown_user", f"There is no user named {name!a}.")
    return row


def check_names_free(conn: sa.Connection, username: str, display_name: str) -> None:
    """Conflict when the username or the display name is taken (each in its canonical form)."""
    taken = conn.execute(
        sa.select(s.users.c.id).where(s.users.c.username_key == username_key(username))
    ).first()
    if taken is not None:
        raise Conflict("name_taken", f"The name {username!a} is already taken.")
    taken = conn.execute(
        sa.select(s.users.c.id).where(s.users.c.display_key == display_key(display_name))
    ).first()
    if taken is not None:
        raise Conflict(
            "display_name_taken",
            f"The display name {display_name!r} is already someone's; choose another.",
        )


def insert_user(
    conn: sa.Connection, username: str, password_hash: str, display_name: str, level: int
) -> int:
    """Insert a user with no coins; Conflict when the name or the display name is taken."""
    check_names_free(conn, username, display_name)
    uid = conn.execute(
        sa.insert(s.users)
        .values(
            username=username,
            username_key=username_key(username),
            password_hash=password_hash,
            display_name=display_name,
            display_key=display_key(display_name),
            level=level,
            coins=0,
            created_at=time.time(),
        )
        .returning(s.users.c.id)
    ).scalar_one()
    return int(uid)


def check_password(hasher: PasswordHasher, stored: str | None, password: str) -> bool:
    """Whether ``password`` matches ``stored``; spends the same time when there is no user."""
    try:
        return bool(hasher.verify(stored or _dummy_hash(hasher), password)) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


_DUMMY: dict[int, str] = {}


def _dummy_hash(hasher: PasswordHasher) -> str:
    # Verifying against a throwaway hash keeps "no such user" as slow as "wrong password".
    key = id(hasher)
    if key not in _DUMMY:
        _DUMMY[key] = hasher.hash(secrets.token_hex(8))
    return _DUMMY[key]


def token_hash(token: str) -> str:
    """Sessions are stored by the SHA-256 of their token, so a leaked table logs nobody in."""
    return hashlib.sha256(token.encode()).hexdigest()


TICKET_TTL = 60.0
"""Seconds a ticket to another node stays good."""


def ticket_hash(ticket: str) -> str:
    """Tickets live in ``sessions`` under a hash no session token can have."""
    return hashlib.sha256(b"ticket:" + ticket.encode()).hexdigest()


def _new_secret(
    conn: sa.Connection,
    user_id: int,
    ttl: float,
    hashed: Callable[[str], str],
    table: sa.Table = s.sessions,
) -> str:
    """A new secret for ``user_id``, kept in ``table`` under ``hashed(secret)`` for ``ttl``."""
    load_user(conn, user_id)
    secret = secrets.token_urlsafe(32)
    now = time.time()
    conn.execute(
        sa.insert(table).values(
            token_hash=hashed(secret), user_id=user_id, created_at=now, expires_at=now + ttl
        )
    )
    return secret


def new_ticket(conn: sa.Connection, user_id: int, ttl: float) -> str:
    """Create a single-use ticket for ``user_id``; return it."""
    return _new_secret(conn, user_id, ttl, ticket_hash)


def take_ticket(conn: sa.Connection, ticket: str) -> int | None:
    """Use a ticket up: the user it was for if it was live (deleted either way)."""
    row = conn.execute(
        sa.delete(s.sessions)
        .where(s.sessions.c.token_hash == ticket_hash(ticket))
        .returning(s.sessions.c.user_id, s.sessions.c.expires_at)
    ).first()
    if row is None or row.expires_at <= time.time():
        return None
    return int(row.user_id)


def new_session(conn: sa.Connection, user_id: int, ttl: float, table: sa.Table = s.sessions) -> str:
    """Create a session for ``user_id`` in ``table`` (the game's ``sessions``, or the
    console's ``admin_sessions``); return its secret token."""
    return _new_secret(conn, user_id, ttl, token_hash, table)


def session_user(conn: sa.Connection, token: str, table: sa.Table = s.sessions) -> Any:
    """The row of the user a live token of ``table`` belongs to, or None."""
    return conn.execute(
        sa.select(s.users)
        .join(table, table.c.user_id == s.users.c.id)
        .where(table.c.token_hash == token_hash(token), table.c.expires_at > time.time())
    ).first()


def end_session(conn: sa.Connection, token: str, table: sa.Table = s.sessions) -> None:
    """Log a token of ``table`` out (an unknown one is ignored); expired ones go too."""
    conn.execute(
        sa.delete(table).where(
            sa.or_(table.c.token_hash == token_hash(token), table.c.expires_at <= time.time())
        )
    )

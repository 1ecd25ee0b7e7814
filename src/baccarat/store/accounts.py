"""Accounts and sessions: names, password hashes, levels, login tokens."""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from typing import Any

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from baccarat.errors import Conflict, InvalidInput, NotFound
from baccarat.store import schema as s
from baccarat.store.records import User

SESSION_TTL = 30 * 24 * 3600.0
"""A login lasts 30 days."""

_NAME = re.compile(r"[A-Za-z0-9_.-]{1,32}")


def verify_username(name: object) -> str:
    """Check a username: 1-32 letters, digits, ``_ . -``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidInput(
            "bad_username",
            f"{name!r} is not a username: use 1 to 32 letters, digits, '_', '.' or '-'.",
        )
    return name


def verify_display_name(name: object) -> str:
    """Check a display name: 1-64 characters once trimmed; return it trimmed."""
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 64:
        raise InvalidInput("bad_display_name", "A display name is 1 to 64 characters.")
    return name.strip()


def verify_password(password: object) -> str:
    """Check a password: non-empty text of at most 1024 characters."""
    if not isinstance(password, str) or not 1 <= len(password) <= 1024:
        raise InvalidInput("bad_password", "A password is 1 to 1024 characters of text.")
    return password


def verify_level(level: object) -> int:
    """Check a level: a whole number from 0 up."""
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise InvalidInput("bad_level", f"A level is a whole number from 0 up, not {level!r}.")
    return level


def name_key(name: str) -> str:
    """The case-insensitive form names are unique in."""
    return name.casefold()


def user_from_row(row: Any) -> User:
    """A :class:`User` from a ``users`` row."""
    return User(
        user_id=row.id,
        username=row.username,
        display_name=row.display_name,
        level=row.level,
        coins=int(row.coins),
        created_at=row.created_at,
    )


def load_user(conn: sa.Connection, user_id: int) -> User:
    """The user with ``user_id``, or NotFound."""
    row = conn.execute(sa.select(s.users).where(s.users.c.id == user_id)).first()
    if row is None:
        raise NotFound("unknown_user", f"There is no user with id {user_id}.")
    return user_from_row(row)


def find_user(conn: sa.Connection, name: str) -> Any:
    """The ``users`` row named ``name`` (any case), or NotFound."""
    row = conn.execute(sa.select(s.users).where(s.users.c.username_key == name_key(name))).first()
    if row is None:
        raise NotFound("unknown_user", f"There is no user named {name!r}.")
    return row


def insert_user(
    conn: sa.Connection, username: str, password_hash: str, display_name: str, level: int
) -> int:
    """Insert a user with no coins; Conflict when the name is taken."""
    taken = conn.execute(
        sa.select(s.users.c.id).where(s.users.c.username_key == name_key(username))
    ).first()
    if taken is not None:
        raise Conflict("name_taken", f"The name {username!r} is already taken.")
    uid = conn.execute(
        sa.insert(s.users)
        .values(
            username=username,
            username_key=name_key(username),
            password_hash=password_hash,
            display_name=display_name,
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


def new_session(conn: sa.Connection, user_id: int, ttl: float) -> str:
    """Create a session for ``user_id``; return its secret token."""
    load_user(conn, user_id)
    token = secrets.token_urlsafe(32)
    now = time.time()
    conn.execute(
        sa.insert(s.sessions).values(
            token_hash=token_hash(token), user_id=user_id, created_at=now, expires_at=now + ttl
        )
    )
    return token

"""The store's users: accounts, logging in, levels, preferences and sessions."""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from argon2 import PasswordHasher

from baccarat import names
from baccarat.errors import Conflict, InvalidInput
from baccarat.numbers import whole
from baccarat.store import accounts
from baccarat.store import schema as s
from baccarat.store.batch import apply_ops
from baccarat.store.engine import reading
from baccarat.store.ops import Grant
from baccarat.store.records import Applied, User


class Users:
    """Accounts, their preferences and their sessions: a part of the store."""

    engine: sa.Engine
    _hasher: PasswordHasher

    def create_user(
        self,
        username: str,
        password: str,
        *,
        display_name: str | None = None,
        level: int = 50,
        coins: int = 0,
    ) -> User:
        """Create an account; its opening ``coins`` come from the mint."""
        names.verify_username(username)
        accounts.verify_password(password)
        accounts.verify_level(level)
        if not whole(coins) or coins < 0:
            raise InvalidInput(
                "bad_amount", f"Opening coins must be a whole number >= 0, not {coins!r}."
            )
        display = names.verify_display_name(username if display_name is None else display_name)
        # A taken name is refused before the (deliberately slow) password hash is spent.
        with reading(self.engine) as conn:
            accounts.check_names_free(conn, username, display)
        pw_hash = self._hasher.hash(password)
        try:
            with self.engine.begin() as conn:
                uid = accounts.insert_user(conn, username, pw_hash, display, level)
                if coins:
                    key = f"grant:{uuid.uuid4()}"
                    out = apply_ops(conn, [Grant(uid, coins, "opening balance", key)])[0]
                    if not isinstance(out, Applied):
                        raise out
                return accounts.load_user(conn, uid)
        except sa.exc.IntegrityError:
            # Another writer took a name between the check and the insert: say which.
            with reading(self.engine) as conn:
                accounts.check_names_free(conn, username, display)
            raise Conflict("name_taken", f"The name {username!a} is already taken.") from None

    def authenticate(self, username: str, password: str) -> User | None:
        """The user if the password matches, else None."""
        with reading(self.engine) as conn:
            row = conn.execute(
                sa.select(s.users).where(s.users.c.username_key == names.username_key(username))
            ).first()
        ok = accounts.check_password(self._hasher, row.password_hash if row else None, password)
        if row is None or not ok:
            return None
        if self._hasher.check_needs_rehash(row.password_hash):
            with self.engine.begin() as conn:
                conn.execute(
                    sa.update(s.users)
                    .where(s.users.c.id == row.id)
                    .values(password_hash=self._hasher.hash(password))
                )
        return accounts.user_from_row(row)

    def get_user(self, user_id: int) -> User:
        """The user with ``user_id``; NotFound (``unknown_user``) otherwise."""
        with reading(self.engine) as conn:
            return accounts.load_user(conn, user_id)

    def get_user_by_name(self, name: str) -> User:
        """The user named ``name`` (any case); NotFound (``unknown_user``) otherwise."""
        with reading(self.engine) as conn:
            return accounts.user_from_row(accounts.find_user(conn, name))

    def list_users(self) -> list[User]:
        """Every user, by id."""
        with reading(self.engine) as conn:
            rows = conn.execute(sa.select(s.users).order_by(s.users.c.id))
            return [accounts.user_from_row(r) for r in rows]

    def set_level(self, name: str, level: int) -> User:
        """Set a user's level."""
        accounts.verify_level(level)
        with self.engine.begin() as conn:
            uid = accounts.find_user(conn, name).id
            conn.execute(sa.update(s.users).where(s.users.c.id == uid).values(level=level))
            return accounts.load_user(conn, uid)

    # Preferences ----------------------------------------------------------------------

    def auto_open(self, user_id: int) -> bool:
        """Whether the user opens the cards they control at once (自動開牌) instead of squeezing."""
        with reading(self.engine) as conn:
            value = conn.scalar(
                sa.select(s.user_prefs.c.auto_open).where(s.user_prefs.c.user_id == user_id)
            )
        return bool(value)

    def set_auto_open(self, user_id: int, on: bool) -> None:
        """Remember the user's 自動開牌 preference."""
        if not isinstance(on, bool):
            raise InvalidInput("bad_pref", f"auto_open is true or false, not {on!r}.")
        with self.engine.begin() as conn:
            accounts.load_user(conn, user_id)
            done = conn.execute(
                sa.update(s.user_prefs)
                .where(s.user_prefs.c.user_id == user_id)
                .values(auto_open=on)
            )
            if not done.rowcount:
                conn.execute(sa.insert(s.user_prefs).values(user_id=user_id, auto_open=on))

    # Sessions -------------------------------------------------------------------------

    def create_session(self, user_id: int, ttl: float = accounts.SESSION_TTL) -> str:
        """A new login token for ``user_id``, valid for ``ttl`` seconds."""
        with self.engine.begin() as conn:
            return accounts.new_session(conn, user_id, ttl)

    def create_ticket(self, user_id: int, ttl: float = accounts.TICKET_TTL) -> str:
        """A single-use ticket that another node exchanges for a session of ``user_id``.

        Kept in ``sessions`` under another hash, so a ticket never works as a session."""
        with self.engine.begin() as conn:
            return accounts.new_ticket(conn, user_id, ttl)

    def redeem_ticket(self, ticket: str) -> int | None:
        """The user a live ticket was made for, once (it is gone after); else None."""
        if not isinstance(ticket, str) or not ticket or len(ticket) > 256 or not ticket.isascii():
            return None
        with self.engine.begin() as conn:
            return accounts.take_ticket(conn, ticket)

    def user_for_session(self, token: str) -> User | None:
        """The user a live token belongs to, or None (unknown or expired)."""
        if not isinstance(token, str) or not token:
            return None
        with reading(self.engine) as conn:
            row = accounts.session_user(conn, token)
        return accounts.user_from_row(row) if row is not None else None

    def delete_session(self, token: str) -> None:
        """Log a token out (unknown tokens are ignored); expired sessions are purged too."""
        with self.engine.begin() as conn:
            accounts.end_session(conn, token)

"""The operator's platform in the store: its users linked to accounts, the launch tokens
used once, and the transfers between its wallet and the game's (``docs/integration.md``).

A transfer is one ledger transaction ``transfer:<transfer_id>`` between the user's wallet
and the ``platform`` system wallet (minus every coin the platform moved in and not out),
written in the same database transaction as its ``platform_transfers`` row; the row's
primary key is the platform's id, so one id never moves coins twice.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from baccarat import names
from baccarat.errors import BaccaratError, Conflict, InvalidInput, NotFound, RuleViolation
from baccarat.numbers import whole
from baccarat.store import accounts, crossing
from baccarat.store import schema as s
from baccarat.store.engine import reading
from baccarat.store.records import PLATFORM, User, user_wallet

MAX_TRANSFER = 10**12
"""The most coins one transfer moves: inside a 64-bit integer, far above any balance."""

_PLATFORM_ID = re.compile(r"[\x21-\x7e]{1,128}")
"""A platform's user id or token id: printable ASCII without spaces."""
_TRANSFER_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_SHORT_ID = re.compile(r"[A-Za-z0-9_-]{1,28}")
_UNUSABLE_PASSWORD = "!platform"
"""No argon2 hash: such an account is entered by a launch only, never by a password."""


@dataclass(frozen=True, slots=True)
class Launched:
    """What a launch token says of its user."""

    platform_user: str
    display_name: str
    level: int
    jti: str
    expires_at: float


@dataclass(frozen=True, slots=True)
class Transfer:
    """One transfer as the game recorded it."""

    transfer_id: str
    platform_user: str
    user_id: int
    amount: int
    balance: int
    """The user's game balance right after it."""
    created_at: float
    replayed: bool = False
    """This answer is the first one's again: the id had already moved its coins."""

    def json(self) -> dict[str, Any]:
        """The transfer as the API answers it (the same both times)."""
        return {
            "transfer_id": self.transfer_id,
            "user": self.platform_user,
            "amount": self.amount,
            "balance": self.balance,
            "created_at": self.created_at,
        }


def verify_platform_id(value: object, what: str = "user") -> str:
    """Check a platform's id: 1 to 128 printable ASCII characters."""
    if not isinstance(value, str) or not _PLATFORM_ID.fullmatch(value):
        raise InvalidInput(f"bad_{what}", f"'{what}' is 1 to 128 printable ASCII characters.")
    return value


def verify_transfer(transfer_id: object, amount: object) -> tuple[str, int]:
    """Check a transfer's id and its signed amount (never 0)."""
    if not isinstance(transfer_id, str) or not _TRANSFER_ID.fullmatch(transfer_id):
        raise InvalidInput(
            "bad_transfer_id", "'transfer_id' is 1 to 64 of A-Z a-z 0-9 _ . : - characters."
        )
    if not whole(amount) or amount == 0 or abs(amount) > MAX_TRANSFER:
        raise InvalidInput(
            "bad_amount", f"'amount' is a whole number of coins, not 0, at most {MAX_TRANSFER:,}."
        )
    return transfer_id, amount


def _username_for(platform_user: str) -> str:
    if _SHORT_ID.fullmatch(platform_user):
        return f"pf.{platform_user}"
    return "pf." + hashlib.sha256(platform_user.encode()).hexdigest()[:24]


def _free_display(conn: sa.Connection, wanted: str, user_id: int | None) -> str:
    """``wanted`` if nobody else has it, else with a short suffix that nobody has."""
    candidate = wanted
    for _ in range(8):
        row = conn.execute(
            sa.select(s.users.c.id).where(s.users.c.display_key == names.display_key(candidate))
        ).first()
        if row is None or row.id == user_id:
            return candidate
        candidate = f"{wanted[: names.DISPLAY_MAX - 5]}#{secrets.token_hex(2)}"
    raise Conflict("display_name_taken", f"No free display name near {wanted!r}.")


def _display(name: str, platform_user: str) -> str:
    try:
        return names.verify_display_name(name)
    except BaccaratError:
        return names.verify_display_name(_username_for(platform_user)[: names.DISPLAY_MAX])


def _use_token(conn: sa.Connection, jti: str, expires_at: float) -> None:
    """Record the token's id; ``token_replayed`` when it was used already."""
    now = time.time()
    conn.execute(sa.delete(s.platform_tokens).where(s.platform_tokens.c.expires_at < now - 60))
    used = conn.execute(
        sa.select(s.platform_tokens.c.jti).where(s.platform_tokens.c.jti == jti)
    ).first()
    if used is not None:
        raise RuleViolation("token_replayed", "This launch token has been used already.")
    conn.execute(sa.insert(s.platform_tokens).values(jti=jti, expires_at=expires_at))


def _link(conn: sa.Connection, who: Launched) -> int:
    """The account linked to the platform's user, made now if there is none; its name and
    level are the token's."""
    now = time.time()
    linked = conn.execute(
        sa.select(s.platform_users.c.user_id).where(
            s.platform_users.c.platform_user == who.platform_user
        )
    ).first()
    display = _display(who.display_name, who.platform_user)
    if linked is not None:
        uid = int(linked.user_id)
        display = _free_display(conn, display, uid)
        conn.execute(
            sa.update(s.users)
            .where(s.users.c.id == uid)
            .values(display_name=display, display_key=names.display_key(display), level=who.level)
        )
        conn.execute(
            sa.update(s.platform_users)
            .where(s.platform_users.c.platform_user == who.platform_user)
            .values(launched_at=now)
        )
        return uid
    username = _username_for(who.platform_user)
    taken = conn.execute(
        sa.select(s.users.c.id).where(s.users.c.username_key == names.username_key(username))
    ).first()
    if taken is not None:  # a local account has that name: take a hashed one
        username = "pf." + hashlib.sha256(who.platform_user.encode()).hexdigest()[:24]
    display = _free_display(conn, display, None)
    uid = accounts.insert_user(conn, username, _UNUSABLE_PASSWORD, display, who.level)
    conn.execute(
        sa.insert(s.platform_users).values(
            platform_user=who.platform_user, user_id=uid, linked_at=now, launched_at=now
        )
    )
    return uid


def _transfer_from_row(row: Any, *, replayed: bool = False) -> Transfer:
    return Transfer(
        transfer_id=row.transfer_id,
        platform_user=row.platform_user,
        user_id=int(row.user_id),
        amount=int(row.amount),
        balance=int(row.balance),
        created_at=float(row.created_at),
        replayed=replayed,
    )


def _find_transfer(conn: sa.Connection, transfer_id: str) -> Any:
    return conn.execute(
        sa.select(s.platform_transfers).where(s.platform_transfers.c.transfer_id == transfer_id)
    ).first()


def _same_request(row: Any, platform_user: str, amount: int) -> Transfer:
    """The first answer for a repeated id; ``transfer_id_reused`` if it asked otherwise."""
    if row.platform_user != platform_user or int(row.amount) != amount:
        raise Conflict(
            "transfer_id_reused",
            f"Transfer {row.transfer_id!r} was made for another user or amount.",
        )
    return _transfer_from_row(row, replayed=True)


def _linked_user(conn: sa.Connection, platform_user: str) -> int:
    row = conn.execute(
        sa.select(s.platform_users.c.user_id).where(
            s.platform_users.c.platform_user == platform_user
        )
    ).first()
    if row is None:
        raise NotFound(
            "unknown_user", f"The platform's user {platform_user!r} has never launched the game."
        )
    return int(row.user_id)


def coins_in_play(table: str) -> RuleViolation:
    """A withdrawal refused: a round still being settled at ``table`` holds the coins."""
    return RuleViolation(
        "coins_in_play",
        f"The user's coins are in a round still being settled at table {table!r}; "
        "try again once it has settled.",
        table_id=table,
    )


def _in_escrow(conn: sa.Connection, user_id: int) -> str | None:
    """A table whose round in escrow holds the user's stakes or deals against them, at any
    node; None if there is none."""
    r = s.rounds
    betting = sa.select(s.bets.c.round_id).where(s.bets.c.user_id == user_id)
    return conn.scalar(
        sa.select(r.c.table_id)
        .where(r.c.status == "escrowed")
        .where(sa.or_(r.c.dealer_id == user_id, r.c.id.in_(betting)))
        .limit(1)
    )


def _move(conn: sa.Connection, transfer_id: str, platform_user: str, amount: int) -> Transfer:
    """Write the transfer, its ledger transaction and both balances; a withdrawal never
    takes coins a round in escrow holds (``coins_in_play``)."""
    uid = _linked_user(conn, platform_user)
    table = _in_escrow(conn, uid) if amount < 0 else None
    if table is not None:
        raise coins_in_play(table)
    moved = conn.execute(
        sa.update(s.users)
        .where(s.users.c.id == uid, s.users.c.coins + amount >= 0)
        .values(coins=s.users.c.coins + amount)
        .returning(s.users.c.coins)
    ).first()
    if moved is None:
        have = accounts.load_user(conn, uid).coins
        raise RuleViolation(
            "insufficient_coins",
            f"The user has {have} coins in the game; {-amount} cannot be withdrawn.",
            coins=have,
        )
    now = time.time()
    kind = "deposit" if amount > 0 else "withdrawal"
    crossing.cross(conn, f"transfer:{transfer_id}", kind, uid, amount, now)
    done = Transfer(transfer_id, platform_user, uid, amount, int(moved.coins), now)
    conn.execute(
        sa.insert(s.platform_transfers).values(
            transfer_id=transfer_id,
            platform_user=platform_user,
            user_id=uid,
            amount=amount,
            balance=done.balance,
            created_at=now,
        )
    )
    return done


class PlatformAccounts:
    """The platform's users, launches and transfers: a part of the store."""

    engine: sa.Engine

    def launch(self, who: Launched) -> User:
        """Use a launch token up (``token_replayed`` the second time) and return the account
        linked to its user, created at the first launch, with the token's name and level."""
        verify_platform_id(who.platform_user)
        verify_platform_id(who.jti, "jti")
        accounts.verify_level(who.level)
        for attempt in range(2):
            try:
                with self.engine.begin() as conn:
                    _use_token(conn, who.jti, who.expires_at)
                    return accounts.load_user(conn, _link(conn, who))
            except sa.exc.IntegrityError:
                # Two launches raced: the token's id (a replay) or the user's first link.
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def platform_user_of(self, user_id: int) -> str | None:
        """The platform's id of an account linked to it, or None."""
        with reading(self.engine) as conn:
            return crossing.platform_user_of(conn, user_id)

    def platform_account(self, platform_user: str) -> User:
        """The account linked to the platform's user; ``unknown_user`` if never launched."""
        with reading(self.engine) as conn:
            return accounts.load_user(conn, _linked_user(conn, platform_user))

    def transfer(self, transfer_id: str, platform_user: str, amount: int) -> Transfer:
        """Move ``amount`` coins from the platform into the user's game wallet (negative: out),
        once per ``transfer_id``: a repeat answers the first transfer, ``replayed``."""
        transfer_id, amount = verify_transfer(transfer_id, amount)
        verify_platform_id(platform_user)
        for attempt in range(2):
            try:
                with self.engine.begin() as conn:
                    row = _find_transfer(conn, transfer_id)
                    if row is not None:
                        return _same_request(row, platform_user, amount)
                    return _move(conn, transfer_id, platform_user, amount)
            except sa.exc.IntegrityError:
                # The same id raced in from another request: the next look finds it.
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def get_transfer(self, transfer_id: str) -> Transfer:
        """A recorded transfer; ``unknown_transfer`` if this id moved nothing."""
        with reading(self.engine) as conn:
            row = _find_transfer(conn, transfer_id)
        if row is None:
            raise NotFound("unknown_transfer", f"No transfer {transfer_id!r} was made.")
        return _transfer_from_row(row)

    def transfers_between(self, start: float, end: float) -> list[Transfer]:
        """Every transfer made in ``[start, end)``, oldest first."""
        with reading(self.engine) as conn:
            rows = crossing.made_between(conn, s.platform_transfers, "transfer_id", start, end)
        return [_transfer_from_row(r) for r in rows]

    def platform_balance(self) -> int:
        """The platform wallet: minus the coins it moved in and not out."""
        with reading(self.engine) as conn:
            return int(
                conn.scalar(
                    sa.select(s.system_wallets.c.balance).where(s.system_wallets.c.name == PLATFORM)
                )
                or 0
            )


def transfer_problems(conn: sa.Connection) -> Iterator[str]:
    """The audit's look at transfers: each ledger transaction of one has its record, naming
    the same user and coins, and each record its transaction."""
    t = s.platform_transfers
    rows = conn.execute(
        sa.select(
            s.ledger_tx.c.key, s.postings.c.wallet, s.postings.c.amount, t.c.user_id, t.c.amount
        )
        .join(s.postings, s.postings.c.tx_key == s.ledger_tx.c.key)
        .outerjoin(t, s.ledger_tx.c.key == sa.literal("transfer:") + t.c.transfer_id)
        .where(s.ledger_tx.c.kind.in_(("deposit", "withdrawal")), s.postings.c.wallet != PLATFORM)
    )
    for key, wallet, amount, uid, recorded in rows:
        if uid is None:
            yield f"transfer {key} has no record of the platform's transfer"
        elif wallet != user_wallet(uid) or int(amount) != int(recorded):
            yield f"transfer {key} moved {amount} to {wallet}; its record says {recorded} to user {uid}"
    missing = conn.execute(
        sa.select(t.c.transfer_id)
        .outerjoin(s.ledger_tx, s.ledger_tx.c.key == sa.literal("transfer:") + t.c.transfer_id)
        .where(s.ledger_tx.c.key.is_(None))
    )
    for (tid,) in missing:
        yield f"transfer {tid} is recorded but moved nothing in the ledger"


__all__ = [
    "MAX_TRANSFER",
    "PLATFORM",
    "Launched",
    "PlatformAccounts",
    "Transfer",
    "coins_in_play",
    "transfer_problems",
    "verify_platform_id",
    "verify_transfer",
]

"""The store: one interface over SQLite and PostgreSQL.

Every method is synchronous and thread-safe; the server calls them through
``asyncio.to_thread`` (or awaits :meth:`Store.submit` via ``asyncio.wrap_future``).
Ledger writes (escrow, settle, void, grant) go through one writer thread that commits
whatever has queued up in one transaction (group commit).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

import sqlalchemy as sa
from argon2 import PasswordHasher

from baccarat import names
from baccarat.errors import Conflict, InvalidInput
from baccarat.numbers import whole
from baccarat.shoe import commitment, parse_seed
from baccarat.store import accounts, epochs
from baccarat.store import schema as s
from baccarat.store.audit import run_audit
from baccarat.store.batch import apply_ops
from baccarat.store.engine import make_engine, migrate, reading
from baccarat.store.ops import VOID_CRASH, Escrow, Grant, Op, Outcome, Settle, Void
from baccarat.store.records import (
    HOUSE,
    MINT,
    Applied,
    AuditReport,
    BetRecord,
    RoundRecord,
    ShoeRecord,
    ShoeRound,
    User,
)
from baccarat.store.rounds import (
    load_round,
    load_rounds,
    load_shoe,
    load_shoes,
    user_net,
    user_round_ids,
    user_round_page,
)
from baccarat.store.shoes import shoe_rounds, table_shoe_page
from baccarat.store.url import default_db_url, driver_url
from baccarat.store.writer import RETRIES, Writer

_BALANCES = sa.select(s.users.c.id, s.users.c.coins).where(
    s.users.c.id.in_(sa.bindparam("ids", expanding=True))
)
"""Every round's balances read (built once, so SQLAlchemy compiles it once)."""


class Store:
    """Accounts, sessions, the ledger, shoes and rounds, in one database."""

    def __init__(self, url: str, *, hasher: PasswordHasher | None = None) -> None:
        self.url = url
        self.engine = make_engine(url)
        self._hasher = hasher or accounts.password_hasher()
        migrate(self.engine)
        self._writer = Writer(self.engine)

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    @property
    def commits(self) -> int:
        """Ledger transactions committed by the writer so far."""
        return self._writer.commits

    @property
    def writes(self) -> int:
        """Ledger operations those transactions carried."""
        return self._writer.writes

    def close(self) -> None:
        """Finish queued writes and release the database."""
        self._writer.close()
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Accounts -------------------------------------------------------------------------

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

    def grant(self, username: str, coins: int, reason: str, key: str | None = None) -> int:
        """Move ``coins`` from the mint to the user (negative: back); return the new balance.

        With ``key`` the grant happens at most once: a retry returns the current balance.
        """
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInput("bad_reason", "A grant needs a reason.")
        uid = self.get_user_by_name(username).user_id
        applied = self.submit(
            Grant(uid, coins, reason.strip(), key or f"grant:{uuid.uuid4()}")
        ).result()
        return applied.balances[uid]

    def balance(self, user_id: int) -> int:
        """A user's coins."""
        return self.get_user(user_id).coins

    def balances(self, user_ids: Iterable[int]) -> dict[int, int]:
        """The coins of each of ``user_ids`` (unknown ids are left out), in one query."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        with reading(self.engine) as conn:
            rows = conn.execute(_BALANCES, {"ids": ids})
            return {int(uid): int(coins) for uid, coins in rows}

    def _system(self, name: str) -> int:
        with reading(self.engine) as conn:
            return int(
                conn.scalar(
                    sa.select(s.system_wallets.c.balance).where(s.system_wallets.c.name == name)
                )
                or 0
            )

    def house_balance(self) -> int:
        """The house's coins (negative when it has paid out more than it took)."""
        return self._system(HOUSE)

    def mint_balance(self) -> int:
        """The mint's balance: minus every coin granted and not taken back."""
        return self._system(MINT)

    def total_coins(self) -> dict[str, int]:
        """Coins per kind of wallet; ``total`` is always 0 in a sound ledger."""
        with reading(self.engine, snapshot=True) as conn:
            users = int(
                conn.scalar(sa.select(sa.func.coalesce(sa.func.sum(s.users.c.coins), 0))) or 0
            )
            escrow = int(
                conn.scalar(sa.select(sa.func.coalesce(sa.func.sum(s.rounds.c.escrow), 0))) or 0
            )
            system = {n: int(b) for n, b in conn.execute(sa.select(s.system_wallets))}
        house, mint = int(system.get(HOUSE, 0)), int(system.get(MINT, 0))
        return {
            "users": users,
            "house": house,
            "mint": mint,
            "escrow": escrow,
            "total": users + house + mint + escrow,
        }

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
            row = conn.execute(
                sa.select(s.users)
                .join(s.sessions, s.sessions.c.user_id == s.users.c.id)
                .where(
                    s.sessions.c.token_hash == accounts.token_hash(token),
                    s.sessions.c.expires_at > time.time(),
                )
            ).first()
        return accounts.user_from_row(row) if row is not None else None

    def delete_session(self, token: str) -> None:
        """Log a token out (unknown tokens are ignored); expired sessions are purged too."""
        with self.engine.begin() as conn:
            conn.execute(
                sa.delete(s.sessions).where(
                    sa.or_(
                        s.sessions.c.token_hash == accounts.token_hash(token),
                        s.sessions.c.expires_at <= time.time(),
                    )
                )
            )

    # Shoes ----------------------------------------------------------------------------

    def record_shoe_start(self, shoe_id: str, table_id: str, commitment_hex: str) -> None:
        """Record a new shoe and its published commitment (a repeat is ignored)."""
        with self.engine.begin() as conn:
            row = conn.execute(sa.select(s.shoes).where(s.shoes.c.id == shoe_id)).first()
            if row is not None:
                if row.commitment != commitment_hex:
                    raise Conflict(
                        "shoe_exists", f"Shoe {shoe_id!r} exists with another commitment."
                    )
                return
            conn.execute(
                sa.insert(s.shoes).values(
                    id=shoe_id, table_id=table_id, commitment=commitment_hex, started_at=time.time()
                )
            )

    def record_shoe_end(self, shoe_id: str, seed_hex: str) -> None:
        """Record the revealed seed; it must match the shoe's commitment."""
        seed = parse_seed(seed_hex)
        with self.engine.begin() as conn:
            shoe = load_shoe(conn, shoe_id)
            if commitment(seed) != shoe.commitment:
                raise InvalidInput(
                    "seed_mismatch", f"That seed does not match shoe {shoe_id!r}'s commitment."
                )
            if shoe.seed is None:
                conn.execute(
                    sa.update(s.shoes)
                    .where(s.shoes.c.id == shoe_id)
                    .values(seed=seed.hex(), ended_at=time.time())
                )

    def get_shoe(self, shoe_id: str) -> ShoeRecord:
        """A shoe's record: commitment, and seed once ended."""
        with reading(self.engine) as conn:
            return load_shoe(conn, shoe_id)

    def list_shoes(
        self, table_id: str, limit: int = 20, before: tuple[float, str] | None = None
    ) -> list[tuple[ShoeRecord, int]]:
        """One page of a table's shoes, newest first, each with its number of settled rounds.

        ``before`` is the (``started_at``, ``shoe_id``) of the previous page's last shoe.
        """
        if not whole(limit) or limit <= 0:
            raise InvalidInput("bad_limit", f"A limit is a whole number above 0, not {limit!r}.")
        with reading(self.engine) as conn:
            return table_shoe_page(conn, table_id, limit, before)

    def shoe_rounds(self, shoe_id: str) -> list[ShoeRound]:
        """Every round of a shoe in round order: cards and winner, no bet and no user."""
        with reading(self.engine) as conn:
            return shoe_rounds(conn, shoe_id)

    # Rounds ---------------------------------------------------------------------------

    def submit(self, op: Op) -> Future[Applied]:
        """Queue a ledger operation for the next group commit (await with asyncio.wrap_future)."""
        return self._writer.submit(op)

    def apply_many(self, ops: Sequence[Op]) -> list[Outcome]:
        """Apply ``ops`` in one transaction now; one :class:`Applied` or error per operation."""
        return self._writer.apply(ops)

    def escrow_round(
        self,
        round_id: str,
        table_id: str,
        shoe_id: str,
        round_no: int,
        dealer_id: int,
        bets: Iterable[BetRecord],
        *,
        epoch: int = 0,
    ) -> Applied:
        """Betting closed: move every stake into the round's escrow, all or nothing."""
        op = Escrow(round_id, table_id, shoe_id, round_no, dealer_id, tuple(bets), epoch)
        return self.submit(op).result()

    def settle_round(
        self,
        round_id: str,
        cards: Sequence[str],
        outcome: Mapping[str, Any],
        deltas: Mapping[int, int],
        commission: Mapping[int, int],
        house: int,
        *,
        epoch: int = 0,
    ) -> Applied:
        """Pay out a dealt round from its escrow; a repeat is a no-op that returns balances."""
        op = Settle(
            round_id, tuple(cards), dict(outcome), dict(deltas), dict(commission), house, epoch
        )
        return self.submit(op).result()

    def settle_many(self, settlements: Sequence[Settle]) -> list[Outcome]:
        """Settle many rounds in one transaction; one outcome per round."""
        return self.apply_many(settlements)

    def void_round(self, round_id: str, *, epoch: int = 0, reason: str = VOID_CRASH) -> Applied:
        """Return every stake of an escrowed round; refused once it is settled."""
        return self.submit(Void(round_id, epoch, reason)).result()

    def void_unfinished(self, table_ids: Iterable[str] | None = None) -> list[str]:
        """Void every round left escrowed (after a crash); return the ids voided here.

        Each void carries its table's current epoch: this is the operator's (or the one
        node's) word that nobody deals those tables now. With ``table_ids``, only those
        tables' rounds.
        """
        q = sa.select(s.rounds.c.id, s.rounds.c.table_id).where(s.rounds.c.status == "escrowed")
        if table_ids is not None:
            q = q.where(s.rounds.c.table_id.in_(list(table_ids)))
        with reading(self.engine) as conn:
            found = list(conn.execute(q.order_by(s.rounds.c.id)))
            current = epochs.current(conn, {t for _, t in found})
        ids = [rid for rid, _ in found]
        # Queue them all at once so the writer voids them in one group commit.
        futures = [self.submit(Void(rid, current[t])) for rid, t in found]
        voided = []
        for rid, fut in zip(ids, futures, strict=True):
            try:
                if not fut.result().replayed:
                    voided.append(rid)
            except Conflict:
                pass  # settled meanwhile by the writer that was still dealing it
        return voided

    # Table epochs ---------------------------------------------------------------------

    def take_table(self, table_id: str, node_id: str) -> epochs.Takeover:
        """Take a table over: raise its epoch and void its unfinished rounds, in one
        transaction; who sat there comes back too (their seats are kept for the grace)."""
        for attempt in range(RETRIES):
            try:
                with self.engine.begin() as conn:
                    epoch = epochs.raise_epoch(conn, table_id, node_id)
                    rids = list(
                        conn.scalars(
                            sa.select(s.rounds.c.id)
                            .where(s.rounds.c.table_id == table_id, s.rounds.c.status == "escrowed")
                            .order_by(s.rounds.c.id)
                        )
                    )
                    outcomes = apply_ops(conn, [Void(rid, epoch) for rid in rids])
                    for out in outcomes:
                        if not isinstance(out, Applied):
                            raise out
                    seats = epochs.seats_of(conn, table_id)
                return epochs.Takeover(table_id, epoch, rids, seats)
            except sa.exc.IntegrityError:
                # Another node's first takeover of this table inserted the row first.
                if attempt == RETRIES - 1:
                    raise
                time.sleep(0.01 * (attempt + 1))
        raise AssertionError("unreachable")

    def renew_epoch(self, table_id: str, node_id: str, held: int) -> int | None:
        """Raise the epoch ``node_id`` holds (it kept the table though the directory forgot
        its lease); the new epoch, or None if another node took the table meanwhile."""
        with self.engine.begin() as conn:
            return epochs.renew_epoch(conn, table_id, node_id, held)

    def epoch_of(self, table_id: str) -> int:
        """The table's current epoch (0 if it was never taken)."""
        with reading(self.engine) as conn:
            return epochs.current(conn, [table_id])[table_id]

    def save_seats(self, table_id: str, epoch: int, seats: Mapping[int, int]) -> bool:
        """Record who sits at the table (seat -> user id); False if ``epoch`` is stale."""
        with self.engine.begin() as conn:
            return epochs.save_seats(conn, table_id, epoch, seats)

    def get_round(self, round_id: str) -> RoundRecord:
        """One round's record."""
        with reading(self.engine) as conn:
            return load_round(conn, round_id)

    def history(self, username: str, limit: int = 50) -> list[RoundRecord]:
        """The newest rounds a user bet in or dealt, newest first."""
        if not whole(limit) or limit <= 0:
            raise InvalidInput("bad_limit", f"A limit is a whole number above 0, not {limit!r}.")
        with reading(self.engine) as conn:
            uid = accounts.find_user(conn, username).id
            return load_rounds(conn, user_round_ids(conn, uid, limit))

    def user_rounds(
        self, user_id: int, limit: int = 20, before: tuple[float, str] | None = None
    ) -> tuple[list[RoundRecord], dict[str, ShoeRecord]]:
        """One page of a user's rounds (bet in or dealt), newest first, with their shoes."""
        if not whole(limit) or limit <= 0:
            raise InvalidInput("bad_limit", f"A limit is a whole number above 0, not {limit!r}.")
        with reading(self.engine) as conn:
            records = load_rounds(conn, user_round_page(conn, user_id, limit, before))
            return records, load_shoes(conn, {r.shoe_id for r in records})

    def user_net(self, user_id: int, since: float) -> tuple[int, int, int]:
        """(net coins, commission, rounds) of a user's rounds settled since ``since``."""
        with reading(self.engine) as conn:
            return user_net(conn, user_id, since)

    def audit(self) -> AuditReport:
        """Check the ledger and recompute every settled round (see docs/storage.md)."""
        with reading(self.engine, snapshot=True) as conn:
            return run_audit(conn)


def open_store(url: str | None = None, *, hasher: PasswordHasher | None = None) -> Store:
    """Open (and migrate) the store at ``url``; the default SQLite file when None."""
    url = url or default_db_url()
    driver_url(url)  # refuse a malformed URL before touching anything
    return Store(url, hasher=hasher)


__all__ = ["Store", "open_store"]

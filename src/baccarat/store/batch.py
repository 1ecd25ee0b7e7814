"""The engine that applies a batch of ledger operations in one DB transaction.

A batch is applied in three steps: lock and read what it touches (its ``footprint``), check
and simulate every operation in order in memory (a rejected operation changes nothing and
does not disturb the others), then write all rows with a handful of bulk statements. Applying
an operation whose key is already in the ledger is a replay: it returns the current balances
and writes nothing. An operation that would move a table's coins is refused (``stale_epoch``)
unless it carries the table's current epoch, read under a lock in the same transaction
(``epochs``).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from baccarat.bets import AREAS
from baccarat.errors import BaccaratError, Conflict, InvalidInput, NotFound, RuleViolation
from baccarat.numbers import whole
from baccarat.store import epochs
from baccarat.store import schema as s
from baccarat.store.bulk import insert_rows, update_rows
from baccarat.store.footprint import RoundBook, load_footprint
from baccarat.store.ops import (
    MAX_ROUND_CARDS,
    Escrow,
    Grant,
    Op,
    Outcome,
    Settle,
    Unescrowed,
    Void,
)
from baccarat.store.records import HOUSE, MINT, Applied, escrow_wallet, user_wallet


@dataclass(slots=True)
class _Writes:
    txs: list[dict[str, Any]] = field(default_factory=list)
    postings: list[dict[str, Any]] = field(default_factory=list)
    new_rounds: list[dict[str, Any]] = field(default_factory=list)
    bets: list[dict[str, Any]] = field(default_factory=list)
    settled: list[dict[str, Any]] = field(default_factory=list)
    voided: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    shoe_cards: dict[str, int] = field(default_factory=dict)
    """Each shoe's first card not yet dealt (or reserved), the batch's last word for it."""
    users: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    system: dict[str, int] = field(default_factory=lambda: defaultdict(int))


# Built once, so SQLAlchemy keys and compiles them once (as the footprint's statements).
_MOVE_USER = (
    sa.update(s.users)
    .where(s.users.c.id == sa.bindparam("b_id"))
    .values(coins=s.users.c.coins + sa.bindparam("b_d"))
)
_SHOE_CARDS = (
    sa.update(s.shoes)
    .where(s.shoes.c.id == sa.bindparam("b_id"))
    .values(next_card=sa.bindparam("b_next"))
)
_MOVE_SYSTEM = (
    sa.update(s.system_wallets)
    .where(s.system_wallets.c.name == sa.bindparam("b_name"))
    .values(balance=s.system_wallets.c.balance + sa.bindparam("b_d"))
)


def _need_user(coins: dict[int, int], uid: int) -> None:
    if uid not in coins:
        raise NotFound("unknown_user", f"There is no user with id {uid}.", user_id=uid)


def _check_funds(coins: dict[int, int], uid: int, change: int) -> None:
    if coins[uid] + change < 0:
        raise RuleViolation(
            "insufficient_coins",
            f"User {uid} has {coins[uid]} coins and cannot pay {-change}.",
            user_id=uid,
            coins=coins[uid],
            needed=-change,
        )


def _post(w: _Writes, key: str, kind: str, memo: str, now: float, moves: dict[str, int]) -> None:
    assert sum(moves.values()) == 0, "a ledger transaction must sum to zero"
    w.txs.append({"key": key, "kind": kind, "memo": memo, "created_at": now})
    for wallet, amount in moves.items():
        if amount:
            w.postings.append({"tx_key": key, "wallet": wallet, "amount": amount})
            if wallet.startswith("user:"):
                w.users[int(wallet[5:])] += amount
            elif wallet in (HOUSE, MINT):
                w.system[wallet] += amount


def _verify_bets(op: Escrow, coins: dict[int, int]) -> dict[int, int]:
    _need_user(coins, op.dealer_id)
    totals: dict[int, int] = defaultdict(int)
    for b in op.bets:
        _need_user(coins, b.user_id)
        if b.user_id == op.dealer_id:
            raise RuleViolation("dealer_cannot_bet", "The dealer books the bets and cannot bet.")
        if b.area not in AREAS:
            raise InvalidInput("unknown_area", f"{b.area!r} is not a bet area.")
        for name, v in (("chips", b.chips), ("coins", b.coins)):
            if not whole(v) or v <= 0:
                raise InvalidInput("bad_amount", f"A bet's {name} must be a positive whole number.")
        totals[b.user_id] += b.coins
    for uid, total in totals.items():
        _check_funds(coins, uid, -total)
    return dict(totals)


class _Batch:
    """One batch being checked and simulated in memory."""

    def __init__(
        self,
        done: set[str],
        table_epochs: dict[str, int],
        rounds: dict[str, RoundBook],
        coins: dict[int, int],
        now: float,
    ) -> None:
        self.done, self.epochs, self.rounds, self.coins = done, table_epochs, rounds, coins
        self.now = now
        self.w = _Writes()

    def _fence(self, table_id: str, epoch: int) -> None:
        # A replay moves nothing and is answered above; anything that moves coins must come
        # from the holder of the table's current epoch.
        now = self.epochs.get(table_id, 0)
        if epoch != now:
            raise epochs.stale(table_id, epoch, now)

    def _balances(self, uids: Iterable[int]) -> dict[int, int]:
        return {u: self.coins[u] for u in sorted(set(uids)) if u in self.coins}

    def _apply_coins(self, moves: dict[str, int]) -> None:
        for wallet, amount in moves.items():
            if wallet.startswith("user:"):
                self.coins[int(wallet[5:])] += amount

    def escrow(self, op: Escrow) -> Applied:
        if op.key in self.done or op.round_id in self.rounds:
            r = self.rounds.get(op.round_id)
            users = [*r.stakes, r.dealer_id] if r else [b.user_id for b in op.bets]
            return Applied(op.key, self._balances(users), replayed=True)
        self._fence(op.table_id, op.epoch)
        totals = _verify_bets(op, self.coins)
        pot = sum(totals.values())
        moves = {user_wallet(u): -t for u, t in totals.items()}
        moves[escrow_wallet(op.round_id)] = pot
        memo = f"table {op.table_id} shoe {op.shoe_id} round {op.round_no}"
        _post(self.w, op.key, "escrow", memo, self.now, moves)
        self._apply_coins(moves)
        self._new_round(op, "escrowed", totals, closed_at=None, void_reason=None)
        self.w.bets.extend(
            {
                "round_id": op.round_id,
                "user_id": b.user_id,
                "area": b.area,
                "chips": b.chips,
                "coins": b.coins,
                "at": b.at,
            }
            for b in op.bets
        )
        return Applied(op.key, self._balances(totals))

    def _new_round(
        self,
        op: Escrow | Unescrowed,
        status: str,
        stakes: dict[int, int],
        *,
        closed_at: float | None,
        void_reason: str | None,
    ) -> None:
        """Book a round the ledger has not seen, with its stakes in escrow, and queue its row."""
        book = RoundBook(
            op.table_id,
            status,
            op.dealer_id,
            sum(stakes.values()),
            stakes,
            op.shoe_id,
            op.first_card,
        )
        self.rounds[op.round_id] = book
        self._reserve(op.shoe_id, op.first_card)
        self.done.add(op.key)
        self.w.new_rounds.append(
            {
                "id": op.round_id,
                "table_id": op.table_id,
                "shoe_id": op.shoe_id,
                "round_no": op.round_no,
                "dealer_id": op.dealer_id,
                "status": book.status,
                "escrow": book.escrow,
                "escrowed_at": self.now,
                # Every new round row has the same columns (one bulk insert for a batch).
                "closed_at": closed_at,
                "void_reason": void_reason,
                "first_card": op.first_card,
            }
        )

    def _reserve(self, shoe_id: str, first_card: int | None) -> None:
        # Cards of a round may be shown before it lands: a restart deals on past them all.
        if first_card is not None:
            self.w.shoe_cards[shoe_id] = first_card + MAX_ROUND_CARDS

    def _round(self, round_id: str) -> RoundBook:
        r = self.rounds.get(round_id)
        if r is None:
            raise NotFound("unknown_round", f"There is no escrowed round {round_id!r}.")
        return r

    def settle(self, op: Settle) -> Applied:
        r = self._round(op.round_id)
        users = [*r.stakes, r.dealer_id]
        if r.status == "settled":
            return Applied(op.key, self._balances(users), replayed=True)
        self._fence(r.table_id, op.epoch)
        if r.status == "voided":
            raise Conflict("round_voided", f"Round {op.round_id} was voided; it cannot be settled.")
        if sum(op.deltas.values()) + op.house != 0:
            raise InvalidInput("unbalanced_settlement", "A round's changes must sum to zero.")
        strangers = set(op.deltas) - set(users)
        if strangers:
            raise InvalidInput(
                "not_in_round", f"Users {sorted(strangers)} neither bet nor dealt in this round."
            )
        moves: dict[str, int] = {escrow_wallet(op.round_id): -r.escrow}
        for uid, stake in r.stakes.items():
            back = stake + op.deltas.get(uid, 0)
            if back < 0:
                raise InvalidInput(
                    "loss_over_stake", f"User {uid} cannot lose more than the {stake} staked."
                )
            moves[user_wallet(uid)] = back
        dealer_delta = op.deltas.get(r.dealer_id, 0)
        _check_funds(self.coins, r.dealer_id, dealer_delta)
        moves[user_wallet(r.dealer_id)] = dealer_delta
        moves[HOUSE] = op.house
        _post(self.w, op.key, "settle", f"round {op.round_id}", self.now, moves)
        self._apply_coins(moves)
        r.status, r.escrow = "settled", 0
        if r.first_card is not None:
            # The round is over: the shoe's next card is the one after its last.
            self.w.shoe_cards[r.shoe_id] = r.first_card + len(op.cards)
        self.done.add(op.key)
        self.w.settled.append(
            {
                "id": op.round_id,
                "cards": list(op.cards),
                "outcome": op.outcome,
                "house": op.house,
                "closed_at": self.now,
            }
        )
        self.w.results.extend(
            {
                "round_id": op.round_id,
                "user_id": uid,
                "delta": op.deltas.get(uid, 0),
                "commission": op.commission.get(uid, 0),
            }
            for uid in sorted(set(users))
        )
        return Applied(op.key, self._balances(users))

    def void(self, op: Void) -> Applied:
        r = self._round(op.round_id)
        users = [*r.stakes, r.dealer_id]
        if r.status == "voided":
            # A replay, but only for the epoch's holder: a node woken after another took its
            # table over is told so (stale_epoch), and does not report a void it did not make.
            self._fence(r.table_id, op.epoch)
            return Applied(op.key, self._balances(users), replayed=True)
        if r.status == "settled":
            raise Conflict(
                "round_settled", f"Round {op.round_id} was settled; it cannot be voided."
            )
        self._fence(r.table_id, op.epoch)
        moves: dict[str, int] = {escrow_wallet(op.round_id): -r.escrow}
        moves.update({user_wallet(u): stake for u, stake in r.stakes.items()})
        _post(self.w, op.key, "void", f"round {op.round_id}", self.now, moves)
        self._apply_coins(moves)
        r.status, r.escrow = "voided", 0
        self.done.add(op.key)
        self.w.voided.append({"id": op.round_id, "closed_at": self.now, "void_reason": op.reason})
        return Applied(op.key, self._balances(users))

    def unescrowed(self, op: Unescrowed) -> Applied:
        if op.key in self.done:
            return Applied(op.key, {}, replayed=True)
        if op.round_id in self.rounds:
            raise Conflict("round_exists", f"Round {op.round_id} holds stakes; void it instead.")
        self._fence(op.table_id, op.epoch)
        _need_user(self.coins, op.dealer_id)
        # A transaction that moves nothing: it keeps the void's key, so a retry is a replay.
        memo = f"table {op.table_id} shoe {op.shoe_id} round {op.round_no}: stakes refused"
        _post(self.w, op.key, "void", memo, self.now, {})
        self._new_round(op, "voided", {}, closed_at=self.now, void_reason=op.reason)
        return Applied(op.key, {})

    def grant(self, op: Grant) -> Applied:
        if op.key in self.done:
            return Applied(op.key, self._balances([op.user_id]), replayed=True)
        _need_user(self.coins, op.user_id)
        if not whole(op.coins) or op.coins == 0:
            raise InvalidInput(
                "bad_amount", f"A grant is a non-zero whole number of coins, not {op.coins!r}."
            )
        _check_funds(self.coins, op.user_id, op.coins)
        before = self.coins[op.user_id]
        moves = {user_wallet(op.user_id): op.coins, MINT: -op.coins}
        _post(self.w, op.key, "grant", op.reason, self.now, moves)
        self._apply_coins(moves)
        self.done.add(op.key)
        self.w.log.append(
            {
                "at": self.now,
                "actor_id": op.actor_id,
                "actor": op.actor,
                "action": "grant",
                "target": user_wallet(op.user_id),
                "reason": op.reason,
                "before": {"coins": before},
                "after": {"coins": self.coins[op.user_id]},
                "ledger_tx": op.key,
            }
        )
        return Applied(op.key, self._balances([op.user_id]))

    def run(self, op: Op) -> Outcome:
        try:
            if isinstance(op, Escrow):
                return self.escrow(op)
            if isinstance(op, Settle):
                return self.settle(op)
            if isinstance(op, Void):
                return self.void(op)
            if isinstance(op, Unescrowed):
                return self.unescrowed(op)
            return self.grant(op)
        except BaccaratError as err:
            return err


def _write(conn: sa.Connection, w: _Writes) -> None:
    insert_rows(conn, s.ledger_tx, w.txs)
    insert_rows(conn, s.rounds, w.new_rounds)
    insert_rows(conn, s.bets, w.bets)
    insert_rows(conn, s.postings, w.postings)
    still_open = "rounds.status = 'escrowed'"
    closed = {"escrow": "0"}
    update_rows(
        conn, s.rounds, "id", w.settled, where=still_open, fixed={"status": "'settled'", **closed}
    )
    update_rows(
        conn, s.rounds, "id", w.voided, where=still_open, fixed={"status": "'voided'", **closed}
    )
    insert_rows(conn, s.round_results, w.results)
    insert_rows(conn, s.operator_log, w.log)
    user_moves = [{"b_id": u, "b_d": d} for u, d in sorted(w.users.items()) if d]
    if user_moves:
        conn.execute(_MOVE_USER, user_moves)
    shoe_cards = [{"b_id": sid, "b_next": n} for sid, n in sorted(w.shoe_cards.items())]
    if shoe_cards:
        conn.execute(_SHOE_CARDS, shoe_cards)
    sys_moves = [{"b_name": n, "b_d": d} for n, d in sorted(w.system.items()) if d]
    if sys_moves:
        conn.execute(_MOVE_SYSTEM, sys_moves)


def apply_ops(conn: sa.Connection, ops: Sequence[Op], now: float | None = None) -> list[Outcome]:
    """Apply ``ops`` in order inside the caller's transaction; one outcome per operation.

    A rejected operation yields its error and writes nothing; the others still apply.
    """
    now = time.time() if now is None else now
    batch = _Batch(*load_footprint(conn, ops), now)
    outcomes = [batch.run(op) for op in ops]
    _write(conn, batch.w)
    return outcomes

"""The audit: the ledger balances, and every settled round recomputes from its record."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Generator, Iterator
from itertools import chain
from typing import Any

import sqlalchemy as sa

from baccarat.bets import Area
from baccarat.cards import Card, parse_cards
from baccarat.errors import BaccaratError
from baccarat.rules import HANDS, Outcome, deal
from baccarat.settlement import Settlement, settle
from baccarat.store import schema as s
from baccarat.store.dealt import StoredOutcome, stored_outcome
from baccarat.store.ops import EXPECTED_VOIDS, VOID_ESCROW_REFUSED, VOID_WALLET
from baccarat.store.platform import transfer_problems
from baccarat.store.records import (
    HOUSE,
    SYSTEM_WALLETS,
    AuditReport,
    RoundRecord,
    escrow_wallet,
    user_wallet,
)
from baccarat.store.rounds import load_rounds
from baccarat.store.wallet import wallet_problems

CHUNK = 500
MAX_PROBLEMS = 1000
IN_PLAY_SECONDS = 600.0
"""An escrowed round younger than this is being dealt, not left behind: a round is dealt in
well under ten minutes even when every card is squeezed to its time limit."""


def _ledger_problems(conn: sa.Connection) -> Iterator[str]:
    yield from _unbalanced_problems(conn)
    yield from _wallet_problems(_posted_balances(conn), _stored_balances(conn))
    yield from _unlogged_grants(conn)
    yield from transfer_problems(conn)
    yield from wallet_problems(conn)


def _unlogged_grants(conn: sa.Connection) -> Iterator[str]:
    """Every grant has its entry in the operator log, naming the same user and amount."""
    log = s.operator_log
    rows = conn.execute(
        sa.select(
            s.ledger_tx.c.key,
            s.postings.c.wallet,
            s.postings.c.amount,
            log.c.target,
            log.c.before,
            log.c.after,
        )
        .join(s.postings, s.postings.c.tx_key == s.ledger_tx.c.key)
        .outerjoin(log, log.c.ledger_tx == s.ledger_tx.c.key)
        .where(s.ledger_tx.c.kind == "grant", s.postings.c.wallet.like("user:%"))
    )
    for key, wallet, amount, target, before, after in rows:
        if target is None:
            yield f"grant {key} has no entry in the operator log"
        elif target != wallet or _logged_move(before, after) != int(amount):
            yield f"grant {key} moved {amount} to {wallet}; its operator log entry says otherwise"


def _logged_move(before: Any, after: Any) -> int | None:
    """The coins a grant's entry says it moved: after less before (an entry carried over
    from before the log existed has only the amount, as ``after``)."""
    try:
        return int(after["coins"]) - (int(before["coins"]) if before is not None else 0)
    except (TypeError, KeyError, ValueError):
        return None


def _unbalanced_problems(conn: sa.Connection) -> Iterator[str]:
    """Every transaction, and so the whole ledger, sums to 0."""
    unbalanced = conn.execute(
        sa.select(s.postings.c.tx_key, sa.func.sum(s.postings.c.amount))
        .group_by(s.postings.c.tx_key)
        .having(sa.func.sum(s.postings.c.amount) != 0)
    )
    for key, total in unbalanced:
        yield f"ledger transaction {key} sums to {total}, not 0"
    overall = conn.scalar(sa.select(sa.func.coalesce(sa.func.sum(s.postings.c.amount), 0)))
    if overall:
        yield f"the ledger sums to {overall}, not 0"


def _posted_balances(conn: sa.Connection) -> dict[str, int]:
    """Each wallet's balance as the sum of its postings."""
    return {
        w: int(t)
        for w, t in conn.execute(
            sa.select(s.postings.c.wallet, sa.func.sum(s.postings.c.amount)).group_by(
                s.postings.c.wallet
            )
        )
    }


def _stored_balances(conn: sa.Connection) -> dict[str, int]:
    """Each wallet's balance as its own row holds it: users, system wallets, escrows."""
    stored: dict[str, int] = {}
    for uid, coins in conn.execute(sa.select(s.users.c.id, s.users.c.coins)):
        stored[user_wallet(uid)] = int(coins)
    for name, balance in conn.execute(sa.select(s.system_wallets)):
        stored[name] = int(balance)
    for rid, escrow in conn.execute(sa.select(s.rounds.c.id, s.rounds.c.escrow)):
        stored[escrow_wallet(rid)] = int(escrow)
    return stored


def _wallet_problems(derived: dict[str, int], stored: dict[str, int]) -> Iterator[str]:
    """Every posted wallet exists, holds what its postings sum to, and is not overdrawn."""
    for wallet in sorted(set(derived) | set(stored)):
        if wallet not in stored:
            yield f"postings name a wallet that does not exist: {wallet}"
            continue
        if derived.get(wallet, 0) != stored[wallet]:
            yield f"wallet {wallet} holds {stored[wallet]} but its postings sum to {derived.get(wallet, 0)}"
        if stored[wallet] < 0 and wallet not in SYSTEM_WALLETS:
            yield f"wallet {wallet} is negative: {stored[wallet]}"


def _recompute_problems(r: RoundRecord, postings: dict[str, dict[str, int]]) -> Iterator[str]:
    # Each step yields its problems and returns what the next one needs (None: stop here).
    where = f"round {r.round_id}"
    outcome = yield from _redeal(where, r)
    if outcome is None:
        return
    yield from _compare_outcome(where, r.outcome or {}, stored_outcome(outcome))
    expected = yield from _resettle(where, r, outcome)
    if expected is None:
        return
    yield from _compare_settlement(where, r, expected)
    yield from _ledger_moves(where, r, expected, postings)


def _redeal(where: str, r: RoundRecord) -> Generator[str, None, Outcome | None]:
    """Deal the recorded cards again; None when they do not make a whole deal."""
    try:
        cards: list[Card] = parse_cards(list(r.cards or []))
    except BaccaratError as err:
        yield f"{where}: its cards cannot be read ({err.message})"
        return None
    it = iter(cards)
    try:
        outcome = deal(lambda: next(it))
    except StopIteration:
        yield f"{where}: {len(cards)} cards are too few for a whole deal"
        return None
    if next(it, None) is not None:
        yield f"{where}: more cards were recorded than the deal takes"
    return outcome


def _resettle(
    where: str, r: RoundRecord, outcome: Outcome
) -> Generator[str, None, Settlement[int] | None]:
    """Settle the recorded bets again; None when they cannot be settled."""
    stakes: dict[int, dict[Area, int]] = defaultdict(lambda: defaultdict(int))
    for b in r.bets:
        stakes[b.user_id][b.area] += b.coins  # type: ignore[index]
    try:
        return settle(outcome, r.dealer_id, stakes)
    except BaccaratError as err:
        yield f"{where}: its bets cannot be settled ({err.message})"
        return None


def _compare_settlement(where: str, r: RoundRecord, expected: Settlement[int]) -> Iterator[str]:
    if expected.deltas != r.deltas:
        yield f"{where}: recorded changes {r.deltas} but its cards and bets give {expected.deltas}"
    if expected.commission != r.commission:
        yield f"{where}: recorded commission {r.commission} but recomputed {expected.commission}"
    if expected.house != r.house:
        yield f"{where}: recorded house {r.house} but recomputed {expected.house}"


def _ledger_moves(
    where: str, r: RoundRecord, expected: Settlement[int], postings: dict[str, dict[str, int]]
) -> Iterator[str]:
    """The round's escrow and settle transactions move what the settlement says."""
    escrowed = postings.get(f"round:{r.round_id}:escrow", {})
    settled = postings.get(f"round:{r.round_id}:settle", {})
    for uid, delta in expected.deltas.items():
        w = user_wallet(uid)
        moved = escrowed.get(w, 0) + settled.get(w, 0)
        if moved != delta:
            yield f"{where}: the ledger moved {moved} for user {uid}, the settlement says {delta}"
    if settled.get(HOUSE, 0) != expected.house:
        yield f"{where}: the ledger moved {settled.get(HOUSE, 0)} for the house, not {expected.house}"


def _compare_outcome(where: str, recorded: dict[str, Any], fresh: StoredOutcome) -> Iterator[str]:
    if recorded.get("winner") != fresh["winner"]:
        yield f"{where}: recorded winner {recorded.get('winner')!r}, the cards give {fresh['winner']!r}"
    for hand in HANDS:
        rec = recorded.get(hand)
        if not isinstance(rec, dict):
            continue
        for key in ("cards", "points", "pair"):
            if key in rec and rec[key] != fresh[hand][key]:
                yield f"{where}: recorded {hand} {key} {rec[key]!r}, the cards give {fresh[hand][key]!r}"


def _void_problems(r: RoundRecord, postings: dict[str, dict[str, int]]) -> Iterator[str]:
    escrowed = postings.get(f"round:{r.round_id}:escrow", {})
    voided = postings.get(f"round:{r.round_id}:void", {})
    for wallet in set(escrowed) | set(voided):
        if wallet.startswith("user:") and escrowed.get(wallet, 0) + voided.get(wallet, 0) != 0:
            yield f"round {r.round_id}: the void did not return exactly the stake of {wallet}"


def _round_postings(conn: sa.Connection, ids: list[str]) -> dict[str, dict[str, int]]:
    keys = [f"round:{rid}:{step}" for rid in ids for step in ("escrow", "settle", "void")]
    out: dict[str, dict[str, int]] = defaultdict(dict)
    present = set(conn.scalars(sa.select(s.ledger_tx.c.key).where(s.ledger_tx.c.key.in_(keys))))
    for key in present:
        out[key] = {}
    for key, wallet, amount in conn.execute(
        sa.select(s.postings.c.tx_key, s.postings.c.wallet, s.postings.c.amount).where(
            s.postings.c.tx_key.in_(keys)
        )
    ):
        out[key][wallet] = out[key].get(wallet, 0) + int(amount)
    return out


def _round_problems(conn: sa.Connection, in_play_since: float | None) -> Iterator[str]:
    ids = list(conn.scalars(sa.select(s.rounds.c.id).order_by(s.rounds.c.id)))
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        postings = _round_postings(conn, chunk)
        for r in load_rounds(conn, chunk):
            yield from _missing_tx_problems(r, postings)
            yield from _status_problems(r, postings, in_play_since)


def _missing_tx_problems(r: RoundRecord, postings: dict[str, dict[str, int]]) -> Iterator[str]:
    """A round has the ledger transactions its status implies."""
    for step in _needed_steps(r):
        if f"round:{r.round_id}:{step}" not in postings:
            yield f"round {r.round_id} is {r.status} but has no {step} transaction"


def _needed_steps(r: RoundRecord) -> list[str]:
    if r.status == "escrowed":
        return ["escrow"]
    if r.status == "settled":
        return ["escrow", "settle"]
    if r.status == "voided":
        # A round whose stakes the ledger or the platform's wallet refused holds no escrow.
        unescrowed = r.void_reason in (VOID_ESCROW_REFUSED, VOID_WALLET)
        return ["void"] if unescrowed else ["escrow", "void"]
    return []


def _status_problems(
    r: RoundRecord, postings: dict[str, dict[str, int]], in_play_since: float | None
) -> Iterator[str]:
    if r.status == "escrowed":
        if in_play_since is None or r.escrowed_at < in_play_since:
            yield f"round {r.round_id} is still escrowed: neither settled nor voided"
    elif r.status == "settled":
        yield from _recompute_problems(r, postings)
    elif r.status == "voided":
        yield from _void_reason_problems(r)
        yield from _void_problems(r, postings)


def _void_reason_problems(r: RoundRecord) -> Iterator[str]:
    if r.void_reason not in EXPECTED_VOIDS:
        # Only a crash or a shutdown may void a round; anything else means the
        # table and the ledger disagreed.
        yield (
            f"round {r.round_id} at table {r.table_id} was voided: "
            f"{r.void_reason or 'no reason recorded'}"
        )


def run_audit(conn: sa.Connection, in_play_since: float | None = None) -> AuditReport:
    """Check the whole database; see docs/storage.md for the list of checks. A round
    escrowed at or after ``in_play_since`` is counted as in play rather than left behind;
    without it, every escrowed round is left behind (nothing runs)."""
    problems: list[str] = []
    for problem in chain(_ledger_problems(conn), _round_problems(conn, in_play_since)):
        problems.append(problem)
        if len(problems) >= MAX_PROBLEMS:
            problems.append(f"stopped after {MAX_PROBLEMS} problems")
            break
    counts = {
        status: int(n)
        for status, n in conn.execute(
            sa.select(s.rounds.c.status, sa.func.count()).group_by(s.rounds.c.status)
        )
    }
    reasons = {
        str(reason or "unrecorded"): int(n)
        for reason, n in conn.execute(
            sa.select(s.rounds.c.void_reason, sa.func.count())
            .where(s.rounds.c.status == "voided")
            .group_by(s.rounds.c.void_reason)
        )
    }
    in_play = 0
    if in_play_since is not None:
        in_play = (
            conn.scalar(
                sa.select(sa.func.count()).where(
                    s.rounds.c.status == "escrowed", s.rounds.c.escrowed_at >= in_play_since
                )
            )
            or 0
        )
    return AuditReport(
        ok=not problems,
        rounds=sum(counts.values()),
        voided=counts.get("voided", 0),
        in_play=int(in_play),
        problems=problems,
        void_reasons=reasons,
    )

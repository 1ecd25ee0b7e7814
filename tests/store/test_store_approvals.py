"""Operators within bounds, in the store, on SQLite and PostgreSQL alike: the ranks, one's own
account, the last admin, grants that wait for a second operator, and the daily total."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from baccarat.errors import BaccaratError, InvalidInput, NotFound
from baccarat.store import Store, User, schema
from baccarat.store.approvals import GrantPolicy
from baccarat.store.operators import CLI, Actor

POLICY = GrantPolicy(approve_above=100_000, daily_cap=250_000)


def staff(store: Store) -> dict[str, User]:
    """Two admins, two operators and a player, made by ``baccarat admin``'s actor."""
    made = {}
    for name, role in (("boss", "admin"), ("deputy", "admin"), ("op1", "operator"),
                       ("op2", "operator"), ("punter", "player")):  # fmt: skip
        user = store.create_user(name, "password1", coins=10_000)
        made[name] = store.set_role(user.user_id, role, "staffing") if role != "player" else user
    return made


def actor(user: User) -> Actor:
    return Actor(user.username, user.user_id)


class _Code:
    """``with _Code("x"):`` passes only when the block raises a BaccaratError of code x."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: object, tb: object) -> bool:
        assert isinstance(exc, BaccaratError), f"expected {self.code}, got {exc!r}"
        assert exc.code == self.code, (exc.code, exc.message)
        return True


def test_an_operator_acts_on_players_only_and_never_on_themselves(store: Store) -> None:
    u = staff(store)
    op1, boss, op2, punter = u["op1"], u["boss"], u["op2"], u["punter"]
    log_before = len(store.operator_log())
    with _Code("outranked"):
        store.ban(boss.user_id, "a coup", actor(op1))
    with _Code("outranked"):
        store.set_level_logged(op2.user_id, 99, "a favour", actor(op1))
    with _Code("outranked"):
        store.mute(boss.user_id, 60, "quiet", actor(op1))
    with _Code("outranked"):
        store.operator_grant(actor(op1), boss.user_id, 10, "tip", POLICY)
    with _Code("own_account"):
        store.set_level_logged(op1.user_id, 99, "me", actor(op1))
    with _Code("own_account"):
        store.unban(op1.user_id, "me", actor(op1))
    # Nothing changed, nothing was logged.
    assert len(store.operator_log()) == log_before
    assert store.get_user(boss.user_id).banned is None
    assert store.get_user(op2.user_id).level == 50
    assert store.get_user(op1.user_id).level == 50
    # A player is theirs to act on; an admin acts on operators.
    assert store.set_level_logged(punter.user_id, 60, "promotion", actor(op1)).level == 60
    assert store.mute(op2.user_id, 60, "quiet", actor(boss)).muted_until is not None


def test_the_last_admin_is_neither_demoted_nor_banned(store: Store) -> None:
    u = staff(store)
    boss, deputy = u["boss"], u["deputy"]
    # Two admins: one may step down or be banned by the other ...
    store.set_role(deputy.user_id, "operator", "steps down", actor(deputy))
    # ... then the one left is the last admin, by the console and by the CLI alike.
    for who in (actor(boss), CLI):
        with _Code("last_admin"):
            store.set_role(boss.user_id, "operator", "oops", who)
    with _Code("last_admin"):
        store.ban(boss.user_id, "oops", CLI)
    with _Code("own_account"):
        store.ban(boss.user_id, "oops", actor(boss))
    assert store.get_user(boss.user_id).role == "admin"
    assert store.get_user(boss.user_id).banned is None
    # A banned admin counts for nothing: with the deputy back but banned, boss is still last.
    store.set_role(deputy.user_id, "admin", "back", CLI)
    store.ban(deputy.user_id, "away", actor(boss))
    with _Code("last_admin"):
        store.set_role(boss.user_id, "player", "retire", CLI)


def test_a_small_grant_moves_at_once_and_a_large_one_waits(store: Store) -> None:
    u = staff(store)
    op1, op2, punter = u["op1"], u["op2"], u["punter"]
    user, waiting = store.operator_grant(actor(op1), punter.user_id, 100_000, "welcome", POLICY)
    assert (user.coins, waiting) == (110_000, None)
    user, waiting = store.operator_grant(actor(op1), punter.user_id, 100_001, "big win", POLICY)
    assert user.coins == 110_000 and waiting is not None
    assert (waiting.status, waiting.why, waiting.requested_by) == ("pending", "amount", "op1")
    assert [r.id for r in store.grant_requests()] == [waiting.id]
    # The one who asked cannot approve it; a second operator can, once.
    with _Code("own_request"):
        store.approve_grant(actor(op1), waiting.id, "me")
    user, done = store.approve_grant(actor(op2), waiting.id, "checked the win")
    assert (user.coins, done.status, done.decided_by) == (210_001, "approved", "op2")
    assert done.ledger_tx == f"grant_request:{waiting.id}"
    with _Code("request_decided"):
        store.approve_grant(actor(u["boss"]), waiting.id, "again")
    with _Code("request_decided"):
        store.refuse_grant(actor(op2), waiting.id, "too late")
    assert store.balance(punter.user_id) == 210_001
    actions = [(e.action, e.actor) for e in store.operator_log(target=f"user:{punter.user_id}")]
    assert actions[:3] == [("grant_approved", "op2"), ("grant", "op1"), ("grant_requested", "op1")]
    assert store.grant_requests() == []
    assert store.audit().ok


def test_a_grant_to_oneself_waits_and_a_refused_one_moves_nothing(store: Store) -> None:
    u = staff(store)
    op1, op2 = u["op1"], u["op2"]
    user, waiting = store.operator_grant(actor(op1), op1.user_id, 1_000, "pay day", POLICY)
    assert user.coins == 10_000 and waiting is not None and waiting.why == "self"
    with _Code("own_request"):
        store.approve_grant(actor(op1), waiting.id, "me")
    refused = store.refuse_grant(actor(op2), waiting.id, "not how pay works")
    assert (refused.status, refused.decided_by, refused.decision) == (
        "refused", "op2", "not how pay works",
    )  # fmt: skip
    assert store.balance(op1.user_id) == 10_000
    [entry] = store.operator_log(action="grant_refused")
    assert (entry.actor, entry.reason, entry.after["request_id"]) == (
        "op2", "not how pay works", waiting.id,
    )  # fmt: skip
    # An operator does not decide a grant to an admin; nobody decides one to themselves.
    _, to_boss = store.operator_grant(
        actor(u["deputy"]), u["boss"].user_id, 200_000, "bonus", POLICY
    )
    assert to_boss is not None
    with _Code("outranked"):
        store.approve_grant(actor(op2), to_boss.id, "ok")
    with _Code("own_account"):
        store.approve_grant(actor(u["boss"]), to_boss.id, "ok")
    # The one who asked may withdraw it.
    assert store.refuse_grant(actor(u["deputy"]), to_boss.id, "withdrawn").status == "refused"


def test_an_operator_gives_at_most_the_daily_cap(store: Store) -> None:
    u = staff(store)
    op1, punter = u["op1"], u["punter"]
    store.operator_grant(actor(op1), punter.user_id, 100_000, "one", POLICY)
    _, waiting = store.operator_grant(actor(op1), punter.user_id, 120_000, "two", POLICY)
    assert waiting is not None
    # 220,000 given or waiting: 40,000 more would pass 250,000.
    with _Code("daily_cap"):
        store.operator_grant(actor(op1), punter.user_id, 40_000, "three", POLICY)
    # Taking back is not giving; a refused request no longer counts.
    store.operator_grant(actor(op1), punter.user_id, -5_000, "undo", POLICY)
    store.refuse_grant(actor(u["op2"]), waiting.id, "no")
    store.operator_grant(actor(op1), punter.user_id, 40_000, "three", POLICY)
    # Another operator has a cap of their own; the CLI has none.
    store.operator_grant(actor(u["op2"]), punter.user_id, 100_000, "four", POLICY)
    store.operator_grant(CLI, punter.user_id, 900_000, "five", POLICY)
    assert store.balance(punter.user_id) == 10_000 + 100_000 - 5_000 + 40_000 + 100_000 + 900_000


def test_a_bad_grant_is_refused_before_anything_is_written(store: Store) -> None:
    u = staff(store)
    before = len(store.operator_log())
    for coins in (0, 1.5, True, 10**13, "5"):
        with pytest.raises(InvalidInput):
            store.operator_grant(CLI, u["punter"].user_id, coins, "x", POLICY)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        store.operator_grant(CLI, u["punter"].user_id, 5, " ", POLICY)
    with pytest.raises(NotFound):
        store.operator_grant(CLI, 9_999, 5, "x", POLICY)
    with _Code("insufficient_coins"):
        store.operator_grant(CLI, u["punter"].user_id, -10_001, "x", POLICY)
    with pytest.raises(NotFound):
        store.approve_grant(CLI, 9_999, "x")
    # A taking-back above the bound waits too, and its approval checks the funds again.
    _, waiting = store.operator_grant(actor(u["op1"]), u["punter"].user_id, -200_000, "x", POLICY)
    assert waiting is not None
    with _Code("insufficient_coins"):
        store.approve_grant(actor(u["op2"]), waiting.id, "ok")
    assert store.grant_request(waiting.id).status == "pending"
    assert len(store.operator_log()) == before + 1
    assert store.balance(u["punter"].user_id) == 10_000


def test_a_ban_withdraws_the_grants_the_banned_operator_asked_for(store: Store) -> None:
    u = staff(store)
    op1, punter, boss = u["op1"], u["punter"], u["boss"]
    _, waiting = store.operator_grant(actor(op1), punter.user_id, 200_000, "big win", POLICY)
    assert waiting is not None and waiting.status == "pending"
    store.ban(op1.user_id, "rogue", actor(boss))
    request = store.grant_request(waiting.id)
    assert (request.status, request.decided_by) == ("refused", "boss")
    assert request.decision is not None and "banned" in request.decision
    with _Code("request_decided"):
        store.approve_grant(actor(boss), waiting.id, "looks fine")
    assert store.balance(punter.user_id) == 10_000
    log = store.operator_log(limit=2)
    # Newest first: the withdrawal is written after the ban, in its transaction.
    assert [(e.action, e.actor_id) for e in log] == [("grant_refused", boss.user_id),
                                                     ("ban", boss.user_id)]  # fmt: skip


def test_a_grant_asked_for_by_an_account_banned_since_is_not_paid(store: Store) -> None:
    u = staff(store)
    op1, punter, boss = u["op1"], u["punter"], u["boss"]
    _, waiting = store.operator_grant(actor(op1), punter.user_id, 200_000, "big win", POLICY)
    assert waiting is not None
    # A ban written before bans withdrew requests: the request still waits.
    with store.engine.begin() as conn:
        conn.execute(
            sa.update(schema.users).where(schema.users.c.id == op1.user_id).values(banned="old")
        )
    with _Code("requester_banned"):
        store.approve_grant(actor(boss), waiting.id, "looks fine")
    assert store.grant_request(waiting.id).status == "pending"
    assert store.balance(punter.user_id) == 10_000


@pytest.mark.parametrize("name", ["cli", "System", "ADMIN", "operator", "player"])
def test_the_names_the_log_and_the_roles_use_cannot_be_registered(store: Store, name: str) -> None:
    with _Code("reserved_name"):
        store.create_user(name, "password1")

"""Operators in the store: roles, bans, mutes and the operator log that nothing rewrites, on
SQLite and PostgreSQL alike; the audit finds a grant the log does not know."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from baccarat.errors import InvalidInput, NotFound, RuleViolation
from baccarat.store import Store, User, open_store
from baccarat.store.engine import MIGRATIONS, make_engine
from baccarat.store.operators import Actor

OPERATOR = Actor("mod", None)


def test_a_grant_and_its_log_entry_are_one_write(store: Store, users: dict[str, User]) -> None:
    b1 = users["b1"]
    balance = store.grant("b1", 2_500, "  compensation for a dropped round ", actor="mod")
    assert balance == 12_500
    entry = store.operator_log(action="grant", target=f"user:{b1.user_id}")[0]
    assert (entry.actor, entry.reason) == ("mod", "compensation for a dropped round")
    assert (entry.before, entry.after) == ({"coins": 10_000}, {"coins": 12_500})
    assert entry.ledger_tx is not None and entry.ledger_tx.startswith("grant:")
    # The opening balance of each account is logged as the server's own grant.
    opening = store.operator_log(target=f"user:{b1.user_id}", actor="system")
    assert [e.after for e in opening] == [{"coins": 10_000}]
    assert store.audit().ok


def test_a_refused_grant_logs_nothing(store: Store, users: dict[str, User]) -> None:
    before = len(store.operator_log())
    with pytest.raises(RuleViolation):
        store.grant("b1", -20_000, "take more than there is")
    with pytest.raises(InvalidInput):
        store.grant("b1", 5, "   ")
    assert len(store.operator_log()) == before
    assert store.balance(users["b1"].user_id) == 10_000


def test_the_log_refuses_updates_and_deletes(store: Store, users: dict[str, User]) -> None:
    store.grant("b2", 100, "a test grant")
    for statement in ("UPDATE operator_log SET reason = 'nothing'", "DELETE FROM operator_log"):
        with pytest.raises(sa.exc.DBAPIError, match="append-only"), store.engine.begin() as c:
            c.execute(sa.text(statement))
    assert store.operator_log(action="grant")[0].reason == "a test grant"


def test_the_audit_finds_a_grant_with_no_log_entry(store: Store, users: dict[str, User]) -> None:
    uid = users["b3"].user_id
    # A grant written around the store (balanced, so only the log check can see it).
    with store.engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO ledger_tx (key, kind, memo, created_at) "
                "VALUES ('grant:sneaky', 'grant', 'no log', 0)"
            )
        )
        conn.execute(
            sa.text(
                "INSERT INTO postings (tx_key, wallet, amount) VALUES "
                "('grant:sneaky', :w, 7), ('grant:sneaky', 'mint', -7)"
            ),
            {"w": f"user:{uid}"},
        )
        conn.execute(sa.text("UPDATE users SET coins = coins + 7 WHERE id = :u"), {"u": uid})
        conn.execute(sa.text("UPDATE system_wallets SET balance = balance - 7 WHERE name = 'mint'"))
    report = store.audit()
    assert report.problems == ["grant grant:sneaky has no entry in the operator log"]


def test_roles_bans_and_mutes_are_logged_with_before_and_after(
    store: Store, users: dict[str, User]
) -> None:
    uid = users["b1"].user_id
    assert store.set_role(uid, "operator", "runs the evening shift").role == "operator"
    with pytest.raises(InvalidInput, match="role is one of"):
        store.set_role(uid, "root", "no such role")
    token = store.create_session(uid)
    console = store.create_admin_session(uid)
    assert store.operator_for_session(console) is not None
    banned = store.ban(uid, "chargeback fraud", OPERATOR)
    assert banned.banned == "chargeback fraud"
    # A ban ends every session, the game's and the console's.
    assert store.user_for_session(token) is None
    assert store.operator_for_session(console) is None
    muted = store.mute(uid, 600, "spam in chat", OPERATOR)
    assert muted.muted_until is not None and muted.muted(muted.muted_until - 1)
    assert not muted.muted(muted.muted_until)
    with pytest.raises(InvalidInput, match="mute lasts"):
        store.mute(uid, -1, "backwards")
    assert store.unban(uid, "appeal accepted", OPERATOR).banned is None
    actions = [(e.action, e.before, e.after) for e in store.operator_log(target=f"user:{uid}")]
    assert actions[:4] == [
        ("unban", {"banned": "chargeback fraud"}, {"banned": None}),
        ("mute", {"muted_until": None}, {"muted_until": muted.muted_until}),
        ("ban", {"banned": None}, {"banned": "chargeback fraud"}),
        ("set_role", {"role": "player"}, {"role": "operator"}),
    ]
    with pytest.raises(NotFound):
        store.ban(99_999, "nobody")
    with pytest.raises(InvalidInput, match="needs a reason"):
        store.ban(uid, "")


def test_a_player_has_no_console_session(store: Store, users: dict[str, User]) -> None:
    console = store.create_admin_session(users["b2"].user_id)
    assert store.operator_for_session(console) is None
    assert store.operator_for_session("") is None


def test_search_finds_names_with_underscores_literally(store: Store) -> None:
    store.create_user("ab_c", "pw")
    store.create_user("abxc", "pw")
    assert [u.username for u in store.search_users("B_C")] == ["ab_c"]
    assert [u.username for u in store.search_users("%")] == []


def test_the_migration_logs_the_grants_made_before_the_log(empty_db_url: str) -> None:
    engine = make_engine(empty_db_url, create=True)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "shoes_by_table")
    engine.dispose()
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO users (username, username_key, display_name, display_key,"
                " password_hash, level, coins, created_at)"
                " VALUES ('old', 'old', 'old', 'old', 'x', 50, 300, 0)"
            )
        )
        uid = conn.scalar(sa.text("SELECT id FROM users"))
        conn.execute(
            sa.text(
                "INSERT INTO ledger_tx (key, kind, memo, created_at)"
                " VALUES ('grant:old', 'grant', 'opening balance', 5)"
            )
        )
        conn.execute(
            sa.text(
                "INSERT INTO postings (tx_key, wallet, amount)"
                " VALUES ('grant:old', :w, 300), ('grant:old', 'mint', -300)"
            ),
            {"w": f"user:{uid}"},
        )
        conn.execute(sa.text("UPDATE system_wallets SET balance = -300 WHERE name = 'mint'"))
    engine.dispose()
    store = open_store(empty_db_url)
    try:
        [entry] = store.operator_log()
        assert (entry.actor, entry.action, entry.target) == ("ledger", "grant", f"user:{uid}")
        assert (entry.after, entry.ledger_tx, entry.at) == ({"coins": 300}, "grant:old", 5)
        assert store.get_user(uid).role == "player"
        assert store.audit().ok, store.audit().problems
    finally:
        store.close()


def test_a_closed_table_stays_closed_for_the_node_that_takes_it_next(store: Store) -> None:
    first = store.take_table("t1", "node-a")
    assert first.suspended is None
    assert store.save_suspended("t1", first.epoch, "maintenance", OPERATOR, "night works", None)
    second = store.take_table("t1", "node-b")
    assert second.suspended == "maintenance"
    # The node that lost the table can no longer change it.
    assert not store.save_suspended("t1", first.epoch, None, OPERATOR, "too late", "maintenance")
    assert store.save_suspended("t1", second.epoch, None, OPERATOR, "works done", "maintenance")
    assert store.take_table("t1", "node-a").suspended is None
    logged = [(e.action, e.after) for e in store.operator_log(target="table:t1")]
    assert logged == [
        ("open_table", {"suspended": None}),
        ("close_table", {"suspended": "maintenance"}),
    ]

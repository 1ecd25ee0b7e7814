"""Why a round was voided is kept with it, and the audit reports every void that was no
crash and no shutdown (on SQLite and PostgreSQL alike)."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from baccarat.errors import Conflict
from baccarat.store import (
    VOID_CRASH,
    VOID_ESCROW_REFUSED,
    VOID_SETTLEMENT_REFUSED,
    VOID_SHUTDOWN,
    BetRecord,
    Store,
    Unescrowed,
    User,
    open_store,
)
from baccarat.store.engine import MIGRATIONS, make_engine


def _escrow(store: Store, users: dict[str, User], rid: str) -> None:
    store.record_shoe_start("s1", "t1", "0" * 64)
    bets = [BetRecord(users["b1"].user_id, "player", 2, 200, time.time())]
    store.escrow_round(rid, "t1", "s1", 1, users["dealer"].user_id, bets)


@pytest.mark.parametrize("reason", [VOID_CRASH, VOID_SHUTDOWN])
def test_a_round_voided_by_a_crash_or_a_shutdown_is_no_problem(
    store: Store, users: dict[str, User], reason: str
) -> None:
    _escrow(store, users, "r1")
    store.void_round("r1", reason=reason)
    assert store.get_round("r1").void_reason == reason
    report = store.audit()
    assert report.ok, report.problems
    assert (report.voided, report.void_reasons) == (1, {reason: 1})


def test_a_round_whose_payout_was_refused_is_a_problem_for_the_audit(
    store: Store, users: dict[str, User]
) -> None:
    _escrow(store, users, "r1")
    store.void_round("r1", reason=VOID_SETTLEMENT_REFUSED)
    assert store.balance(users["b1"].user_id) == 10_000  # the stake went back
    report = store.audit()
    assert not report.ok
    assert report.problems == ["round r1 at table t1 was voided: settlement_refused"]
    assert report.to_dict()["void_reasons"] == {VOID_SETTLEMENT_REFUSED: 1}


def test_a_round_whose_stakes_were_refused_is_recorded_voided_and_moves_nothing(
    store: Store, users: dict[str, User]
) -> None:
    store.record_shoe_start("s1", "t1", "0" * 64)
    before = store.total_coins()
    op = Unescrowed("r9", "t1", "s1", 4, users["dealer"].user_id)
    first = store.submit(op).result()
    assert store.submit(op).result().replayed and not first.replayed
    record = store.get_round("r9")
    assert (record.status, record.void_reason, record.bets) == ("voided", VOID_ESCROW_REFUSED, [])
    assert store.total_coins() == before
    report = store.audit()
    # Its only problem is the refusal itself: no missing escrow is reported.
    assert report.problems == ["round r9 at table t1 was voided: escrow_refused"]


def test_stakes_refused_for_a_round_that_holds_stakes_are_refused(
    store: Store, users: dict[str, User]
) -> None:
    _escrow(store, users, "r1")
    with pytest.raises(Conflict) as err:
        store.submit(Unescrowed("r1", "t1", "s1", 1, users["dealer"].user_id)).result()
    assert err.value.code == "round_exists"
    assert store.get_round("r1").status == "escrowed"


def test_rounds_left_in_escrow_by_a_crash_are_voided_as_a_crash(
    store: Store, users: dict[str, User]
) -> None:
    _escrow(store, users, "r1")
    assert store.void_unfinished() == ["r1"]
    assert store.get_round("r1").void_reason == VOID_CRASH
    assert store.audit().ok


def test_upgrading_marks_rounds_voided_before_reasons_were_kept_unrecorded(
    empty_db_url: str,
) -> None:
    engine = make_engine(empty_db_url, create=True)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "canonical_names")
    engine.dispose()
    # The round as an older server voided it, written through the ledger of that revision.
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO users (username, username_key, display_name, display_key,"
                " password_hash, level, coins, created_at)"
                " VALUES ('d', 'd', 'd', 'd', 'x', 50, 0, 0)"
            )
        )
        uid = conn.scalar(sa.text("SELECT id FROM users"))
        conn.execute(
            sa.text(
                "INSERT INTO rounds (id, table_id, shoe_id, round_no, dealer_id, status,"
                " escrow, escrowed_at) VALUES ('old', 't1', 's1', 1, :d, 'voided', 0, 0)"
            ),
            {"d": uid},
        )
        conn.execute(
            sa.text(
                "INSERT INTO ledger_tx (key, kind, memo, created_at) VALUES"
                " ('round:old:escrow', 'escrow', '', 0), ('round:old:void', 'void', '', 0)"
            )
        )
    engine.dispose()
    store = open_store(empty_db_url)
    try:
        assert store.get_round("old").void_reason == "unrecorded"
        report = store.audit()
        assert report.ok, report.problems
    finally:
        store.close()

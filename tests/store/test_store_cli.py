"""The admin, audit and history commands, run through the real ``baccarat`` entry point."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from baccarat.cli import main
from baccarat.store import BetRecord, Store


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_create_user_reads_the_password_from_stdin(
    store: Store, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("s3cret\n"))
    status, out, _ = _run(
        capsys, "admin", "create-user", "Mei", "--password-stdin", "--coins", "700",
        "--level", "55", "--display-name", "Mei Lin", "--db", store.url,
    )  # fmt: skip
    assert status == 0 and "Mei" in out
    user = store.authenticate("mei", "s3cret")
    assert user is not None and (user.coins, user.level, user.display_name) == (700, 55, "Mei Lin")


def test_a_taken_name_exits_2_with_its_code(
    store: Store, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store.create_user("Mei", "pw")
    monkeypatch.setattr("sys.stdin", io.StringIO("other\n"))
    status, _, err = _run(
        capsys, "admin", "create-user", "MEI", "--password-stdin", "--db", store.url
    )
    assert status == 2 and "name_taken" in err


def test_grant_and_set_level_change_the_user(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    store.create_user("Mei", "pw")
    assert (
        _run(capsys, "admin", "grant", "Mei", "1200", "--reason", "welcome", "--db", store.url)[0]
        == 0
    )
    assert _run(capsys, "admin", "set-level", "mei", "77", "--db", store.url)[0] == 0
    status, out, _ = _run(capsys, "admin", "users", "--json", "--db", store.url)
    assert status == 0
    assert [(u["username"], u["coins"], u["level"]) for u in json.loads(out)] == [("Mei", 1200, 77)]


def test_roles_bans_and_mutes_from_the_cli_are_in_its_log(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    mei = store.create_user("Mei", "pw")
    db = ("--db", store.url)
    steps = [
        ("set-role", "Mei", "operator", "--reason", "hired"),
        ("grant", "Mei", "50", "--reason", "a test grant"),
        ("mute", "Mei", "60", "--reason", "spam"),
        ("ban", "Mei", "--reason", "fraud"),
        ("unban", "Mei", "--reason", "appeal"),
    ]
    for step in steps:
        status, out, err = _run(capsys, "admin", *step, *db)
        assert status == 0, err
    user = store.get_user(mei.user_id)
    assert (user.role, user.banned, user.coins) == ("operator", None, 50)
    status, out, _ = _run(capsys, "admin", "log", "--user", "mei", "--json", *db)
    logged = [(e["actor"], e["action"], e["reason"]) for e in json.loads(out)]
    assert logged == [
        ("cli", "unban", "appeal"),
        ("cli", "ban", "fraud"),
        ("cli", "mute", "spam"),
        ("cli", "grant", "a test grant"),
        ("cli", "set_role", "hired"),
    ]
    status, out, _ = _run(capsys, "admin", "log", "--action", "ban", *db)
    assert status == 0 and "fraud" in out and "appeal" not in out
    # A role that does not exist is refused by the parser, and nothing is logged.
    with pytest.raises(SystemExit):
        main(["admin", "set-role", "Mei", "root", "--reason", "x", *db])
    assert len(store.operator_log(target=f"user:{mei.user_id}")) == 5


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["admin", "grant", "nobody", "5", "--reason", "x"], "unknown_user"),
        (["admin", "grant", "Mei", "0", "--reason", "x"], "bad_amount"),
        (["admin", "grant", "Mei", "-1", "--reason", "x"], "insufficient_coins"),
        (["admin", "set-level", "Mei", "-3"], "bad_level"),
        (["admin", "ban", "Mei", "--reason", " "], "bad_reason"),
        (["admin", "mute", "Mei", "-5", "--reason", "x"], "bad_duration"),
        (["admin", "ban", "nobody", "--reason", "x"], "unknown_user"),
    ],
)
def test_a_bad_admin_request_exits_2_with_its_code(
    store: Store, capsys: pytest.CaptureFixture[str], argv: list[str], code: str
) -> None:
    store.create_user("Mei", "pw")
    status, _, err = _run(capsys, *argv, "--db", store.url)
    assert status == 2 and f"[{code}]" in err
    assert store.get_user_by_name("Mei").coins == 0


def test_audit_exits_1_while_a_round_is_left_escrowed(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    dealer = store.create_user("dealer", "pw", coins=1_000)
    bettor = store.create_user("bettor", "pw", coins=1_000)
    store.escrow_round(
        "r1", "t1", "s1", 1, dealer.user_id, [BetRecord(bettor.user_id, "tie", 1, 100, time.time())]
    )
    status, out, _ = _run(capsys, "audit", "--json", "--db", store.url)
    report = json.loads(out)
    assert status == 1 and report["ok"] is False and report["rounds"] == 1
    # With the servers running, a round escrowed a moment ago is being dealt.
    status, out, _ = _run(capsys, "audit", "--live", "--db", store.url)
    assert status == 0 and "1 rounds (1 in play)" in out
    store.void_unfinished()
    status, out, _ = _run(capsys, "audit", "--json", "--db", store.url)
    assert status == 0 and json.loads(out) == {
        "ok": True,
        "rounds": 1,
        "voided": 1,
        "in_play": 0,
        "void_reasons": {"crash": 1},
        "problems": [],
    }
    status, out, _ = _run(capsys, "audit", "--db", store.url)
    assert status == 0 and "1 voided (1 crash)" in out


def test_audit_exits_1_for_a_round_voided_because_its_payout_was_refused(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    dealer = store.create_user("dealer", "pw", coins=1_000)
    bettor = store.create_user("bettor", "pw", coins=1_000)
    store.escrow_round(
        "r1", "t1", "s1", 1, dealer.user_id, [BetRecord(bettor.user_id, "tie", 1, 100, time.time())]
    )
    store.void_round("r1", reason="settlement_refused")
    status, out, _ = _run(capsys, "audit", "--db", store.url)
    assert status == 1
    assert "round r1 at table t1 was voided: settlement_refused" in out


def test_history_prints_a_users_rounds_as_json(
    store: Store, capsys: pytest.CaptureFixture[str], settle_args: Callable[..., Any]
) -> None:
    dealer = store.create_user("dealer", "pw", coins=10_000)
    bettor = store.create_user("bettor", "pw", coins=10_000)
    bets = [BetRecord(bettor.user_id, "player", 1, 100, time.time())]
    store.escrow_round("r1", "t1", "s1", 1, dealer.user_id, bets)
    store.settle_round("r1", *settle_args(["9S", "2H", "KH", "3C"], dealer.user_id, bets))
    status, out, _ = _run(capsys, "history", "bettor", "--json", "--db", store.url)
    data = json.loads(out)
    assert status == 0 and data["user"]["coins"] == 10_099
    [r] = data["rounds"]
    assert (r["round_id"], r["outcome"]["winner"], r["deltas"][str(bettor.user_id)]) == (
        "r1",
        "player",
        99,
    )
    status, out, _ = _run(capsys, "history", "nobody", "--json", "--db", store.url)
    assert status == 2 and json.loads(out)["error"]["code"] == "unknown_user"


def test_the_cli_keeps_the_last_admin_and_decides_waiting_grants(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    from baccarat.store.approvals import GrantPolicy
    from baccarat.store.operators import Actor

    boss = store.create_user("boss", "password1")
    op1 = store.create_user("op1", "password1")
    status, _, err = _run(
        capsys, "admin", "set-role", "boss", "admin", "--reason", "first", "--db", store.url
    )
    assert status == 0 and "no server is running" in err
    store.set_role(op1.user_id, "operator", "hired")
    for argv in (("set-role", "boss", "player"), ("ban", "boss")):
        status, _, err = _run(capsys, "admin", *argv, "--reason", "oops", "--db", store.url)
        assert status == 2 and "[last_admin]" in err, err
    assert store.get_user(boss.user_id).role == "admin"
    assert store.get_user(boss.user_id).banned is None
    # An operator's grant to themselves waits; the CLI lists it and decides it.
    _, waiting = store.operator_grant(
        Actor("op1", op1.user_id), op1.user_id, 500, "pay day", GrantPolicy()
    )
    assert waiting is not None
    status, out, _ = _run(capsys, "admin", "grants", "--db", store.url)
    assert status == 0 and "op1" in out and "pay day" in out
    status, out, _ = _run(
        capsys, "admin", "approve", str(waiting.id), "--reason", "ok", "--db", store.url
    )
    assert status == 0 and "approved" in out
    assert store.balance(op1.user_id) == 500
    status, _, err = _run(
        capsys, "admin", "refuse", str(waiting.id), "--reason", "x", "--db", store.url
    )
    assert status == 2 and "[request_decided]" in err


def test_the_log_read_into_a_closed_pipe_ends_quietly(store: Store) -> None:
    import fcntl
    import subprocess
    import sys

    # A one-page pipe fills with a few dozen lines, so the writer meets the closed end.
    for n in range(60):
        store.create_user(f"u{n}", "password1", coins=1)
    proc = subprocess.Popen(
        [sys.executable, "-m", "baccarat", "admin", "log", "--limit", "60", "--db", store.url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    fcntl.fcntl(proc.stdout, fcntl.F_SETPIPE_SZ, 4096)
    proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    with proc.stderr:
        err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err

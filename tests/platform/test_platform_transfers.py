"""The transfer API, called as the platform calls it: once per id, signed, fresh; after each,
nothing is lost and the audit is clean. (The reference platform's own transfers, and
reconciling with it, are ``test_platform_wallet``'s.)"""

from __future__ import annotations

import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from platform_support import Stack, http


def _id() -> str:
    return f"t-{uuid.uuid4().hex}"


def test_the_same_transfer_id_twice_gives_the_first_answer_and_moves_coins_once(
    stack: Stack,
) -> None:
    stack.session("u1001")
    before = stack.balance("u1001")
    tid = _id()
    first = stack.transfer(tid, "u1001", 5_000)
    second = stack.transfer(tid, "u1001", 5_000)
    assert first.status == second.status == 200, (first.body, second.body)
    assert second.body == first.body
    assert second.headers.get("Idempotent-Replayed") == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert stack.balance("u1001") == before + 5_000
    looked_up = stack.signed("GET", f"/api/platform/transfers/{tid}")
    assert looked_up.body == first.body


def test_one_id_with_another_amount_is_refused(stack: Stack) -> None:
    stack.session("u1001")
    tid = _id()
    assert stack.transfer(tid, "u1001", 1_000).status == 200
    again = stack.transfer(tid, "u1001", 2_000)
    assert (again.status, again.body["error"]["code"]) == (409, "transfer_id_reused")


def test_concurrent_calls_with_one_id_move_coins_once(stack: Stack) -> None:
    stack.session("u1001")
    before = stack.balance("u1001")
    tid = _id()
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: stack.transfer(tid, "u1001", 700), range(8)))
    assert {a.status for a in answers} == {200}
    assert len({str(a.body) for a in answers}) == 1
    assert stack.balance("u1001") == before + 700
    stack.assert_sound(reconciled=False)


def test_concurrent_withdrawals_never_take_more_than_the_balance(stack: Stack) -> None:
    stack.session("u1001")
    have = stack.balance("u1001")
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: stack.transfer(_id(), "u1001", -(have // 3)), range(8)))
    done = [a for a in answers if a.status == 200]
    assert len(done) == 3
    assert {a.body["error"]["code"] for a in answers if a.status != 200} == {"insufficient_coins"}
    assert stack.balance("u1001") == have - 3 * (have // 3)


def test_a_call_with_a_bad_signature_moves_nothing(stack: Stack) -> None:
    stack.session("u1001")
    before = stack.balance("u1001")
    body = {"transfer_id": _id(), "user": "u1001", "amount": 1_000}
    answer = stack.signed("POST", "/api/platform/transfers", body, secret=b"not-the-secret-at-all")
    assert (answer.status, answer.body["error"]["code"]) == (401, "bad_signature")
    unsigned = http("POST", stack.game + "/api/platform/transfers", b"{}")
    assert (unsigned.status, unsigned.body["error"]["code"]) == (401, "bad_signature")
    assert stack.balance("u1001") == before


def test_a_call_signed_six_minutes_ago_moves_nothing(stack: Stack) -> None:
    stack.session("u1001")
    before = stack.balance("u1001")
    body = {"transfer_id": _id(), "user": "u1001", "amount": 1_000}
    answer = stack.signed("POST", "/api/platform/transfers", body, at=time.time() - 360)
    assert (answer.status, answer.body["error"]["code"]) == (401, "stale_timestamp")
    assert stack.balance("u1001") == before


def test_a_user_who_never_launched_gets_no_transfer(stack: Stack) -> None:
    answer = stack.transfer(_id(), "nobody-here", 1_000)
    assert (answer.status, answer.body["error"]["code"]) == (404, "unknown_user")


def test_an_unknown_transfer_id_is_not_found(stack: Stack) -> None:
    answer = stack.signed("GET", f"/api/platform/transfers/{_id()}")
    assert (answer.status, answer.body["error"]["code"]) == (404, "unknown_transfer")


def test_reconcile_names_every_transfer_the_platform_does_not_report(stack: Stack) -> None:
    stack.session("u1001")
    tid = _id()
    assert stack.transfer(tid, "u1001", 1_234).status == 200
    compared = stack.reconcile("--from", str(time.time() - 3600), "--json")
    assert compared.returncode == 1, compared.stderr
    found = {d["transfer_id"]: d for d in json.loads(compared.stdout)["differences"]}
    assert found[tid]["kind"] == "missing_at_platform"
    assert found[tid]["game"]["amount"] == 1_234
    stack.assert_sound(reconciled=False)

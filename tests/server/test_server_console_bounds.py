"""The operator's powers within bounds, over real HTTP: an operator acts on players only and
never on themselves, the last admin stays, grants above the bound or to oneself wait for a
second operator, and an operator's day has a cap."""

from __future__ import annotations

from typing import Any

import aiohttp
from server_live import ROOMS, Live, live_test
from test_server_console import call, console

BOUNDED: dict[str, Any] = {
    **ROOMS,
    "server": {**ROOMS["server"], "grant_approve_above": 10_000, "grant_daily_cap": 30_000},
}


@live_test()
async def test_an_operator_cannot_act_on_an_admin_nor_on_themselves(live: Live) -> None:
    admin = await console(live, "boss", "admin")
    oper = await console(live, "oper1", "operator")
    try:
        boss = live.store.user_id_of("boss")
        oper1 = live.store.user_id_of("oper1")
        logged = len(live.store.operator_log())
        for path, body, code in (
            (f"{boss}/ban", {"reason": "a coup"}, "outranked"),
            (f"{boss}/level", {"level": 1, "reason": "x"}, "outranked"),
            (f"{boss}/mute", {"seconds": 60, "reason": "x"}, "outranked"),
            (f"{boss}/grant", {"coins": 5, "reason": "x"}, "outranked"),
            (f"{boss}/stand", {"reason": "x"}, "outranked"),
            (f"{oper1}/level", {"level": 99, "reason": "me"}, "own_account"),
            (f"{oper1}/unban", {"reason": "me"}, "own_account"),
            (f"{oper1}/mute", {"seconds": 0, "reason": "me"}, "own_account"),
        ):
            status, got = await call(oper, "POST", f"{live.base}/api/admin/users/{path}", body)
            assert (status, got["error"]["code"]) == (409, code), path
            assert got["error"]["message"]
        # Nothing changed and nothing was logged; the admin's console still works.
        assert len(live.store.operator_log()) == logged
        assert live.store.get_user(boss).banned is None
        assert live.store.get_user(oper1).level == 50
        status, _ = await call(admin, "GET", f"{live.base}/api/admin/me")
        assert status == 200
        # The last admin: neither demoted (even by themselves) nor banned.
        role = f"{live.base}/api/admin/users/{boss}/role"
        status, got = await call(admin, "POST", role, {"role": "operator", "reason": "retire"})
        assert (status, got["error"]["code"]) == (409, "last_admin")
        assert live.store.get_user(boss).role == "admin"
        # With a second admin, the first may step down, and the operator is refused still.
        status, _ = await call(
            admin, "POST", f"{live.base}/api/admin/users/{oper1}/role",
            {"role": "admin", "reason": "promoted"},
        )  # fmt: skip
        assert status == 200
        status, got = await call(admin, "POST", role, {"role": "operator", "reason": "retire"})
        assert (status, got["user"]["role"]) == (200, "operator")
    finally:
        await admin.close()
        await oper.close()


@live_test(rooms=BOUNDED)
async def test_grants_above_the_bound_or_to_oneself_wait_for_a_second_operator(
    live: Live,
) -> None:
    first = await console(live, "oper1", "operator")
    second = await console(live, "oper2", "operator")
    try:
        punter, _ = await live.user("punter", coins=1_000)
        oper1 = live.store.user_id_of("oper1")
        users, grants = f"{live.base}/api/admin/users", f"{live.base}/api/admin/grants"
        # Up to the bound, a grant moves at once.
        status, got = await call(
            first, "POST", f"{users}/{punter.user_id}/grant", {"coins": 10_000, "reason": "ok"}
        )
        assert (status, got["user"]["coins"], got["request"]) == (200, 11_000, None)
        # To oneself, and above the bound: each waits, and no coin moves.
        status, mine = await call(
            first, "POST", f"{users}/{oper1}/grant", {"coins": 1_000, "reason": "pay day"}
        )
        assert (status, mine["request"]["why"], mine["user"]["coins"]) == (202, "self", 100_000)
        status, big = await call(
            first, "POST", f"{users}/{punter.user_id}/grant", {"coins": 15_000, "reason": "win"}
        )
        assert (status, big["request"]["why"], big["user"]["coins"]) == (202, "amount", 11_000)
        status, got = await call(second, "GET", grants)
        assert [r["id"] for r in got["requests"]] == [big["request"]["id"], mine["request"]["id"]]
        # The one who asked cannot decide; a second operator can, once, with a reason.
        mine_id, big_id = mine["request"]["id"], big["request"]["id"]
        status, got = await call(first, "POST", f"{grants}/{mine_id}/approve", {"reason": "me"})
        assert (status, got["error"]["code"]) == (409, "own_request")
        status, got = await call(second, "POST", f"{grants}/{mine_id}/approve", {})
        assert (status, got["error"]["code"]) == (400, "bad_reason")
        status, got = await call(
            second, "POST", f"{grants}/{mine_id}/refuse", {"reason": "not how pay works"}
        )
        assert (status, got["request"]["status"]) == (200, "refused")
        status, got = await call(second, "POST", f"{grants}/{big_id}/approve", {"reason": "seen"})
        assert (status, got["user"]["coins"], got["request"]["status"]) == (200, 26_000, "approved")
        status, got = await call(second, "POST", f"{grants}/{big_id}/approve", {"reason": "again"})
        assert (status, got["error"]["code"]) == (409, "request_decided")
        assert live.store.balance(punter.user_id) == 26_000
        assert live.store.balance(oper1) == 100_000
        # oper1 gave 25,000 today: 10,000 more passes the cap of 30,000.
        status, got = await call(
            first, "POST", f"{users}/{punter.user_id}/grant", {"coins": 6_000, "reason": "more"}
        )
        assert (status, got["error"]["code"]) == (409, "daily_cap")
        logged = [(e.action, e.actor) for e in live.store.operator_log()[:5]]
        assert logged == [
            ("grant_approved", "oper2"),
            ("grant", "oper1"),
            ("grant_refused", "oper2"),
            ("grant_requested", "oper1"),
            ("grant_requested", "oper1"),
        ]
        status, got = await call(second, "GET", f"{grants}?status=bogus")
        assert (status, got["error"]["code"]) == (400, "bad_status")
        status, got = await call(second, "POST", f"{grants}/999/approve", {"reason": "x"})
        assert (status, got["error"]["code"]) == (404, "unknown_request")
        assert live.store.audit().ok
    finally:
        await first.close()
        await second.close()


@live_test()
async def test_a_players_session_decides_no_grant(live: Live) -> None:
    _, token = await live.user("punter")
    async with aiohttp.ClientSession() as anon:
        for method, path in (("GET", "/api/admin/grants"), ("POST", "/api/admin/grants/1/approve")):
            status, got = await call(
                anon, method, live.base + path, {}, Authorization=f"Bearer {token}"
            )
            assert (status, got["error"]["code"]) == (403, "not_operator")

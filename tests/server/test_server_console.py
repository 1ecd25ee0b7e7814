"""The operator console's API over real HTTP and sockets: a password and a TOTP code log an
operator in; every action needs a reason, lands in the operator log with the ledger, and is
refused to a player; a banned user's socket closes and their login says why."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp
import pyotp
import pytest
from server_live import Live, auto_open, is_event, live_test

from baccarat.client import Client, CommandError
from baccarat.protocol.requests import Watch
from baccarat.store import epochs
from baccarat.store.operators import Actor

JSON = {"Content-Type": "application/json"}


async def call(
    http: aiohttp.ClientSession, method: str, url: str, body: Any = None, **headers: str
) -> tuple[int, dict[str, Any]]:
    """One request; its status and JSON body."""
    async with http.request(method, url, json=body, headers=headers) as resp:
        return resp.status, await resp.json()


async def console(live: Live, name: str = "boss", role: str = "operator") -> aiohttp.ClientSession:
    """An HTTP session logged in to the console as a new operator (enrolled on the way)."""
    user, _ = await live.user(name)
    live.store.set_role(user.user_id, role, "a test operator")
    # (a jar that keeps cookies of an address such as 127.0.0.1, as a browser does)
    http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
    try:
        login = f"{live.base}/api/admin/login"
        creds = {"username": name, "password": "password1"}
        status, body = await call(http, "POST", login, creds)
        assert (status, body["error"]["code"]) == (401, "totp_enrol")
        enrol = body["error"]["details"]
        assert enrol["uri"].startswith("otpauth://totp/")
        assert enrol["qr"].startswith("data:image/svg")
        code = pyotp.TOTP(enrol["secret"]).now()
        status, body = await call(http, "POST", login, {**creds, "code": code})
        assert status == 200 and body["operator"]["role"] == role
    except BaseException:
        await http.close()
        raise
    return http


async def betting_at_t1(live: Live) -> tuple[Client, Client]:
    """A dealer and a bettor (who opens the cards they control) at t1, betting open and held
    (0.8 s at this speed) until the test lets it go (``release``)."""
    dealer = await live.client("dealer", 1_000_000)
    bettor = await live.client("bettor", 50_000)
    auto_open(bettor)
    live.server.drivers["t1"].hold.at("betting")
    # The dealer sits last, so the bettor sees the first betting open.
    await bettor.sit("t1", 1)
    await dealer.sit("t1", 0)
    await bettor.wait_for(is_event("betting_opened"), 20)
    return dealer, bettor


def release(live: Live) -> None:
    """Let t1's held betting run out."""
    live.server.drivers["t1"].hold.at(None)


@live_test()
async def test_an_operator_logs_in_with_a_code_and_a_player_is_refused_everywhere(
    live: Live,
) -> None:
    http = await console(live)
    try:
        status, body = await call(http, "GET", f"{live.base}/api/admin/me")
        assert (status, body["operator"]["username"]) == (200, "boss")
        # Once enrolled, the password alone is not enough, a wrong code is refused, and
        # logins are limited as the game's are (3 a minute for a name from one address).
        user, _ = await live.user("night")
        live.store.set_role(user.user_id, "operator", "a second operator")
        secret = pyotp.random_base32()
        live.store.set_totp(user.user_id, secret, enrolled=True)
        async with aiohttp.ClientSession() as other:
            creds = {"username": "night", "password": "password1"}
            login = f"{live.base}/api/admin/login"
            status, body = await call(other, "POST", login, {**creds, "code": "12ab"})
            assert (status, body["error"]["code"]) == (400, "bad_code")
            # No code, a wrong code and a wrong password read the same.
            wrong = f"{(int(pyotp.TOTP(secret).now()) + 500_000) % 1_000_000:06d}"
            answers = [
                await call(other, "POST", login, creds),
                await call(other, "POST", login, {**creds, "code": wrong}),
            ]
            assert {(status, body["error"]["code"]) for status, body in answers} == {
                (401, "bad_credentials")
            }
            good = {**creds, "code": pyotp.TOTP(secret).now()}
            status, body = await call(other, "POST", login, good)
            assert status == 200
            token = body["token"]
            status, body = await call(other, "POST", login, good)
            assert (status, body["error"]["code"]) == (429, "rate_limited")
        # A code is good once (RFC 6238): played again, it is refused.
        user, _ = await live.user("replay")
        live.store.set_role(user.user_id, "operator", "a third operator")
        live.store.set_totp(user.user_id, secret, enrolled=True)
        async with aiohttp.ClientSession() as other:
            once = {"username": "replay", "password": "password1"}
            once["code"] = pyotp.TOTP(secret).now()
            status, body = await call(other, "POST", f"{live.base}/api/admin/login", once)
            assert status == 200
            status, body = await call(other, "POST", f"{live.base}/api/admin/login", once)
            assert (status, body["error"]["code"]) == (401, "bad_credentials")
        # The console's token works as a header too, for scripts.
        async with aiohttp.ClientSession() as script:
            me = f"{live.base}/api/admin/me"
            status, body = await call(script, "GET", me, Authorization=f"Console {token}")
            assert (status, body["operator"]["username"]) == (200, "night")
    finally:
        await http.close()
    # A player's game token opens nothing under /api/admin, and logs in to nothing.
    player, token = await live.user("punter")
    bearer = {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession() as anon:
        routes = [
            ("GET", "/api/admin/me"),
            ("GET", "/api/admin/tables"),
            ("GET", "/api/admin/users?q=p"),
            ("GET", f"/api/admin/users/{player.user_id}"),
            ("GET", "/api/admin/log"),
            ("GET", "/api/admin/rounds/r1"),
            ("GET", "/api/admin/nothing/here"),
            ("POST", "/api/admin/audit"),
            ("POST", f"/api/admin/users/{player.user_id}/grant"),
            ("POST", f"/api/admin/users/{player.user_id}/role"),
        ]
        for method, path in routes:
            status, body = await call(anon, method, live.base + path, {}, **bearer)
            assert (status, body["error"]["code"]) == (403, "not_operator"), path
            status, body = await call(anon, method, live.base + path, {})
            assert (status, body["error"]["code"]) == (401, "console_login"), path
        creds = {"username": "punter", "password": "password1"}
        status, body = await call(anon, "POST", f"{live.base}/api/admin/login", creds)
        assert (status, body["error"]["code"]) == (403, "not_operator")
    assert live.store.get_user(player.user_id).coins == 100_000


@live_test()
async def test_a_grant_reaches_the_table_the_ledger_and_the_log(live: Live) -> None:
    http = await console(live)
    try:
        dealer = await live.client("dealer", 1_000_000)
        bettor = await live.client("bettor", 10_000)
        await dealer.sit("t1", 0)
        await bettor.sit("t1", 1)
        url = f"{live.base}/api/admin/users/{bettor.user_id}/grant"
        status, body = await call(http, "POST", url, {"coins": 2_500, "reason": "goodwill"})
        assert (status, body["user"]["coins"]) == (200, 12_500)
        # The table the bettor sits at believes the ledger at once.
        await bettor.wait_for(
            lambda m: is_event("coins_set")(m) and m["data"]["coins"] == 12_500, 10
        )
        for bad, code in (
            ({"coins": 5}, "bad_reason"),
            ({"coins": "5", "reason": "x"}, "bad_coins"),
            ({"coins": 0, "reason": "x"}, "bad_amount"),
            ({"coins": -99_999, "reason": "x"}, "insufficient_coins"),
            ({"coins": 10**13, "reason": "x"}, "bad_amount"),
            ({"coins": 10**30, "reason": "x"}, "bad_amount"),
            ({"coins": 5, "reason": "line\x00break"}, "bad_reason"),
            ({"coins": 5, "reason": "\ud800"}, "bad_reason"),
            ({"coins": 5, "reason": "x" * 501}, "bad_reason"),
        ):
            status, body = await call(http, "POST", url, bad)
            assert (status // 100, body["error"]["code"]) == (4, code), bad
        level = f"{live.base}/api/admin/users/{bettor.user_id}/level"
        for bad, code in (({"level": 10**12, "reason": "x"}, "bad_level"),
                          ({"level": True, "reason": "x"}, "bad_level")):  # fmt: skip
            status, body = await call(http, "POST", level, bad)
            assert (status, body["error"]["code"]) == (400, code), bad
        for query in ("q=a%00b", "q=" + "a" * 65):
            status, body = await call(http, "GET", f"{live.base}/api/admin/users?{query}")
            assert (status, body["error"]["code"]) == (400, "bad_query")
        status, body = await call(http, "GET", f"{live.base}/api/admin/log?actor=%00")
        assert (status, body["error"]["code"]) == (400, "bad_query")
        status, body = await call(http, "POST", url, "[]")
        assert body["error"]["code"] == "bad_request"
        # A cross-site post is refused before anything is read.
        status, body = await call(
            http, "POST", url, {"coins": 1, "reason": "x"}, Origin="https://evil.example"
        )
        assert status == 403
        status, body = await call(http, "GET", f"{live.base}/api/admin/users/{bettor.user_id}")
        assert status == 200 and body["user"]["coins"] == 12_500
        assert body["seat"] == {"table_id": "t1", "seat": 1, "here": True, "url": None}
        assert body["online"]
        assert body["sessions"] == 1 and body["last_login"] <= time.time()
        assert body["ledger"][0]["kind"] == "grant" and body["ledger"][0]["amount"] == 2_500
        [entry] = [e for e in body["log"] if e["action"] == "grant" and e["actor"] == "boss"]
        assert (entry["reason"], entry["before"], entry["after"]) == (
            "goodwill",
            {"coins": 10_000},
            {"coins": 12_500},
        )
        status, body = await call(http, "POST", f"{live.base}/api/admin/audit", {})
        assert (status, body["ok"], body["problems"]) == (200, True, [])
        status, body = await call(http, "GET", f"{live.base}/api/admin/log?action=audit")
        assert [e["actor"] for e in body["log"]] == ["boss"]
        for _ in range(50):
            # (the lobby's lines follow the tables once a tick)
            status, body = await call(http, "GET", f"{live.base}/api/admin/tables")
            t1 = next(t for t in body["tables"] if t["table_id"] == "t1")
            if t1["taken"] == 2:
                break
            await asyncio.sleep(0.1)
        assert t1["here"] and t1["taken"] == 2 and t1["escrow"] == 0
        status, body = await call(http, "GET", f"{live.base}/api/admin/users?q=BETT")
        assert [u["username"] for u in body["users"]] == ["bettor"]
        await dealer.close()
        await bettor.close()
    finally:
        await http.close()


@live_test()
async def test_a_ban_closes_the_socket_and_the_login_says_why(live: Live) -> None:
    http = await console(live)
    try:
        user, token = await live.user("cheat")
        client = await Client.connect(live.base, token)
        # A second socket of the same user (another tab) goes with the ban too.
        other_tab = await Client.connect(live.base, token)
        url = f"{live.base}/api/admin/users/{user.user_id}"
        status, body = await call(http, "POST", f"{url}/mute", {"seconds": 600, "reason": "spam"})
        assert status == 200 and body["user"]["muted_until"] is not None
        await client.send(Watch("t1"))
        await client.sit("t1", 3)
        try:
            await client.say("buy coins at example.com")
            raise AssertionError("a muted user chatted")
        except CommandError as exc:
            assert exc.code == "muted"
        status, body = await call(http, "POST", f"{url}/ban", {"reason": "sold coins"})
        assert status == 200 and body["user"]["banned"] == "sold coins"
        while await client.next_message(timeout=10) is not None:
            pass
        assert client.close_code == 4003
        while await other_tab.next_message(timeout=10) is not None:
            pass
        assert other_tab.close_code == 4003
        await client.close()
        await other_tab.close()
        async with aiohttp.ClientSession() as anon:
            creds = {"username": "cheat", "password": "password1"}
            status, body = await call(anon, "POST", f"{live.base}/api/login", creds)
            assert (status, body["error"]["code"]) == (403, "banned")
            assert body["error"]["details"]["reason"] == "sold coins"
            status, _ = await call(
                anon, "GET", f"{live.base}/api/me", Authorization=f"Bearer {token}"
            )
            assert status == 401
        status, body = await call(http, "POST", f"{url}/unban", {"reason": "appeal"})
        assert status == 200 and body["user"]["banned"] is None
        actions = [e.action for e in live.store.operator_log(target=f"user:{user.user_id}")]
        assert actions[:3] == ["unban", "ban", "mute"]
        # Roles are for admins: an operator is refused, and nothing changes.
        status, body = await call(http, "POST", f"{url}/role", {"role": "admin", "reason": "x"})
        assert (status, body["error"]["code"]) == (403, "not_admin")
        assert live.store.get_user(user.user_id).role == "player"
    finally:
        await http.close()
    admin = await console(live, "chief", "admin")
    try:
        url = f"{live.base}/api/admin/users/{user.user_id}/role"
        status, body = await call(admin, "POST", url, {"role": "operator", "reason": "hired"})
        assert (status, body["user"]["role"]) == (200, "operator")
        status, body = await call(admin, "POST", url, {"role": "god", "reason": "x"})
        assert (status, body["error"]["code"]) == (400, "bad_role")
    finally:
        await admin.close()
    assert live.store.operator_log(action="set_role")[0].actor == "chief"
    assert Actor("chief").user_id is None


@live_test()
async def test_a_table_closed_after_its_round_plays_it_out_and_reopens(live: Live) -> None:
    http = await console(live)
    try:
        dealer, bettor = await betting_at_t1(live)
        await bettor.bet("player", 5)
        url = f"{live.base}/api/admin/tables/t1"
        # Watched from the console: the table as a spectator sees it, and the dealer's book.
        status, body = await call(http, "GET", url)
        assert status == 200 and body["view"]["me"]["role"] == "spectator"
        assert body["view"]["seats"][1]["bets"] == {"player": 5}
        assert body["book"]["totals"]["player"]["coins"] == 500
        assert body["book"]["exposure"]["if_player_wins"] == -500
        status, body = await call(http, "GET", f"{live.base}/api/admin/tables/t9")
        assert (status, body["error"]["code"]) == (404, "unknown_table")
        status, body = await call(http, "POST", f"{url}/close", {"reason": "維護"})
        assert (status, body["suspended"]) == (200, "維護")
        release(live)
        closed = await bettor.wait_for(is_event("table_suspended"), 5)
        assert closed["data"] == {"reason": "維護"}
        # The round in play is dealt and settled as usual; then no betting opens.
        await bettor.wait_for(is_event("round_settled"), 30)
        # (2 s: many times the test server's result phase and a new round's start)
        with pytest.raises(TimeoutError):
            await bettor.wait_for(is_event("betting_opened"), 2.0)
        newcomer = await live.client("newcomer")
        try:
            await newcomer.sit("t1", 2)
            raise AssertionError("a newcomer sat at a closed table")
        except CommandError as exc:
            assert exc.code == "table_suspended"
        status, body = await call(http, "POST", f"{url}/close", {"reason": "again"})
        assert (status, body["error"]["code"]) == (409, "table_suspended")
        for bad, code in (({}, "bad_reason"), ({"reason": "  "}, "bad_reason")):
            status, body = await call(http, "POST", f"{url}/open", bad)
            assert (status, body["error"]["code"]) == (400, code)
        status, body = await call(
            http, "POST", f"{live.base}/api/admin/tables/t9/open", {"reason": "x"}
        )
        assert (status, body["error"]["code"]) == (404, "unknown_table")
        # Kept in the database: the node that takes the table next keeps it closed.
        with live.store.engine.connect() as conn:
            assert epochs.suspended_of(conn, "t1") == "維護"
        status, body = await call(http, "POST", f"{url}/open", {"reason": "done"})
        assert (status, body["suspended"]) == (200, None)
        await bettor.wait_for(is_event("betting_opened"), 10)
        logged = [(e.action, e.before, e.after) for e in live.store.operator_log(target="table:t1")]
        assert logged == [
            ("open_table", {"suspended": "維護"}, {"suspended": None}),
            ("close_table", {"suspended": None}, {"suspended": "維護"}),
        ]
        for client in (dealer, bettor, newcomer):
            await client.close()
    finally:
        await http.close()
    assert live.store.audit().ok


@live_test()
async def test_a_notice_reaches_a_tables_players_or_everyone_and_is_logged(live: Live) -> None:
    http = await console(live)
    try:
        at_table = await live.client("seated")
        await at_table.sit("t1", 1)
        in_lobby = await live.client("browsing")
        url = f"{live.base}/api/admin/notices"
        text = {"zh-TW": "十點維護", "en": "Maintenance at ten"}
        status, body = await call(
            http, "POST", url, {"table_id": "t1", "text": text, "reason": "r"}
        )
        assert (status, body["reached"]) == (200, 1)
        got = await at_table.wait_for(lambda m: m.get("type") == "notice", 5)
        assert got == {"type": "notice", "table_id": "t1", "text": text}
        status, body = await call(http, "POST", url, {"text": {"en": "Welcome"}, "reason": "r"})
        assert (status, body["reached"]) == (200, 2)
        got = await in_lobby.wait_for(lambda m: m.get("type") == "notice", 5)
        assert got == {"type": "notice", "table_id": None, "text": {"en": "Welcome"}}
        for bad, code in (
            ({"text": {"fr": "Bonjour"}, "reason": "r"}, "bad_notice"),
            ({"text": {"en": "  "}, "reason": "r"}, "bad_notice"),
            ({"text": {"en": "x" * 201}, "reason": "r"}, "bad_notice"),
            ({"text": {"en": "a\x00b"}, "reason": "r"}, "bad_notice"),
            ({"text": {"en": "hi"}}, "bad_reason"),
            ({"text": {"en": "hi"}, "table_id": "t9", "reason": "r"}, "unknown_table"),
            ({"text": {"en": "hi"}, "table_id": ["t1"], "reason": "r"}, "bad_table_id"),
        ):
            status, body = await call(http, "POST", url, bad)
            assert body["error"]["code"] == code, bad
        logged = [(e.target, e.after["reached"]) for e in live.store.operator_log(action="notice")]
        assert logged == [("lobby", 2), ("table:t1", 1)]
        await at_table.close()
        await in_lobby.close()
    finally:
        await http.close()


@live_test()
async def test_a_played_rounds_record_has_its_cards_bets_and_settlement(live: Live) -> None:
    http = await console(live)
    try:
        dealer, bettor = await betting_at_t1(live)
        await bettor.bet("banker", 3)
        await bettor.bet("tie", 1)
        release(live)
        settled = await bettor.wait_for(is_event("round_settled"), 30)
        await asyncio.sleep(0.3)
        rid = settled["data"]["round_id"]
        status, body = await call(http, "GET", f"{live.base}/api/admin/rounds/{rid}")
        assert status == 200
        stored = live.store.get_round(rid)
        record = body["round"]
        assert record["cards"] == stored.cards and len(record["cards"]) >= 4
        bets = {(b["user_id"], b["area"], b["coins"]) for b in record["bets"]}
        assert bets == {(bettor.user_id, "banker", 300), (bettor.user_id, "tie", 100)}
        assert record["deltas"] == {str(k): v for k, v in stored.deltas.items()}
        assert body["shoe"]["commitment"] and body["shoe"]["seed"] is None
        for bad in ("nope", "%00"):
            status, body = await call(http, "GET", f"{live.base}/api/admin/rounds/{bad}")
            assert (status, body["error"]["code"]) == (404, "unknown_round")
        await dealer.close()
        await bettor.close()
    finally:
        await http.close()


@live_test()
async def test_an_operators_actions_are_rate_limited(live: Live) -> None:
    http = await console(live)
    try:
        url = f"{live.base}/api/admin/notices"
        body = {"text": {"en": "hello"}, "reason": "a test"}
        answers = [(await call(http, "POST", url, body))[0] for _ in range(61)]
        assert answers == [200] * 60 + [429]
        status, got = await call(http, "POST", url, body)
        assert (status, got["error"]["code"]) == (429, "rate_limited")
        # Reading goes on; only actions count.
        status, _ = await call(http, "GET", f"{live.base}/api/admin/log?action=notice")
        assert status == 200
        assert len(live.store.operator_log(action="notice")) == 60
    finally:
        await http.close()


@live_test()
async def test_taking_back_the_coins_a_bettor_has_on_the_table_is_refused(live: Live) -> None:
    http = await console(live)
    try:
        dealer, bettor = await betting_at_t1(live)
        await bettor.bet("player", 5)  # 500 coins on the table
        release(live)
        url = f"{live.base}/api/admin/users/{bettor.user_id}/grant"
        status, body = await call(http, "POST", url, {"coins": -49_800, "reason": "x"})
        assert (status, body["error"]["code"]) == (409, "coins_below_stake")
        assert live.store.balance(bettor.user_id) == 50_000
        status, body = await call(http, "POST", url, {"coins": -49_500, "reason": "leaves 500"})
        assert status == 200
        await bettor.wait_for(is_event("round_settled"), 30)
        await asyncio.sleep(0.3)
        assert live.store.audit().ok, live.store.audit().problems
        await dealer.close()
        await bettor.close()
    finally:
        await http.close()

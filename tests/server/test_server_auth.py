"""Accounts over HTTP and who may open a socket."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest
from http_from import login_from, post
from server_live import ROOMS, Live, live_test

from baccarat.api import HttpError, login, register
from baccarat.client import Client, ws_url


@live_test()
async def test_register_sets_an_httponly_lax_cookie_and_returns_a_token(live: Live) -> None:
    # unsafe=True: aiohttp's jar, unlike a browser, keeps no cookie for a bare IP otherwise.
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        resp = await http.post(
            live.base + "/api/register", json={"username": "newbie", "password": "secret12"}
        )
        assert resp.status == 201
        body = await resp.json()
        cookie = resp.headers["Set-Cookie"]
        assert "baccarat_session=" in cookie
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
        # The configured starting balance and level.
        assert body["user"]["coins"] == ROOMS["server"]["start_coins"]
        assert body["user"]["level"] == 50
        me = await http.get(live.base + "/api/me")
        assert me.status == 200
        assert (await me.json())["user"]["name"] == "newbie"
        # The browser's socket logs in with the cookie alone.
        ws = await http.ws_connect(ws_url(live.base), origin=live.base)
        hello = await ws.receive_json()
        assert (hello["type"], hello["user"]["name"]) == ("hello", "newbie")
        await ws.close()
    assert body["token"]


@live_test()
async def test_login_logout_and_me(live: Live) -> None:
    await live.user("alice")
    token = await login(live.base, "alice", "password1")
    headers = {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession() as http:
        me = await http.get(live.base + "/api/me", headers=headers)
        assert (await me.json())["user"]["name"] == "alice"
        out = await http.post(live.base + "/api/logout", headers=headers)
        assert out.status == 200
        again = await http.get(live.base + "/api/me", headers=headers)
        assert again.status == 401
        assert (await again.json())["error"]["code"] == "not_authenticated"


@live_test()
async def test_wrong_password_is_refused(live: Live) -> None:
    await live.user("alice")
    with pytest.raises(HttpError) as err:
        await login(live.base, "alice", "not-it")
    assert (err.value.status, err.value.code) == (401, "bad_credentials")


@live_test()
async def test_login_is_rate_limited_per_username(live: Live) -> None:
    await live.user("alice")
    limit = ROOMS["server"]["login_attempts"]
    for _ in range(limit):
        with pytest.raises(HttpError):
            await login(live.base, "alice", "guess")
    # Over the limit even the right password is refused, with its own code.
    with pytest.raises(HttpError) as err:
        await login(live.base, "alice", "password1")
    assert (err.value.status, err.value.code) == (429, "rate_limited")
    # Another name from the same address still gets in.
    await live.user("bob")
    assert await login(live.base, "bob", "password1")


@live_test()
async def test_a_taken_name_cannot_register_twice(live: Live) -> None:
    await register(live.base, "alice", "secret12")
    with pytest.raises(HttpError) as err:
        await register(live.base, "alice", "secret34")
    assert (err.value.status, err.value.code) == (409, "name_taken")


@live_test(allow_register=False)
async def test_registration_can_be_closed(live: Live) -> None:
    with pytest.raises(HttpError) as err:
        await register(live.base, "alice", "secret12")
    assert (err.value.status, err.value.code) == (403, "registration_closed")


@live_test()
async def test_an_unauthenticated_socket_is_refused(live: Live) -> None:
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.WSServerHandshakeError) as err:
            await http.ws_connect(ws_url(live.base))
        assert err.value.status == 401
        with pytest.raises(aiohttp.WSServerHandshakeError) as err:
            await http.ws_connect(ws_url(live.base) + "?token=forged")
        assert err.value.status == 401


@live_test()
async def test_a_foreign_origin_is_refused_and_the_own_origin_accepted(live: Live) -> None:
    _, token = await live.user("alice")
    with pytest.raises(aiohttp.WSServerHandshakeError) as err:
        await Client.connect(live.base, token, origin="https://evil.example")
    assert err.value.status == 403
    client = await Client.connect(live.base, token, origin=live.base)
    assert client.hello["user"]["name"] == "alice"
    await client.close()


@live_test(origins=("https://cards.example",))
async def test_an_extra_origin_can_be_allowed(live: Live) -> None:
    _, token = await live.user("alice")
    client = await Client.connect(live.base, token, origin="https://cards.example")
    assert client.hello["v"] == 1
    await client.close()


@live_test()
async def test_the_socket_acts_as_its_session_user_and_closes_on_logout(live: Live) -> None:
    user, token = await live.user("alice")
    client = await Client.connect(live.base, token)
    assert client.user_id == user.user_id
    async with aiohttp.ClientSession() as http:
        await http.post(live.base + "/api/logout", headers={"Authorization": f"Bearer {token}"})
    assert await client.next_message(timeout=10) is None
    assert client.close_code == 4001
    await client.close()


@live_test()
async def test_healthz_metrics_and_static_client(live: Live) -> None:
    async with aiohttp.ClientSession() as http:
        health = await http.get(live.base + "/healthz")
        assert health.status == 200
        body = await health.json()
        assert body["ok"] and body["db"] and body["tables"] == 2
        index = await http.get(live.base + "/")
        assert index.status == 200
        assert "html" in (await index.text()).lower()
        escape = await http.get(live.base + "/..%2f..%2fpyproject.toml")
        assert escape.status == 404


@live_test()
async def test_every_form_of_a_name_counts_against_one_login_limit(live: Live) -> None:
    # The limit and the lookup share one canonical form: "ſam" (long s) and "ｓａｍ" (full
    # width) are "sam", so they neither escape the limit nor reach another account.
    await live.user("sam")
    for _ in range(ROOMS["server"]["login_attempts"]):
        assert (await login_from(live.base, "sam", "guess")).status == 401
    for typed in ("ſam", "ｓａｍ", "SAM"):
        answer = await login_from(live.base, typed, "password1")
        assert (answer.status, answer.code) == (429, "rate_limited")
        assert int(answer.headers["Retry-After"]) >= 1


@live_test()
async def test_a_name_in_another_form_logs_into_the_same_account(live: Live) -> None:
    await live.user("sam")
    answer = await login_from(live.base, "ſam", "password1")
    assert answer.status == 200
    assert answer.body["user"]["name"] == "sam"


@live_test()
async def test_a_cross_site_login_is_refused_and_sets_no_cookie(live: Live) -> None:
    await live.user("alice")
    body = b'{"username": "alice", "password": "password1"}'
    for content_type in ("text/plain", "application/json", "application/x-www-form-urlencoded"):
        answer = await post(
            live.base,
            "/api/login",
            None,
            raw=body,
            headers={"Content-Type": content_type, "Origin": "http://evil.example"},
        )
        assert (answer.status, answer.code) == (403, "bad_origin")
        assert "Set-Cookie" not in answer.headers


@live_test()
async def test_a_login_that_is_not_json_is_refused_with_415(live: Live) -> None:
    # A form on any site can send text/plain without a preflight: only JSON logs in.
    await live.user("alice")
    body = b'{"username": "alice", "password": "password1"}'
    for content_type in (
        "text/plain",
        "multipart/form-data; boundary=x",
        "application/x-www-form-urlencoded",
    ):
        answer = await post(
            live.base, "/api/login", None, raw=body, headers={"Content-Type": content_type}
        )
        assert (answer.status, answer.code) == (415, "unsupported_media_type")
        assert "application/json" in answer.body["error"]["message"]
        assert "Set-Cookie" not in answer.headers


@live_test()
async def test_a_cross_site_urlencoded_registration_creates_nobody(live: Live) -> None:
    raw = b"username=mallory&password=secret12"
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    answer = await post(
        live.base, "/api/register", None, raw=raw, headers={**form, "Origin": "http://evil.example"}
    )
    assert (answer.status, answer.code) == (403, "bad_origin")
    answer = await post(live.base, "/api/register", None, raw=raw, headers=form)
    assert (answer.status, answer.code) == (415, "unsupported_media_type")
    assert live.store.list_users() == []


@live_test(origins=("https://cards.example",))
async def test_the_own_origin_and_an_allowed_origin_may_log_in(live: Live) -> None:
    await live.user("alice")
    body = {"username": "alice", "password": "password1"}
    for origin in (live.base, "https://cards.example"):
        answer = await post(live.base, "/api/login", body, headers={"Origin": origin})
        assert answer.status == 200, answer.body
        assert "baccarat_session=" in answer.headers["Set-Cookie"]
    answer = await post(live.base, "/api/login", body, headers={"Origin": "null"})
    assert (answer.status, answer.code) == (403, "bad_origin")


@live_test()
async def test_a_cross_site_logout_is_refused(live: Live) -> None:
    _, token = await live.user("alice")
    answer = await post(
        live.base,
        "/api/logout",
        {},
        headers={"Authorization": f"Bearer {token}", "Origin": "http://evil.example"},
    )
    assert (answer.status, answer.code) == (403, "bad_origin")
    assert live.store.user_for_session(token) is not None


@pytest.mark.parametrize(
    ("display", "code"),
    [
        ("<img src=x onerror=alert(1)>", "bad_display_name"),
        ("ali\u202ece", "bad_display_name"),
        ("ali\u200bce", "bad_display_name"),
        ("ali\nce", "bad_display_name"),
        ("ALICE", "display_name_taken"),
        ("ａｌｉｃｅ", "display_name_taken"),
    ],
)
def test_a_display_name_that_is_hostile_or_copies_another_is_refused(
    tmp_path: Path, display: str, code: str
) -> None:
    @live_test()
    async def check(live: Live) -> None:
        await live.user("alice")
        body = {"username": "mallory", "password": "secret12", "display_name": display}
        answer = await post(live.base, "/api/register", body)
        assert answer.code == code
        assert answer.status == (409 if code == "display_name_taken" else 400)
        assert answer.body["error"]["message"]
        assert [u.username for u in live.store.list_users()] == ["alice"]

    check(tmp_path)


@live_test()
async def test_a_display_name_is_stored_normalised_and_shown_to_the_table(live: Live) -> None:
    body = {"username": "mei", "password": "secret12", "display_name": "  Mei\u3000 Lin "}
    answer = await post(live.base, "/api/register", body)
    assert answer.status == 201
    assert answer.body["user"]["display_name"] == "Mei Lin"


@live_test()
async def test_metrics_are_not_served_on_the_public_listener_by_default(live: Live) -> None:
    async with aiohttp.ClientSession() as http:
        resp = await http.get(live.base + "/metrics")
        assert resp.status == 404
        body = await resp.json()
        assert body["error"]["code"] == "not_found"
        assert "baccarat_" not in await resp.text()


@live_test(metrics_token="s3cret-token")
async def test_metrics_answer_the_operators_token_only(live: Live) -> None:
    async with aiohttp.ClientSession() as http:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret-token"}):
            resp = await http.get(live.base + "/metrics", headers=headers)
            assert resp.status == 401
            assert (await resp.json())["error"]["code"] == "not_authenticated"
            assert resp.headers["WWW-Authenticate"].startswith("Bearer")
        resp = await http.get(
            live.base + "/metrics", headers={"Authorization": "Bearer s3cret-token"}
        )
        assert resp.status == 200
        metrics = await resp.text()
        assert "baccarat_tables_running 2.0" in metrics
        assert "baccarat_password_jobs 0.0" in metrics
        # The ledger's commits and the writes they carried, as the store counts them.
        await live.user("granted", coins=100)
        await asyncio.to_thread(live.store.grant, "granted", 50, "a test grant")
        commits, writes = live.store.commits, live.store.writes
        assert commits >= 1 and writes >= commits
        resp = await http.get(
            live.base + "/metrics", headers={"Authorization": "Bearer s3cret-token"}
        )
        metrics = await resp.text()
        assert f"baccarat_ledger_commits_total {float(commits)}" in metrics
        assert f"baccarat_ledger_writes_total {float(writes)}" in metrics


@live_test()
async def test_the_operators_metrics_listener_serves_metrics(live: Live) -> None:
    from aiohttp.test_utils import TestServer

    from baccarat.server.http.routes import create_metrics_app

    own = TestServer(create_metrics_app(live.server), host="127.0.0.1", port=0)
    await own.start_server()
    try:
        async with aiohttp.ClientSession() as http:
            resp = await http.get(str(own.make_url("/metrics")))
            assert resp.status == 200
            assert "baccarat_clients_connected" in await resp.text()
            other = await http.get(str(own.make_url("/api/lobby")))
            assert other.status == 404
    finally:
        await own.close()

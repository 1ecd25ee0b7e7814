"""Accounts over HTTP and who may open a socket."""

from __future__ import annotations

import aiohttp
import pytest
from server_live import ROOMS, Live, live_test

from baccarat.client import Client, HttpError, login, register, ws_url


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
        metrics = await (await http.get(live.base + "/metrics")).text()
        assert "baccarat_tables_running 2.0" in metrics
        assert "baccarat_clients_connected" in metrics
        index = await http.get(live.base + "/")
        assert index.status == 200
        assert "html" in (await index.text()).lower()
        escape = await http.get(live.base + "/..%2f..%2fpyproject.toml")
        assert escape.status == 404

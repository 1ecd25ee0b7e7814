"""Tickets to another node: single use, short lived, never a session, no open redirect."""

from __future__ import annotations

import aiohttp
from server_live import Live, live_test

from baccarat.server.http.auth import COOKIE


async def _ticket(live: Live, token: str) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            live.base + "/api/ticket", json={}, headers={"Authorization": f"Bearer {token}"}
        ) as resp,
    ):
        assert resp.status == 200
        return str((await resp.json())["ticket"])


async def _enter(live: Live, ticket: str, next_path: str) -> tuple[int, str, str | None]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(
            live.base + "/api/enter",
            params={"ticket": ticket, "next": next_path},
            allow_redirects=False,
        ) as resp,
    ):
        cookie = resp.cookies.get(COOKIE)
        return resp.status, resp.headers["Location"], None if cookie is None else cookie.value


@live_test()
async def test_a_ticket_logs_a_browser_in_once_and_sends_it_on(live: Live) -> None:
    user, token = await live.user("nina")
    ticket = await _ticket(live, token)
    # A ticket is not a session.
    assert live.store.user_for_session(ticket) is None
    status, where, session = await _enter(live, ticket, "/?entered=1#/table/t1")
    assert (status, where) == (303, "/?entered=1#/table/t1")
    assert session is not None
    found = live.store.user_for_session(session)
    assert found is not None and found.user_id == user.user_id
    # Used up: the second time it logs nobody in.
    status, where, session = await _enter(live, ticket, "/#/table/t1")
    assert (status, where, session) == (303, "/", None)


@live_test()
async def test_a_ticket_never_sends_the_browser_to_another_site(live: Live) -> None:
    _, token = await live.user("omar")
    for bad in ("https://evil.example/", "//evil.example/", "/\\evil.example"):
        status, where, session = await _enter(live, await _ticket(live, token), bad)
        assert (status, where) == (303, "/")
        assert session is not None


@live_test()
async def test_an_unknown_or_expired_ticket_logs_nobody_in(live: Live) -> None:
    user, _ = await live.user("pia")
    expired = live.store.create_ticket(user.user_id, ttl=-1.0)
    for ticket in (expired, "made-up", ""):
        status, where, session = await _enter(live, ticket, "/")
        assert (status, where, session) == (303, "/", None)
    async with aiohttp.ClientSession() as http, http.post(live.base + "/api/ticket", json={}) as r:
        assert r.status == 401

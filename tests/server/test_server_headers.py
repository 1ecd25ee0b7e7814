"""Every HTTP response carries the security headers, and the policy fits the browser client."""

from __future__ import annotations

import aiohttp
from server_live import Live, live_test

from baccarat.client import ws_url
from baccarat.server.http.headers import content_security_policy


def _directives(policy: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *sources = part.split()
        out[name] = sources
    return out


@live_test()
async def test_pages_api_and_errors_carry_the_security_headers(live: Live) -> None:
    host = live.base.removeprefix("http://")
    async with aiohttp.ClientSession() as http:
        for path, status in (
            ("/", 200),
            ("/js/main.js", 200),
            ("/api/lobby", 200),
            ("/api/me", 401),
            ("/no-such-file", 404),
        ):
            async with http.get(live.base + path) as resp:
                assert resp.status == status, path
                assert resp.headers["X-Content-Type-Options"] == "nosniff"
                assert resp.headers["Referrer-Policy"] == "same-origin"
                assert resp.headers["X-Frame-Options"] == "DENY"
                csp = _directives(resp.headers["Content-Security-Policy"])
                assert csp["default-src"] == ["'self'"]
                assert csp["script-src"] == ["'self'"]
                assert not any("unsafe-inline" in v for vs in csp.values() for v in vs)
                assert csp["style-src"] == ["'self'"]
                assert csp["img-src"] == ["'self'", "data:"]
                assert csp["frame-ancestors"] == ["'none'"]
                # The client's socket goes back to the host that served the page.
                assert csp["connect-src"] == ["'self'", f"ws://{host}", f"wss://{host}"]


@live_test()
async def test_a_sockets_upgrade_carries_none_but_a_refused_one_does(live: Live) -> None:
    # A 101 carries no document; its headers would be kept for the socket's whole life.
    _, token = await live.user("upgrader")
    async with aiohttp.ClientSession() as http:
        auth = {"Authorization": f"Bearer {token}"}
        async with http.ws_connect(ws_url(live.base), headers=auth) as ws:
            assert ws._response.status == 101
            assert "Content-Security-Policy" not in ws._response.headers
            assert "X-Frame-Options" not in ws._response.headers
            assert (await ws.receive_json())["type"] == "hello"
        async with http.get(live.base + "/ws", headers={"Origin": "http://evil.example"}) as resp:
            assert resp.status in (401, 403)
            assert resp.headers["X-Frame-Options"] == "DENY"
            assert "Content-Security-Policy" in resp.headers


def test_a_host_header_that_is_not_a_host_adds_no_socket_source() -> None:
    for bad in ("evil.example; script-src *", "a b", "x'y", ""):
        csp = _directives(content_security_policy(bad))
        assert csp["connect-src"] == ["'self'"], bad
        assert csp["script-src"][0] == "'self'" and len(csp) == 10, bad
    csp = _directives(content_security_policy("[::1]:8000"))
    assert csp["connect-src"] == ["'self'", "ws://[::1]:8000", "wss://[::1]:8000"]


def test_listed_origins_and_no_other_may_frame_a_page() -> None:
    assert _directives(content_security_policy("a.example"))["frame-ancestors"] == ["'none'"]
    framed = _directives(content_security_policy("a.example", ("https://p.example",)))
    assert framed["frame-ancestors"] == ["https://p.example"]

"""The login guard: every route that needs a user answers a stranger 401 not_authenticated."""

from __future__ import annotations

import aiohttp
from server_live import Live, live_test

NEEDS_A_USER = (
    ("GET", "/api/me"),
    ("GET", "/api/my/rounds"),
    ("GET", "/api/my/net"),
    ("POST", "/api/ticket"),
    ("GET", "/ws"),
)


@live_test()
async def test_a_route_that_needs_a_user_answers_a_stranger_not_authenticated(
    live: Live,
) -> None:
    for token in (None, "forged"):
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        async with aiohttp.ClientSession(headers=headers) as http:
            for method, path in NEEDS_A_USER:
                async with http.request(method, live.base + path, json={}) as resp:
                    assert resp.status == 401, (method, path, token)
                    body = await resp.json()
                    assert body["error"]["code"] == "not_authenticated", (method, path)
                    assert body["error"]["message"] == "Log in first."

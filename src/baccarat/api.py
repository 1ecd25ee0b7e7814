"""The HTTP API (docs/protocol.md, "HTTP") called from Python: log in, register, the lobby
and a user's rounds, each answer in its typed form. The socket's client is ``baccarat.client``.
"""

from __future__ import annotations

import json
from typing import TypedDict, cast

import aiohttp

from baccarat.errors import BaccaratError
from baccarat.protocol.frames import Lobby


class HttpError(BaccaratError):
    """An HTTP call of the API failed (``status`` is the HTTP status)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(code, message, status=status)
        self.status = status


HTTP_TIMEOUT = aiohttp.ClientTimeout(total=10.0)
"""How long one API call may take: a node that stopped answering is given up on soon."""


JsonObject = dict[str, object]
"""An API answer's JSON object, before it is read as its typed form."""


class MyRounds(TypedDict):
    """One page of a user's rounds (``MY_ROUND`` objects of docs/protocol.md), newest first."""

    rounds: list[JsonObject]
    next: str | None


class MyNet(TypedDict):
    """A user's net coins (after commission), commission paid and rounds since a time."""

    since: float
    net: int
    commission: int
    rounds: int


async def _answer(resp: aiohttp.ClientResponse) -> JsonObject:
    """The JSON object of an API answer, or HttpError: an error status, or anything that is
    not a JSON object (a proxy's HTML error page for a dead node) is a failed call."""
    try:
        data = json.loads(await resp.text())
    except (ValueError, UnicodeDecodeError):
        data = None
    if not isinstance(data, dict):
        raise HttpError(
            resp.status, f"http_{resp.status}", f"The server answered {resp.status}, not JSON."
        )
    if resp.status >= 400:
        err = data.get("error", {})
        if not isinstance(err, dict):
            err = {}
        code, message = err.get("code", "http_error"), err.get("message", "")
        raise HttpError(resp.status, str(code), str(message))
    return data


async def _post(base_url: str, path: str, body: dict[str, str]) -> JsonObject:
    async with (
        aiohttp.ClientSession(timeout=HTTP_TIMEOUT) as session,
        session.post(base_url.rstrip("/") + path, json=body) as resp,
    ):
        return await _answer(resp)


async def _get(base_url: str, path: str, token: str, query: dict[str, str]) -> JsonObject:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        aiohttp.ClientSession(timeout=HTTP_TIMEOUT) as session,
        session.get(base_url.rstrip("/") + path, params=query, headers=headers) as resp,
    ):
        return await _answer(resp)


async def lobby(base_url: str, token: str) -> Lobby:
    """The lobby without a socket (``GET /api/lobby``): rooms and every table's line."""
    return cast(Lobby, await _get(base_url, "/api/lobby", token, {}))


async def my_rounds(
    base_url: str, token: str, *, limit: int = 20, before: str | None = None
) -> MyRounds:
    """One page of the logged-in user's rounds, newest first: ``{"rounds", "next"}``.

    Pass the page's ``next`` as ``before`` for the following page (None after the last).
    """
    query = {"limit": str(limit)}
    if before is not None:
        query["before"] = before
    return cast(MyRounds, await _get(base_url, "/api/my/rounds", token, query))


async def my_net(base_url: str, token: str, since: float) -> MyNet:
    """The user's net coins, commission and rounds settled since ``since`` (epoch seconds)."""
    return cast(MyNet, await _get(base_url, "/api/my/net", token, {"since": repr(float(since))}))


async def login(base_url: str, username: str, password: str) -> str:
    """Log in over HTTP; return the session token (for ``Client.connect``)."""
    data = await _post(base_url, "/api/login", {"username": username, "password": password})
    return str(data["token"])


async def register(base_url: str, username: str, password: str) -> str:
    """Create an account over HTTP; return its session token."""
    data = await _post(base_url, "/api/register", {"username": username, "password": password})
    return str(data["token"])

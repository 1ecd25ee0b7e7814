"""A change to a user's coins passed on, as it came, to the node whose table seats the user.

The bets on that table and its dealer's book are what the change must leave alone, and only
the node running the table knows them; so a platform's withdrawal (``http.transfers``)
or an operator's grant (``console_actions``) that reaches another node is made there. The
node that receives a passed-on request makes it and never passes it on again.
"""

from __future__ import annotations

from collections.abc import Iterable

import aiohttp
from aiohttp import web

from baccarat.server.app import Server
from baccarat.server.http import auth
from baccarat.server.http.console_request import seat_here

FORWARDED = "X-Baccarat-Forwarded"
"""On a request one node passed to another."""
TIMEOUT = 10.0
"""Seconds the passing node waits for the other's answer."""


async def node_seating(server: Server, request: web.Request, user_id: int) -> str | None:
    """The public URL of the other node whose table seats the user, or None: seated here, not
    seated, or ``request`` was itself passed on."""
    if request.headers.get(FORWARDED) or seat_here(server, user_id) is not None:
        return None
    claim = await server.seating.claims.directory.seat_of(user_id)
    return None if claim is None else await server.lobby.elsewhere(claim.table_id)


async def forward(
    request: web.Request, url: str, headers: Iterable[str], keep: Iterable[str] = ()
) -> web.Response:
    """``request`` (a POST of JSON) with its ``headers`` (its credentials) to the node at
    ``url``, and that node's answer with its headers named in ``keep``. Raises
    ``aiohttp.ClientError`` or ``TimeoutError`` when that node does not answer."""
    sent = {k: request.headers[k] for k in headers if k in request.headers}
    sent.update({"Content-Type": "application/json", FORWARDED: "1"})
    target = f"{url.rstrip('/')}{request.path_qs}"
    async with (
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT)) as session,
        session.post(target, data=await request.read(), headers=sent) as resp,
    ):
        answer = await resp.read()
        kept = {k: resp.headers[k] for k in keep if k in resp.headers}
        return web.Response(
            status=resp.status, body=answer, content_type="application/json", headers=kept
        )


def unanswered() -> web.Response:
    """The answer when the node running the user's table did not answer."""
    return auth.fail(
        503, "service_unavailable", "The node running the user's table did not answer."
    )

"""Moving a browser to another node without logging in again: single-use tickets.

A session cookie belongs to the host that set it, and with many nodes a table may run on
another node than the page came from. The page asks its node for a ticket (``POST
/api/ticket``) and opens ``/api/enter?ticket=...&next=/?entered=1#/table/ID`` on the other node,
which uses the ticket up, sets a session cookie of its own and sends the browser on to
``next``. A ticket is good once, for ``TICKET_TTL`` seconds, and is never a session itself.
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from baccarat.server.http import auth
from baccarat.server.http.guard import require_user
from baccarat.store import Store
from baccarat.store.accounts import TICKET_TTL


async def ticket(request: web.Request) -> web.Response:
    """POST /api/ticket: a single-use ticket for the logged-in user."""
    refused = auth.refuse_cross_site(request, json_only=False)
    if refused is not None:
        return refused
    user, _ = await require_user(request)
    store: Store = request.app[auth.STORE]
    made = await asyncio.to_thread(store.create_ticket, user.user_id)
    return web.json_response({"ticket": made, "expires_in": TICKET_TTL})


def _next(raw: str) -> str:
    # Only a path on this node: never an open redirect to somewhere else.
    if not raw.startswith("/") or raw.startswith("//") or "\\" in raw:
        return "/"
    return raw


async def enter(request: web.Request) -> web.Response:
    """GET /api/enter?ticket=T&next=PATH: use a ticket up, log the browser in, go to PATH."""
    store: Store = request.app[auth.STORE]
    user_id = await asyncio.to_thread(store.redeem_ticket, request.query.get("ticket", ""))
    target = _next(request.query.get("next", "/"))
    if user_id is None:
        # Used, expired or made up: the page shows its login screen.
        raise web.HTTPSeeOther("/")
    token = await asyncio.to_thread(store.create_session, user_id)
    await asyncio.to_thread(store.note_login_address, user_id, auth.client_address(request))
    resp = web.HTTPSeeOther(target)
    auth.set_session_cookie(resp, request, token)
    raise resp

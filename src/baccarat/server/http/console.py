"""The operator console's API (``/api/admin/*``): its routes, and what it reads (live
tables, users, rounds, the operator log, the audit).

Every route needs a console session (:mod:`baccarat.server.http.console_auth`); the actions
are in :mod:`baccarat.server.http.console_actions`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from baccarat.errors import BaccaratError, InvalidInput
from baccarat.protocol.codec import dumps_bytes
from baccarat.protocol.view import view
from baccarat.server.app import Server
from baccarat.server.http import auth, console_auth, console_names, console_risk, console_rounds
from baccarat.server.http.console_actions import (
    approve_grant,
    ban,
    close_table,
    grant,
    grant_requests,
    mute,
    open_table,
    post_notice,
    refuse_grant,
    set_level,
    set_role,
    stand_up,
    unban,
    unlock,
)
from baccarat.server.http.console_auth import operator_only
from baccarat.server.http.console_request import (
    actor_of,
    driver_here,
    party_of,
    refused,
    store_of,
    user_id_of,
    user_json,
)
from baccarat.server.http.keys import SERVER
from baccarat.server.http.mybets import round_entry
from baccarat.server.limits import RateLimiter
from baccarat.store import Store
from baccarat.store.audit import IN_PLAY_SECONDS
from baccarat.store.operators import LogEntry
from baccarat.store.powers import Party, can_act
from baccarat.store.records import user_wallet
from baccarat.table.book import book

log = logging.getLogger("baccarat.console")

USERS_PAGE = 50
USER_ACTIONS = ("grant", "set_level", "mute", "ban", "unban", "stand_up", "set_role", "unlock")
"""What the console may do to a user; a user's page lists those its operator may."""
ADMIN_ONLY = ("set_role", "unlock")


# -- reads ------------------------------------------------------------------------------


async def tables(request: web.Request) -> web.Response:
    """GET /api/admin/tables: every table of every node, with the stakes in escrow."""
    server = request.app[SERVER]
    escrow = await asyncio.to_thread(store_of(request).escrow_by_table)
    # Every node's lines; this node's as they are now, not as at the lobby's last tick.
    lines = await server.lobby.all_lines()
    listed = [
        {
            **lines[t],
            "escrow": escrow.get(t, 0),
            "here": t in server.drivers,
            # This node's own tables as they are this instant; others as their line says.
            "suspended": (
                server.drivers[t].table.suspended
                if t in server.drivers
                else lines[t].get("suspended")
            ),
        }
        for t in sorted(lines)
    ]
    return web.json_response({"tables": listed})


async def table_page(request: web.Request) -> web.Response:
    """GET /api/admin/tables/{table_id}: the table as a spectator sees it, and the dealer's
    book (every seat's bets, the totals and the exposure), from the node running it."""
    try:
        driver = await driver_here(request.app[SERVER], request.match_info["table_id"])
    except BaccaratError as exc:
        return refused(exc)
    table = driver.table
    seen = view(table, None, driver.clock())
    body = dumps_bytes({"view": seen, "book": book(table.round, table.config.chip_unit)})
    return web.Response(body=body, content_type="application/json")


async def users(request: web.Request) -> web.Response:
    """GET /api/admin/users?q=TEXT: users whose name holds the text."""
    query = request.query.get("q", "")
    if len(query) > 64 or not query.isprintable():
        return auth.fail(400, "bad_query", "Search with at most 64 printable characters.")
    found = await asyncio.to_thread(store_of(request).search_users, query, USERS_PAGE)
    return web.json_response({"users": [user_json(u) for u in found]})


async def user_page(request: web.Request) -> web.Response:
    """GET /api/admin/users/{id}: the user, where they sit, their ledger, rounds and log."""
    store = store_of(request)
    server = request.app[SERVER]
    try:
        uid = user_id_of(request)
        user = await asyncio.to_thread(store.get_user, uid)
    except BaccaratError as exc:
        return refused(exc)
    ledger = await asyncio.to_thread(store.user_ledger, uid)
    ledger = await asyncio.to_thread(console_names.ledger_json, store, ledger)
    records, shoes = await asyncio.to_thread(store.user_rounds, uid, 20)
    log = await asyncio.to_thread(store.operator_log, target=user_wallet(uid), limit=50)
    sessions, last_login = await asyncio.to_thread(store.sessions_of, uid)
    locked = await asyncio.to_thread(store.console_locked, uid)
    target = Party(uid, user.username, user.role, bool(user.banned))
    acting = party_of(request)
    may = [
        a
        for a in USER_ACTIONS
        if can_act(acting, target, a) and (acting.role == "admin" or a not in ADMIN_ONLY)
    ]
    # Where they sit in the whole system (the cluster's seat claims), not only on this node.
    where = await server.node.directory.seat_of(uid)
    return web.json_response(
        {
            "user": user_json(user),
            "seat": None if where is None else await _seat_json(server, where.table_id, where.seat),
            "online": server.hub.online(uid),
            "sessions": sessions,
            "last_login": last_login,
            "console_locked": locked,
            "may": may,
            "ledger": ledger,
            "rounds": [round_entry(r, shoes.get(r.shoe_id), uid) for r in records],
            "log": [e.json() for e in log],
            "names": await _target_names(store, log),
        }
    )


async def _seat_json(server: Server, table_id: str, seat: int) -> dict[str, Any]:
    """A seat, with where its table runs: here, or the node's public URL (its console acts
    on the table there)."""
    here = table_id in server.drivers
    url = None if here else await server.lobby.elsewhere(table_id)
    return {"table_id": table_id, "seat": seat, "here": here, "url": url}


def _log_filter(q: Mapping[str, str], key: str) -> str | None:
    """One filter of the log (None when absent), or ``bad_query``."""
    text = q.get(key, "")
    if len(text) > 128 or not text.isprintable():
        raise InvalidInput("bad_query", f"'{key}' is at most 128 printable characters.")
    return text or None


def _log_query(q: Mapping[str, str]) -> dict[str, Any]:
    """The log's filters and cursor from the query, or ``bad_query`` / ``bad_cursor``."""
    before = q.get("before")
    if before is not None and not (before.isascii() and before.isdigit() and len(before) < 12):
        raise InvalidInput("bad_cursor", "'before' is an entry's id.")
    return {
        **{key: _log_filter(q, key) for key in ("action", "actor", "target")},
        "before_id": int(before) if before else None,
    }


async def operator_log(request: web.Request) -> web.Response:
    """GET /api/admin/log?action=&actor=&target=&before=: the log, newest first, with the
    display names of the users it names as targets."""
    try:
        query = _log_query(request.query)
    except InvalidInput as exc:
        return refused(exc)
    store = store_of(request)
    entries: list[LogEntry] = await asyncio.to_thread(lambda: store.operator_log(**query))
    return web.json_response(
        {"log": [e.json() for e in entries], "names": await _target_names(store, entries)}
    )


async def _target_names(store: Store, entries: list[LogEntry]) -> dict[str, str]:
    """The display names of the users the entries name as targets (``user:22``)."""
    return await asyncio.to_thread(console_names.target_names, store, [e.target for e in entries])


async def voids(request: web.Request) -> web.Response:
    """GET /api/admin/voids?days=N: rounds voided in the last N days (1 to 365), by reason."""
    days = request.query.get("days", "7")
    if not (days.isascii() and days.isdigit() and 1 <= int(days) <= 365):
        return auth.fail(400, "bad_days", "'days' is a whole number from 1 to 365.")
    since = time.time() - int(days) * 86_400
    found = await asyncio.to_thread(store_of(request).voids_since, since)
    return web.json_response({"days": int(days), "since": since, "voids": found})


async def audit(request: web.Request) -> web.Response:
    """POST /api/admin/audit: run ``baccarat audit`` now; its report."""
    # The server is live: the rounds its tables are dealing are escrowed, not left behind.
    report = await asyncio.to_thread(store_of(request).audit, in_play_seconds=IN_PLAY_SECONDS)
    await asyncio.to_thread(
        store_of(request).log_action,
        actor_of(request),
        "audit",
        "ledger",
        "run from the console",
        None,
        {"ok": report.ok, "problems": len(report.problems)},
    )
    return web.json_response(report.to_dict())


ACTIONS_PER_MINUTE = 60
"""Console actions one operator may take a minute: a person's pace, not a script's."""


def add_routes(router: web.UrlDispatcher) -> None:
    """The console's API under ``/api/admin``."""
    actions = RateLimiter(ACTIONS_PER_MINUTE)
    router.add_post("/api/admin/login", console_auth.login)
    router.add_post("/api/admin/logout", console_auth.logout)
    router.add_get("/api/admin/me", operator_only(console_auth.me))
    router.add_get("/api/admin/tables", operator_only(tables))
    router.add_get("/api/admin/tables/{table_id}", operator_only(table_page))
    router.add_get("/api/admin/users", operator_only(users))
    router.add_get("/api/admin/users/{user_id}", operator_only(user_page))
    router.add_get("/api/admin/rooms", operator_only(console_names.rooms))
    console_rounds.add_routes(router)
    router.add_get("/api/admin/log", operator_only(operator_log))
    router.add_post("/api/admin/audit", operator_only(audit, actions=actions))
    router.add_get("/api/admin/voids", operator_only(voids))
    router.add_get("/api/admin/risk", operator_only(console_risk.risk_view))
    for name, handler in (
        ("grant", grant),
        ("level", set_level),
        ("mute", mute),
        ("ban", ban),
        ("unban", unban),
        ("stand", stand_up),
    ):
        router.add_post(
            f"/api/admin/users/{{user_id}}/{name}", operator_only(handler, actions=actions)
        )
    for name, handler in (("role", set_role), ("unlock", unlock)):
        router.add_post(
            f"/api/admin/users/{{user_id}}/{name}",
            operator_only(handler, admin=True, actions=actions),
        )
    router.add_get("/api/admin/grants", operator_only(grant_requests))
    for name, handler in (("approve", approve_grant), ("refuse", refuse_grant)):
        router.add_post(
            f"/api/admin/grants/{{request_id}}/{name}", operator_only(handler, actions=actions)
        )
    router.add_post("/api/admin/notices", operator_only(post_notice, actions=actions))
    router.add_post(
        "/api/admin/tables/{table_id}/close", operator_only(close_table, actions=actions)
    )
    router.add_post("/api/admin/tables/{table_id}/open", operator_only(open_table, actions=actions))
    # Anything else under /api/admin is refused like the rest, before it could be a 404.
    router.add_route("*", "/api/admin/{rest:.*}", operator_only(_unknown))


async def _unknown(request: web.Request) -> web.Response:
    return auth.fail(404, "unknown_route", "There is no such console route.")

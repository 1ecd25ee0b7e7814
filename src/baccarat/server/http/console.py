"""The operator console's API (``/api/admin/*``): live tables, users, actions, records, log.

Every route needs a console session (:mod:`baccarat.server.http.console_auth`); every action
needs a reason and is written to the operator log with the state before and after, in the
same transaction as the change itself. A refused action answers a stable code and a
sentence and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from aiohttp import web

from baccarat.errors import BaccaratError, InvalidInput, NotFound, RuleViolation
from baccarat.numbers import whole
from baccarat.protocol.codec import dumps_bytes
from baccarat.protocol.ids import SeatAt
from baccarat.protocol.messages import notice
from baccarat.server.app import Server
from baccarat.server.http import auth, console_auth
from baccarat.server.http.console_auth import acting, operator_only
from baccarat.server.http.keys import SERVER
from baccarat.server.http.limits import RateLimiter
from baccarat.server.http.mybets import a_store_id, round_entry
from baccarat.server.sockets.moderation import ban_word, notice_word
from baccarat.server.tables.driver import TableDriver
from baccarat.store import Store, User
from baccarat.store.operators import Actor, LogEntry, verify_reason
from baccarat.store.records import user_wallet
from baccarat.table import Resume, SetCoins, StandUp, Suspend
from baccarat.table.book import book
from baccarat.table.occupants import check_coins
from baccarat.table.view import view

log = logging.getLogger("baccarat.console")

USERS_PAGE = 50


def user_json(user: User) -> dict[str, Any]:
    """A user as the console lists them."""
    return {
        "user_id": user.user_id,
        "username": user.username,
        "display_name": user.display_name,
        "level": user.level,
        "coins": user.coins,
        "role": user.role,
        "banned": user.banned,
        "muted_until": user.muted_until,
        "created_at": user.created_at,
    }


def _store(request: web.Request) -> Store:
    store: Store = request.app[auth.STORE]
    return store


def _actor(request: web.Request) -> Actor:
    operator = acting(request)
    return Actor(operator.username, operator.user_id)


def _error(exc: BaccaratError) -> web.Response:
    status = 404 if isinstance(exc, NotFound) else 400 if isinstance(exc, InvalidInput) else 409
    return auth.fail(status, exc.code, exc.message)


def _user_id(request: web.Request) -> int:
    text = request.match_info["user_id"]
    if not (text.isascii() and text.isdigit()) or len(text) > 12:
        raise NotFound("unknown_user", f"There is no user with id {text!r}.")
    return int(text)


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except ValueError:
        raise InvalidInput("bad_request", "The body is not JSON.") from None
    if not isinstance(data, dict):
        raise InvalidInput("bad_request", "Send a JSON object.")
    return data


def _whole(data: dict[str, Any], field: str) -> int:
    value = data.get(field)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidInput(f"bad_{field}", f"'{field}' is a whole number.")
    return value


def _reason(data: dict[str, Any]) -> str:
    reason = data.get("reason")
    if not isinstance(reason, str):
        raise InvalidInput("bad_reason", "Every operator action needs a reason.")
    return reason


# -- reads ----------------------------------------------------------------------------------


async def tables(request: web.Request) -> web.Response:
    """GET /api/admin/tables: every table of every node, with the stakes in escrow."""
    server = request.app[SERVER]
    escrow = await asyncio.to_thread(_store(request).escrow_by_table)
    lines = server.lobby.lines
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


def _driver_here(server: Server, table_id: str) -> TableDriver:
    """The table's driver on this node; ``unknown_table``, or ``table_elsewhere`` naming
    the node that runs it."""
    driver = server.drivers.get(table_id)
    if driver is not None:
        return driver
    line = server.lobby.lines.get(table_id)
    if line is None:
        raise NotFound("unknown_table", f"There is no table {table_id!r}.")
    raise RuleViolation("table_elsewhere", f"The table runs at {line.get('url')}; act there.")


def _seat_here(server: Server, user_id: int) -> tuple[SeatAt, TableDriver] | None:
    """Where the user sits on this node and that table's driver, or None."""
    where = server.hub.seats.get(user_id)
    driver = None if where is None else server.drivers.get(where.table_id)
    return None if where is None or driver is None else (where, driver)


async def table_page(request: web.Request) -> web.Response:
    """GET /api/admin/tables/{table_id}: the table as a spectator sees it, and the dealer's
    book (every seat's bets, the totals and the exposure), from the node running it."""
    try:
        driver = _driver_here(request.app[SERVER], request.match_info["table_id"])
    except BaccaratError as exc:
        return _error(exc)
    table = driver.table
    seen = view(table, None, driver.clock())
    body = dumps_bytes({"view": seen, "book": book(table.round, table.config.chip_unit)})
    return web.Response(body=body, content_type="application/json")


async def users(request: web.Request) -> web.Response:
    """GET /api/admin/users?q=TEXT: users whose name holds the text."""
    query = request.query.get("q", "")
    if len(query) > 64 or not query.isprintable():
        return auth.fail(400, "bad_query", "Search with at most 64 printable characters.")
    found = await asyncio.to_thread(_store(request).search_users, query, USERS_PAGE)
    return web.json_response({"users": [user_json(u) for u in found]})


async def user_page(request: web.Request) -> web.Response:
    """GET /api/admin/users/{id}: the user, where they sit, their ledger, rounds and log."""
    store = _store(request)
    server = request.app[SERVER]
    try:
        uid = _user_id(request)
        user = await asyncio.to_thread(store.get_user, uid)
    except BaccaratError as exc:
        return _error(exc)
    ledger = await asyncio.to_thread(store.user_ledger, uid)
    records, shoes = await asyncio.to_thread(store.user_rounds, uid, 20)
    log = await asyncio.to_thread(store.operator_log, target=user_wallet(uid), limit=50)
    sessions, last_login = await asyncio.to_thread(store.sessions_of, uid)
    # Where they sit in the whole system (the cluster's seat claims), not only on this node.
    where = await server.node.directory.seat_of(uid)
    return web.json_response(
        {
            "user": user_json(user),
            "seat": None if where is None else _seat_json(server, where.table_id, where.seat),
            "online": server.hub.online(uid),
            "sessions": sessions,
            "last_login": last_login,
            "ledger": ledger,
            "rounds": [round_entry(r, shoes.get(r.shoe_id), uid) for r in records],
            "log": [e.json() for e in log],
        }
    )


def _seat_json(server: Server, table_id: str, seat: int) -> dict[str, Any]:
    """A seat, with where its table runs: here, or the node's public URL (its console acts
    on the table there)."""
    line = server.lobby.lines.get(table_id) or {}
    here = table_id in server.drivers
    return {"table_id": table_id, "seat": seat, "here": here, "url": line.get("url") or None}


async def round_record(request: web.Request) -> web.Response:
    """GET /api/admin/rounds/{round_id}: the round's full record and its shoe."""
    rid = request.match_info["round_id"]
    if not a_store_id(rid):
        return auth.fail(404, "unknown_round", "There is no such round.")
    store = _store(request)
    try:
        record = await asyncio.to_thread(store.get_round, rid)
        shoe = await asyncio.to_thread(store.get_shoe, record.shoe_id)
    except BaccaratError as exc:
        return _error(exc)
    return web.json_response(
        {
            "round": record.to_dict(),
            "shoe": {
                "shoe_id": shoe.shoe_id,
                "commitment": shoe.commitment,
                "seed": shoe.seed,
                "ended_at": shoe.ended_at,
            },
        }
    )


async def operator_log(request: web.Request) -> web.Response:
    """GET /api/admin/log?action=&actor=&target=&before=: the log, newest first."""
    q = request.query
    for key in ("action", "actor", "target"):
        text = q.get(key, "")
        if len(text) > 128 or not text.isprintable():
            return auth.fail(400, "bad_query", f"'{key}' is at most 128 printable characters.")
    before = q.get("before")
    if before is not None and not (before.isascii() and before.isdigit() and len(before) < 12):
        return auth.fail(400, "bad_cursor", "'before' is an entry's id.")
    entries: list[LogEntry] = await asyncio.to_thread(
        _store(request).operator_log,
        action=q.get("action") or None,
        actor=q.get("actor") or None,
        target=q.get("target") or None,
        before_id=int(before) if before else None,
    )
    return web.json_response({"log": [e.json() for e in entries]})


async def voids(request: web.Request) -> web.Response:
    """GET /api/admin/voids?days=N: rounds voided in the last N days (1 to 365), by reason."""
    days = request.query.get("days", "7")
    if not (days.isascii() and days.isdigit() and 1 <= int(days) <= 365):
        return auth.fail(400, "bad_days", "'days' is a whole number from 1 to 365.")
    since = time.time() - int(days) * 86_400
    found = await asyncio.to_thread(_store(request).voids_since, since)
    return web.json_response({"days": int(days), "since": since, "voids": found})


async def audit(request: web.Request) -> web.Response:
    """POST /api/admin/audit: run ``baccarat audit`` now; its report."""
    report = await asyncio.to_thread(_store(request).audit)
    await asyncio.to_thread(
        _store(request).log_action,
        _actor(request),
        "audit",
        "ledger",
        "run from the console",
        None,
        {"ok": report.ok, "problems": len(report.problems)},
    )
    return web.json_response(
        {
            "ok": report.ok,
            "rounds": report.rounds,
            "voided": report.voided,
            "void_reasons": report.void_reasons,
            "problems": report.problems,
        }
    )


# -- actions --------------------------------------------------------------------------------


async def grant(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/grant {coins, reason}: a ledger transaction from the mint."""
    store = _store(request)
    actor = _actor(request)
    try:
        uid = _user_id(request)
        data = await _body(request)
        coins, reason = _whole(data, "coins"), _reason(data)
        user = await asyncio.to_thread(store.get_user, uid)
        seat = _seat_here(request.app[SERVER], uid)
        if seat is not None and whole(coins) and user.coins + coins >= 0:
            # Coins the user has on the table (or the dealer's book) are not taken back:
            # the stakes could not be escrowed and the round would be voided.
            check_coins(seat[1].table, uid, user.coins + coins)
        await asyncio.to_thread(
            store.grant, user.username, coins, reason, actor=actor.name, actor_id=actor.user_id
        )
        user = await asyncio.to_thread(store.get_user, uid)
    except BaccaratError as exc:
        return _error(exc)
    await _tell_table(request.app[SERVER], uid, user.coins)
    return web.json_response({"user": user_json(user)})


async def set_level(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/level {level, reason}."""
    return await _change(request, lambda s, uid, d, a: s.set_level_logged(
        uid, _whole(d, "level"), _reason(d), a))  # fmt: skip


async def mute(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/mute {seconds, reason}: 0 seconds lifts a mute."""
    return await _change(request, lambda s, uid, d, a: s.mute(
        uid, _whole(d, "seconds"), _reason(d), a))  # fmt: skip


async def ban(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/ban {reason}: sessions end, the user's sockets close."""
    answer = await _change(request, lambda s, uid, d, a: s.ban(uid, _reason(d), a))
    if answer.status == 200:
        server = request.app[SERVER]
        uid = _user_id(request)
        # Here at once, and on every other node through the cluster's feed.
        server.moderation.close_user(uid)
        await server.node.directory.announce(ban_word(uid))
    return answer


async def unban(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/unban {reason}."""
    return await _change(request, lambda s, uid, d, a: s.unban(uid, _reason(d), a))


async def set_role(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/role {role, reason} (admins only)."""
    return await _change(request, lambda s, uid, d, a: s.set_role(
        uid, str(d.get("role")), _reason(d), a))  # fmt: skip


async def stand_up(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/stand {reason}: stand the user up where they sit (on this
    node); stakes already in escrow settle normally."""
    server = request.app[SERVER]
    store = _store(request)
    try:
        uid = _user_id(request)
        reason = _reason(await _body(request))
        seat = _seat_here(server, uid)
        if seat is None:
            raise InvalidInput("not_seated", "The user holds no seat on this node.")
        where, driver = seat
        await driver.submit(driver.command(StandUp(uid)))
        await asyncio.to_thread(
            store.log_action,
            _actor(request),
            "stand_up",
            user_wallet(uid),
            reason,
            {"table_id": where.table_id, "seat": where.seat},
            None,
        )
    except BaccaratError as exc:
        return _error(exc)
    return web.json_response({"ok": True})


async def _tell_table(server: Server, user_id: int, coins: int) -> None:
    """Tell the table where the user sits (on this node) their new balance at once; a table
    that refuses it (the coins would not cover their stakes) takes the ledger's when its
    next betting opens, as it does for a grant made elsewhere."""
    seat = _seat_here(server, user_id)
    if seat is None:
        return
    driver = seat[1]
    try:
        await driver.submit(driver.command(SetCoins(user_id, coins)))
    except BaccaratError as exc:
        log.info("grant left to the next round", extra={"user_id": user_id, "code": exc.code})


async def close_table(request: web.Request) -> web.Response:
    """POST /api/admin/tables/{table_id}/close {reason}: no round starts after the one in
    play and nobody new sits; the reason is the notice its players read."""
    return await _table_switch(request, close=True)


async def open_table(request: web.Request) -> web.Response:
    """POST /api/admin/tables/{table_id}/open {reason}: reopen a closed table."""
    return await _table_switch(request, close=False)


async def _table_switch(request: web.Request, *, close: bool) -> web.Response:
    server = request.app[SERVER]
    table_id = request.match_info["table_id"]
    try:
        reason = verify_reason(_reason(await _body(request)))
        driver = _driver_here(server, table_id)
        before = driver.table.suspended
        await driver.submit(driver.command(Suspend(reason) if close else Resume()))
        # Kept with the table's epoch, so that the next node to run it keeps it closed.
        kept = await asyncio.to_thread(
            _store(request).save_suspended,
            table_id,
            driver.ledger.epoch,
            driver.table.suspended,
            _actor(request),
            reason,
            before,
        )
        if not kept:
            # Another node took the table meanwhile: this node's table is on its way out.
            raise RuleViolation("table_elsewhere", "Another node took the table; try it there.")
    except BaccaratError as exc:
        return _error(exc)
    return web.json_response({"table_id": table_id, "suspended": driver.table.suspended})


MAX_NOTICE = 200


def _notice_text(data: dict[str, Any]) -> dict[str, str]:
    """The notice's text by language: ``zh-TW`` and ``en``, at least one."""
    text = data.get("text")
    if not isinstance(text, dict) or not set(text) <= {"zh-TW", "en"}:
        raise InvalidInput("bad_notice", "'text' holds the notice by language: zh-TW and en.")
    out = {k: v.strip() for k, v in text.items() if isinstance(v, str) and v.strip()}
    if not out or any(len(v) > MAX_NOTICE or not v.isprintable() for v in out.values()):
        raise InvalidInput(
            "bad_notice", f"A notice is 1 to {MAX_NOTICE} printable characters in a language."
        )
    return out


async def post_notice(request: web.Request) -> web.Response:
    """POST /api/admin/notices {text: {zh-TW, en}, table_id?, reason}: a notice to the
    players at one table, or (no table) to everyone connected to this node."""
    server = request.app[SERVER]
    try:
        data = await _body(request)
        reason = verify_reason(_reason(data))
        text = _notice_text(data)
        table_id = data.get("table_id")
        if table_id is not None and not isinstance(table_id, str):
            raise InvalidInput("bad_table_id", "'table_id' is a table's id, or null for all.")
        if table_id is not None and table_id not in server.drivers:
            raise NotFound("unknown_table", f"No table {table_id!r} runs on this node.")
        if table_id is not None:
            reached = server.hub.broadcast(
                server.hub.watchers.get(table_id, ()), notice(text, table_id)
            )
        else:
            # Every node shows it on its sockets (this one too) as it hears it.
            reached = len(server.hub.connections)
            await server.node.directory.announce(notice_word(text))
        await asyncio.to_thread(
            _store(request).log_action,
            _actor(request),
            "notice",
            f"table:{table_id}" if table_id else "lobby",
            reason,
            None,
            {"text": text, "reached": reached},
        )
    except BaccaratError as exc:
        return _error(exc)
    return web.json_response({"reached": reached})


Change = Any
"""(store, user id, body, actor) -> User: one logged change of a user."""


async def _change(request: web.Request, change: Change) -> web.Response:
    store = _store(request)
    actor = _actor(request)
    try:
        uid = _user_id(request)
        data = await _body(request)
        user = await asyncio.to_thread(change, store, uid, data, actor)
    except BaccaratError as exc:
        return _error(exc)
    return web.json_response({"user": user_json(user)})


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
    router.add_get("/api/admin/rounds/{round_id}", operator_only(round_record))
    router.add_get("/api/admin/log", operator_only(operator_log))
    router.add_post("/api/admin/audit", operator_only(audit, actions=actions))
    router.add_get("/api/admin/voids", operator_only(voids))
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
    router.add_post(
        "/api/admin/users/{user_id}/role", operator_only(set_role, admin=True, actions=actions)
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

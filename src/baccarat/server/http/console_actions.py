"""The operator console's actions (``POST /api/admin/...``): coins (and the grants waiting
for a second operator), level, mute, ban, role, the console's lockout, standing a user up,
closing and reopening a table, notices.

Each needs a reason and is written to the operator log with the state before and after, in
the same transaction as the change itself; a refused action answers a stable code and a
sentence and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import aiohttp
from aiohttp import web

from baccarat.errors import BaccaratError, InvalidInput, NotFound, RuleViolation
from baccarat.numbers import whole
from baccarat.protocol.messages import notice
from baccarat.server.app import Server
from baccarat.server.http import forwarding
from baccarat.server.http.console_request import (
    actor_of,
    body_of,
    driver_here,
    grant_policy,
    party_of,
    reason_of,
    refused,
    seat_here,
    store_of,
    user_id_of,
    user_json,
    whole_field,
)
from baccarat.server.http.keys import SERVER
from baccarat.server.sockets.moderation import ban_word, notice_word
from baccarat.store.approvals import STATUSES
from baccarat.store.operators import verify_reason
from baccarat.store.powers import Party, verify_may_act
from baccarat.store.records import user_wallet
from baccarat.table import Resume, SetCoins, StandUp, Suspend
from baccarat.table.occupants import check_coins

log = logging.getLogger("baccarat.console")

CREDENTIALS = ("Authorization", "Cookie")
"""What a console request passed on to another node keeps: the operator's session (its
Origin was checked here, and the other node's host is another)."""


async def grant(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/grant {coins, reason}: a ledger transaction from the mint,
    or (above the bound, or to oneself) a request for a second operator: 202 with it. For a
    user seated at a table another node runs, that node's answer (it made the grant)."""
    store = store_of(request)
    try:
        uid = user_id_of(request)
        url = await forwarding.node_seating(request.app[SERVER], request, uid)
        if url is not None:
            return await forwarding.forward(request, url, CREDENTIALS)
        data = await body_of(request)
        coins, reason = whole_field(data, "coins"), reason_of(data)
        user = await asyncio.to_thread(store.get_user, uid)
        _verify_table_keeps(request.app[SERVER], uid, user.coins, coins)
        user, waiting = await asyncio.to_thread(
            store.operator_grant, actor_of(request), uid, coins, reason, grant_policy(request)
        )
    except (aiohttp.ClientError, TimeoutError):
        return forwarding.unanswered()
    except BaccaratError as exc:
        return refused(exc)
    if waiting is not None:
        return web.json_response({"user": user_json(user), "request": waiting.json()}, status=202)
    await _tell_table(request.app[SERVER], uid, user.coins)
    return web.json_response({"user": user_json(user), "request": None})


def _verify_table_keeps(server: Server, user_id: int, coins: int, change: int) -> None:
    """Coins the user has on the table (or the dealer's book) are not taken back: the
    stakes could not be escrowed and the round would be voided. (A user seated at another
    node's table: the request was passed on there.)"""
    seat = seat_here(server, user_id)
    if seat is not None and whole(change) and coins + change >= 0:
        check_coins(seat[1].table, user_id, coins + change)


async def grant_requests(request: web.Request) -> web.Response:
    """GET /api/admin/grants?status=pending|approved|refused|all: grant requests, newest
    first."""
    status = request.query.get("status", "pending")
    if status not in (*STATUSES, "all"):
        return refused(InvalidInput("bad_status", "'status' is pending, approved, refused or all."))
    found = await asyncio.to_thread(
        store_of(request).grant_requests, None if status == "all" else status
    )
    return web.json_response({"requests": [r.json() for r in found]})


async def approve_grant(request: web.Request) -> web.Response:
    """POST /api/admin/grants/{id}/approve {reason}: a second operator's yes; the coins move
    (at the node whose table seats the user, if another runs it)."""
    server = request.app[SERVER]
    store = store_of(request)
    try:
        rid = _request_id(request)
        reason = reason_of(await body_of(request))
        waiting = await asyncio.to_thread(store.grant_request, rid)
        url = await forwarding.node_seating(server, request, waiting.user_id)
        if url is not None:
            return await forwarding.forward(request, url, CREDENTIALS)
        user = await asyncio.to_thread(store.get_user, waiting.user_id)
        if waiting.status == "pending":
            _verify_table_keeps(server, user.user_id, user.coins, waiting.coins)
        user, done = await asyncio.to_thread(store.approve_grant, actor_of(request), rid, reason)
    except (aiohttp.ClientError, TimeoutError):
        return forwarding.unanswered()
    except BaccaratError as exc:
        return refused(exc)
    await _tell_table(server, user.user_id, user.coins)
    return web.json_response({"user": user_json(user), "request": done.json()})


async def refuse_grant(request: web.Request) -> web.Response:
    """POST /api/admin/grants/{id}/refuse {reason}: a second operator's no (or the asker
    withdrawing it); no coin moves."""
    try:
        rid = _request_id(request)
        reason = reason_of(await body_of(request))
        done = await asyncio.to_thread(
            store_of(request).refuse_grant, actor_of(request), rid, reason
        )
    except BaccaratError as exc:
        return refused(exc)
    return web.json_response({"request": done.json()})


def _request_id(request: web.Request) -> int:
    text = request.match_info["request_id"]
    if not (text.isascii() and text.isdigit()) or len(text) > 12:
        raise NotFound("unknown_request", f"There is no grant request {text!r}.")
    return int(text)


async def unlock(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/unlock {reason} (admins only): lift the console's lockout
    after wrong authenticator codes."""
    return await _change(request, lambda s, uid, d, a: s.unlock_console(uid, reason_of(d), a))


async def set_level(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/level {level, reason}."""
    return await _change(request, lambda s, uid, d, a: s.set_level_logged(
        uid, whole_field(d, "level"), reason_of(d), a))  # fmt: skip


async def mute(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/mute {seconds, reason}: 0 seconds lifts a mute."""
    return await _change(request, lambda s, uid, d, a: s.mute(
        uid, whole_field(d, "seconds"), reason_of(d), a))  # fmt: skip


async def ban(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/ban {reason}: sessions end, the user's sockets close."""
    answer = await _change(request, lambda s, uid, d, a: s.ban(uid, reason_of(d), a))
    if answer.status == 200:
        server = request.app[SERVER]
        uid = user_id_of(request)
        # Here at once, and on every other node through the cluster's feed.
        server.moderation.close_user(uid)
        await server.node.directory.announce(ban_word(uid))
    return answer


async def unban(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/unban {reason}."""
    return await _change(request, lambda s, uid, d, a: s.unban(uid, reason_of(d), a))


async def set_role(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/role {role, reason} (admins only)."""
    return await _change(request, lambda s, uid, d, a: s.set_role(
        uid, str(d.get("role")), reason_of(d), a))  # fmt: skip


async def stand_up(request: web.Request) -> web.Response:
    """POST /api/admin/users/{id}/stand {reason}: stand the user up where they sit (on this
    node); stakes already in escrow settle normally."""
    server = request.app[SERVER]
    store = store_of(request)
    try:
        uid = user_id_of(request)
        reason = verify_reason(reason_of(await body_of(request)))
        target = await asyncio.to_thread(store.get_user, uid)
        verify_may_act(party_of(request), Party(uid, target.username, target.role), "stand_up")
        seat = seat_here(server, uid)
        if seat is None:
            raise InvalidInput("not_seated", "The user holds no seat on this node.")
        where, driver = seat
        await driver.submit(driver.command(StandUp(uid)))
        await asyncio.to_thread(
            store.log_action,
            actor_of(request),
            "stand_up",
            user_wallet(uid),
            reason,
            {"table_id": where.table_id, "seat": where.seat},
            None,
        )
    except BaccaratError as exc:
        return refused(exc)
    return web.json_response({"ok": True})


async def _tell_table(server: Server, user_id: int, coins: int) -> None:
    """Tell the table where the user sits (on this node) their new balance at once; a table
    that refuses it (the coins would not cover their stakes) takes the ledger's when its
    next betting opens, as it does for a grant made elsewhere."""
    seat = seat_here(server, user_id)
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
        reason = verify_reason(reason_of(await body_of(request)))
        driver = await driver_here(server, table_id)
        before = driver.table.suspended
        await driver.submit(driver.command(Suspend(reason) if close else Resume()))
        # Kept with the table's epoch, so that the next node to run it keeps it closed.
        kept = await asyncio.to_thread(
            store_of(request).save_suspended,
            table_id,
            driver.ledger.epoch,
            driver.table.suspended,
            actor_of(request),
            reason,
            before,
        )
        if not kept:
            # Another node took the table meanwhile: this node's table is on its way out.
            raise RuleViolation("table_elsewhere", "Another node took the table; try it there.")
    except BaccaratError as exc:
        return refused(exc)
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
        data = await body_of(request)
        reason = verify_reason(reason_of(data))
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
            store_of(request).log_action,
            actor_of(request),
            "notice",
            f"table:{table_id}" if table_id else "lobby",
            reason,
            None,
            {"text": text, "reached": reached},
        )
    except BaccaratError as exc:
        return refused(exc)
    return web.json_response({"reached": reached})


Change = Any
"""(store, user id, body, actor) -> User: one logged change of a user."""


async def _change(request: web.Request, change: Change) -> web.Response:
    store = store_of(request)
    actor = actor_of(request)
    try:
        uid = user_id_of(request)
        data = await body_of(request)
        user = await asyncio.to_thread(change, store, uid, data, actor)
    except BaccaratError as exc:
        return refused(exc)
    return web.json_response({"user": user_json(user)})

"""The transfer wallet's API: the platform moves its coins into a player's game wallet and
back out, each transfer by the platform's id and at most once, every call signed
(``signing``).

``POST /api/platform/transfers`` ``{transfer_id, user, amount}`` (positive: into the game);
``GET /api/platform/transfers/{id}``; ``GET /api/platform/transfers?from=T&to=T``;
``GET /api/platform/balance?user=ID``.

A withdrawal never takes coins in play: while a round the user is in has not landed in the
ledger it is refused (``coins_in_play``), and at the user's table the table is told the
lower balance first, so it refuses (``dealer_cannot_cover``, ``coins_below_stake``) when
the dealer's book or the bets on the table need the coins, and no chip placed meanwhile can
count on them. A withdrawal for a user seated at another node's table is passed to that
node as it came (its signature still holds), so the table that knows the bets decides
(``server.http.forwarding``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from typing import Any

import aiohttp
from aiohttp import web

from baccarat.errors import BaccaratError, Conflict, InvalidInput, NotFound
from baccarat.platform import signing
from baccarat.platform.config import PlatformConfig
from baccarat.protocol import codec
from baccarat.server.app import Server
from baccarat.server.http import auth, forwarding
from baccarat.server.http.console_request import seat_here
from baccarat.server.http.keys import SERVER
from baccarat.store import Store
from baccarat.store.platform import (
    Transfer,
    coins_in_play,
    verify_platform_id,
    verify_transfer,
)
from baccarat.table import SetCoins

log = logging.getLogger("baccarat.platform")

CONFIG = web.AppKey("platform_config", PlatformConfig)
REPLAYED = "Idempotent-Replayed"
"""Header on the answer to a transfer id seen before: the body is the first answer's."""
ONE_AT_A_TIME = web.AppKey("platform_transfer_lock", asyncio.Lock)
MAX_PERIOD = 31 * 24 * 3600.0
SIGNED = (signing.TIMESTAMP, signing.SIGNATURE)
"""The headers of a platform's signature (a withdrawal passed on keeps them)."""


def _refusal(exc: BaccaratError) -> web.Response:
    if exc.code in ("bad_signature", "stale_timestamp"):
        status = 401
    elif isinstance(exc, NotFound):
        status = 404
    elif isinstance(exc, InvalidInput):
        status = 400
    else:
        status = 409
    return auth.fail(status, exc.code, exc.message)


async def _signed(request: web.Request) -> bytes:
    """The body of a call the platform signed; ``bad_signature`` or ``stale_timestamp``."""
    body = await request.read()
    headers = {k: request.headers.get(k, "") for k in SIGNED}
    secret = request.app[CONFIG].secret
    signing.verify(secret, time.time(), headers, request.method, request.path_qs, body)
    return body


def _fields(body: bytes) -> tuple[str, str, int]:
    data = codec.loads(body)
    if not isinstance(data, dict):
        raise InvalidInput("bad_message", "The body is a JSON object.")
    transfer_id, amount = verify_transfer(data.get("transfer_id"), data.get("amount"))
    return transfer_id, verify_platform_id(data.get("user")), amount


async def _tell(server: Server, user_id: int, coins: int) -> None:
    """The table where the user sits (on this node) takes the balance now."""
    seat = seat_here(server, user_id)
    if seat is not None:
        driver = seat[1]
        await driver.submit(driver.command(SetCoins(user_id, coins)))


async def _hold_back(server: Server, user_id: int, coins: int, amount: int) -> None:
    """Before a withdrawal: refuse coins in play, and lower the table's idea of the balance."""
    table = server.inflight.elsewhere(user_id, "")
    if table is not None:
        raise coins_in_play(table)
    if coins + amount >= 0:
        await _tell(server, user_id, coins + amount)


async def _make(request: web.Request, transfer_id: str, user: str, amount: int) -> Transfer:
    server, store = request.app[SERVER], request.app[auth.STORE]
    try:
        first = await asyncio.to_thread(store.get_transfer, transfer_id)
    except NotFound:
        pass
    else:
        if first.platform_user != user or first.amount != amount:
            raise Conflict(
                "transfer_id_reused", f"Transfer {transfer_id!r} was made for other coins."
            )
        return replace(first, replayed=True)
    # One transfer at a time on this node: the balance the table is told before a
    # withdrawal is not changed by another transfer meanwhile.
    async with request.app[ONE_AT_A_TIME]:
        account = await asyncio.to_thread(store.platform_account, user)
        if amount < 0:
            await _hold_back(server, account.user_id, account.coins, amount)
        try:
            done = await asyncio.to_thread(store.transfer, transfer_id, user, amount)
        finally:
            # The table holds what the ledger holds, whether the transfer was made or not.
            await _tell_quietly(server, store, account.user_id)
    log.info("transfer", extra={"transfer_id": transfer_id, "amount": amount})
    return done


async def _tell_quietly(server: Server, store: Store, user_id: int) -> None:
    try:
        await _tell(server, user_id, await asyncio.to_thread(store.balance, user_id))
    except BaccaratError as exc:
        # The table takes the ledger's balance when its next betting opens.
        log.info("balance left to the next round", extra={"user_id": user_id, "code": exc.code})


async def post_transfer(request: web.Request) -> web.Response:
    """POST /api/platform/transfers: move coins in (positive) or out (negative), once. A
    withdrawal for a user seated at a table another node runs is that node's to make."""
    try:
        body = await _signed(request)
        transfer_id, user, amount = _fields(body)
        if amount < 0:
            store = request.app[auth.STORE]
            account = await asyncio.to_thread(store.platform_account, user)
            url = await forwarding.node_seating(request.app[SERVER], request, account.user_id)
            if url is not None:
                # As it came: its signature holds there too.
                return await forwarding.forward(request, url, SIGNED, keep=(REPLAYED,))
        done = await _make(request, transfer_id, user, amount)
    except (aiohttp.ClientError, TimeoutError):
        return forwarding.unanswered()
    except BaccaratError as exc:
        return _refusal(exc)
    headers = {REPLAYED: "true"} if done.replayed else None
    return web.json_response({"transfer": done.json()}, headers=headers)


async def get_transfer(request: web.Request) -> web.Response:
    """GET /api/platform/transfers/{id}: a transfer made, or 404 ``unknown_transfer``."""
    try:
        await _signed(request)
        done = await asyncio.to_thread(
            request.app[auth.STORE].get_transfer, request.match_info["transfer_id"]
        )
    except BaccaratError as exc:
        return _refusal(exc)
    return web.json_response({"transfer": done.json()})


def _period(query: Any) -> tuple[float, float]:
    try:
        start, end = float(query.get("from", "")), float(query.get("to", ""))
    except ValueError:
        raise InvalidInput("bad_period", "'from' and 'to' are Unix times in seconds.") from None
    if not 0 <= end - start <= MAX_PERIOD:
        raise InvalidInput("bad_period", "'to' is after 'from', at most 31 days later.")
    return start, end


async def list_transfers(request: web.Request) -> web.Response:
    """GET /api/platform/transfers?from=T&to=T: the transfers made in ``[from, to)``."""
    try:
        await _signed(request)
        start, end = _period(request.query)
        found = await asyncio.to_thread(request.app[auth.STORE].transfers_between, start, end)
    except BaccaratError as exc:
        return _refusal(exc)
    return web.json_response({"transfers": [t.json() for t in found]})


async def balance(request: web.Request) -> web.Response:
    """GET /api/platform/balance?user=ID: the user's game balance, and whether coins of
    theirs are in play (a withdrawal of them would be refused)."""
    server = request.app[SERVER]
    try:
        await _signed(request)
        user = verify_platform_id(request.query.get("user"))
        account = await asyncio.to_thread(request.app[auth.STORE].platform_account, user)
    except BaccaratError as exc:
        return _refusal(exc)
    in_play = bool(server.inflight.tables_of(account.user_id))
    return web.json_response({"user": user, "balance": account.coins, "in_play": in_play})

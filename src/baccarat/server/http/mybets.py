"""My bets (投注紀錄): a logged-in user's own rounds and totals over HTTP.

``GET /api/my/rounds?limit=N&before=CURSOR`` pages through the rounds the user bet in or
dealt, newest first; ``GET /api/my/net?since=T`` sums their settled rounds since a time. A
user sees only their own bets and results; other users' bets are never listed.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any, Literal

from aiohttp import web

from baccarat.bets import AREAS
from baccarat.errors import InvalidInput
from baccarat.server.http import auth
from baccarat.server.http.guard import require_user
from baccarat.store import RoundRecord, ShoeRecord, Store

PAGE = 20
MAX_PAGE = 100
MAX_ID = 64
"""The longest round, shoe or table id the store keeps."""


def verify_command(shoe: ShoeRecord) -> str | None:
    """The command that recomputes an ended shoe's card order (None while it runs)."""
    if shoe.seed is None:
        return None
    return f"baccarat verify-shoe --seed {shoe.seed} --commitment {shoe.commitment}"


def round_entry(r: RoundRecord, shoe: ShoeRecord | None, user_id: int) -> dict[str, Any]:
    """One round as its user sees it in their history: never another user's bets."""
    coins = _by_area(r, user_id, "coins")
    outcome = r.outcome or {}
    return {
        "round_id": r.round_id,
        "table_id": r.table_id,
        "shoe_id": r.shoe_id,
        "round_no": r.round_no,
        "status": r.status,
        "role": "dealer" if r.dealer_id == user_id else "bettor",
        "time": r.escrowed_at,
        "closed_at": r.closed_at,
        "cards": r.cards,
        "winner": outcome.get("winner"),
        "outcome": r.outcome,
        "bets": coins,
        "chips": _by_area(r, user_id, "chips"),
        "stake": sum(coins.values()),
        "net": r.deltas.get(user_id, 0) if r.status == "settled" else None,
        "commission": r.commission.get(user_id, 0),
        "shoe": None if shoe is None else _shoe_entry(shoe),
    }


def _by_area(r: RoundRecord, user_id: int, what: Literal["coins", "chips"]) -> dict[str, int]:
    """The user's own bets of a round, in coins or chips, by area (an area not bet left out)."""
    mine = [b for b in r.bets if b.user_id == user_id]
    totals = {a: sum(getattr(b, what) for b in mine if b.area == a) for a in AREAS}
    return {a: n for a, n in totals.items() if n}


def _shoe_entry(shoe: ShoeRecord) -> dict[str, Any]:
    return {"commitment": shoe.commitment, "seed": shoe.seed, "verify": verify_command(shoe)}


def cursor_of(r: RoundRecord) -> str:
    """The opaque cursor that starts the next page after ``r``."""
    return f"{r.escrowed_at!r}:{r.round_id}"


def parse_cursor(text: str) -> tuple[float, str]:
    """Read a cursor given back by a client, or raise ``bad_cursor``."""
    at, sep, rid = text.partition(":")
    try:
        when = float(at)
    except ValueError:
        when = math.nan
    if not sep or not math.isfinite(when) or not a_store_id(rid):
        raise InvalidInput("bad_cursor", "'before' is the 'next' value of an earlier page.")
    return when, rid


def a_store_id(text: str) -> bool:
    """Whether ``text`` could be an id the store keeps (and may be sent to the database:
    PostgreSQL refuses a NUL in text, and a lone surrogate has no UTF-8)."""
    return 0 < len(text) <= MAX_ID and text.isprintable()


def parse_limit(text: str | None) -> int:
    """Read ``limit`` (1 to 100, 20 when absent), or raise ``bad_limit``."""
    if text is None:
        return PAGE
    # ASCII digits only: str.isdigit() also takes "²", which int() refuses.
    if not (text.isascii() and text.isdigit()) or len(text) > 3 or not 1 <= int(text) <= MAX_PAGE:
        raise InvalidInput("bad_limit", f"'limit' is a whole number from 1 to {MAX_PAGE}.")
    return int(text)


def parse_since(text: str | None) -> float:
    """Read ``since`` (seconds since the epoch), or raise ``bad_since``."""
    try:
        since = float(text) if text is not None else math.nan
    except ValueError:
        since = math.nan
    if not math.isfinite(since) or since < 0:
        raise InvalidInput("bad_since", "'since' is a time in seconds since the epoch.")
    return since


async def my_rounds(request: web.Request) -> web.Response:
    """GET /api/my/rounds: a page of the user's rounds, newest first, and the next cursor."""
    user, _ = await require_user(request)
    store: Store = request.app[auth.STORE]
    try:
        limit = parse_limit(request.query.get("limit"))
        before = request.query.get("before")
        cursor = parse_cursor(before) if before else None
    except InvalidInput as exc:
        return auth.fail(400, exc.code, exc.message)
    records, shoes = await asyncio.to_thread(store.user_rounds, user.user_id, limit, cursor)
    return web.json_response(
        {
            "rounds": [round_entry(r, shoes.get(r.shoe_id), user.user_id) for r in records],
            "next": cursor_of(records[-1]) if len(records) == limit else None,
        }
    )


async def my_net(request: web.Request) -> web.Response:
    """GET /api/my/net: the user's net coins, commission and rounds settled since a time."""
    user, _ = await require_user(request)
    store: Store = request.app[auth.STORE]
    try:
        since = parse_since(request.query.get("since"))
    except InvalidInput as exc:
        return auth.fail(400, exc.code, exc.message)
    net, commission, rounds = await asyncio.to_thread(store.user_net, user.user_id, since)
    return web.json_response(
        {"since": since, "net": net, "commission": commission, "rounds": rounds}
    )

"""The shoe archive (牌靴紀錄): every table's shoes and their rounds, for anyone, over HTTP.

``GET /api/shoes?table=ID&limit=N&before=CURSOR`` pages through a table's shoes, newest
first, each with its commitment, its seed once it has ended, and its number of settled
rounds; ``GET /api/shoes/ID`` gives one shoe and every round's cards in dealing order (by
where each round's cards start, ``first_card``), which is what a player needs to check the
shoe against its seed (``docs/fairness.md``). No login: nothing here names a user or shows a
bet, and a seed is shown only once its shoe has ended.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from baccarat.errors import InvalidInput, NotFound
from baccarat.server.http import auth
from baccarat.server.http.mybets import MAX_ID, a_store_id, parse_cursor, parse_limit
from baccarat.store import ShoeRecord, ShoeRound, Store

TABLES = web.AppKey("shoe_tables", frozenset[str])
"""The ids of the tables the rooms file names: the tables whose archive may be asked for."""


def shoe_entry(shoe: ShoeRecord) -> dict[str, Any]:
    """A shoe as the archive shows it: the seed stays null until the shoe has ended."""
    return {
        "shoe_id": shoe.shoe_id,
        "commitment": shoe.commitment,
        "seed": shoe.seed if shoe.ended_at is not None else None,
        "started_at": shoe.started_at,
        "ended_at": shoe.ended_at,
        "end_reason": shoe.end_reason if shoe.ended_at is not None else None,
        "log_index": shoe.log_index,
    }


def round_entry(r: ShoeRound) -> dict[str, Any]:
    """One round of a shoe: its cards in dealing order and who won, never a bet or a name."""
    return {
        "round_id": r.round_id,
        "round_no": r.round_no,
        "status": r.status,
        "cards": r.cards,
        "winner": r.winner,
        "time": r.escrowed_at,
        "closed_at": r.closed_at,
        "first_card": r.first_card,
    }


def cursor_of(shoe: ShoeRecord) -> str:
    """The opaque cursor that starts the next page after ``shoe``."""
    return f"{shoe.started_at!r}:{shoe.shoe_id}"


def parse_table(text: str | None, known: frozenset[str]) -> str:
    """Read ``table``: ``bad_table`` when it is missing, ``unknown_table`` (NotFound) when
    the server has no such table."""
    if not text:
        raise InvalidInput("bad_table", "Name the table: /api/shoes?table=ID.")
    if text not in known:
        raise NotFound("unknown_table", f"There is no table {text[:MAX_ID]!r}.")
    return text


async def shoe_list(request: web.Request) -> web.Response:
    """GET /api/shoes: a page of a table's shoes, newest first, and the next cursor."""
    store: Store = request.app[auth.STORE]
    try:
        table_id = parse_table(request.query.get("table"), request.app[TABLES])
        limit = parse_limit(request.query.get("limit"))
        before = request.query.get("before")
        cursor = parse_cursor(before) if before else None
    except NotFound as exc:
        return auth.fail(404, exc.code, exc.message)
    except InvalidInput as exc:
        return auth.fail(400, exc.code, exc.message)
    page = await asyncio.to_thread(store.list_shoes, table_id, limit, cursor)
    return web.json_response(
        {
            "table_id": table_id,
            "shoes": [{**shoe_entry(shoe), "rounds": rounds} for shoe, rounds in page],
            "next": cursor_of(page[-1][0]) if len(page) == limit else None,
        }
    )


def _shoe_and_rounds(store: Store, shoe_id: str) -> tuple[ShoeRecord, list[ShoeRound]]:
    # The shoe first: a round read after it is never older than the shoe's record.
    return store.get_shoe(shoe_id), store.shoe_rounds(shoe_id)


async def shoe_detail(request: web.Request) -> web.Response:
    """GET /api/shoes/{shoe_id}: one shoe and every round's cards, in dealing order."""
    store: Store = request.app[auth.STORE]
    shoe_id = request.match_info["shoe_id"]
    try:
        if not a_store_id(shoe_id):
            raise NotFound("unknown_shoe", f"There is no shoe {shoe_id[:MAX_ID]!r}.")
        shoe, rounds = await asyncio.to_thread(_shoe_and_rounds, store, shoe_id)
    except NotFound as exc:
        return auth.fail(404, exc.code, exc.message)
    return web.json_response(
        {
            **shoe_entry(shoe),
            "table_id": shoe.table_id,
            "rounds": [round_entry(r) for r in rounds],
        }
    )

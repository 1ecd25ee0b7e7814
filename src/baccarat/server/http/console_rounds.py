"""The console's rounds: one round's full record (its users by name, its cards by hand), a
table's rounds found by time, and a shoe's rounds (the public archive's, with their hands)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aiohttp import web

from baccarat.cards import parse_cards
from baccarat.errors import BaccaratError, InvalidInput, NotFound
from baccarat.rules import next_draw
from baccarat.server.http import auth, shoes
from baccarat.server.http.console_auth import operator_only
from baccarat.server.http.console_request import refused, store_of
from baccarat.server.http.mybets import a_store_id, cursor_of, parse_cursor, parse_since
from baccarat.store import RoundRecord, Store

SEARCH_PAGE = 50
"""Rounds a page of the search lists."""


def hands_of(cards: list[str] | None) -> dict[str, list[str]]:
    """Cards in dealing order split into the Player's and the Banker's hands, each in its own
    dealing order (the tableau says whose each card is, so a void's few cards split too)."""
    hands: dict[str, list[str]] = {"player": [], "banker": []}
    parsed: dict[str, list[Any]] = {"player": [], "banker": []}
    for text, card in zip(cards or [], parse_cards(cards or []), strict=True):
        # A card past a complete deal is impossible; it is shown with the Banker's rather
        # than dropped.
        hand = next_draw(parsed["player"], parsed["banker"]) or "banker"
        hands[hand].append(text)
        parsed[hand].append(card)
    return hands


def _user_ids(r: RoundRecord) -> set[int]:
    return {r.dealer_id, *(b.user_id for b in r.bets), *r.deltas}


async def round_record(request: web.Request) -> web.Response:
    """GET /api/admin/rounds/{round_id}: the round's full record, its shoe, its users'
    display names and its cards by hand."""
    rid = request.match_info["round_id"]
    if not a_store_id(rid):
        return auth.fail(404, "unknown_round", "There is no such round.")
    store = store_of(request)
    try:
        record = await asyncio.to_thread(store.get_round, rid)
        shoe = await asyncio.to_thread(store.get_shoe, record.shoe_id)
    except BaccaratError as exc:
        return refused(exc)
    names = await asyncio.to_thread(store.user_names, _user_ids(record))
    return web.json_response(
        {
            "round": record.to_dict(),
            "hands": hands_of(record.cards),
            "names": {str(uid): name for uid, name in names.items()},
            "shoe": {
                "shoe_id": shoe.shoe_id,
                "commitment": shoe.commitment,
                "seed": shoe.seed,
                "ended_at": shoe.ended_at,
            },
        }
    )


def found_json(r: RoundRecord, names: dict[int, str]) -> dict[str, Any]:
    """A round as the search lists it: when, which, who dealt, how many bet and how much."""
    return {
        "round_id": r.round_id,
        "shoe_id": r.shoe_id,
        "round_no": r.round_no,
        "status": r.status,
        "time": r.escrowed_at,
        "winner": (r.outcome or {}).get("winner"),
        "hands": hands_of(r.cards),
        "dealer_id": r.dealer_id,
        "dealer": names.get(r.dealer_id),
        "bettors": len({b.user_id for b in r.bets}),
        "stakes": sum(b.coins for b in r.bets),
        "house": r.house,
    }


def _search(
    store: Store, table_id: str, span: tuple[float, float], before: tuple[float, str] | None
) -> tuple[list[RoundRecord], dict[int, str]]:
    found = store.table_rounds(table_id, span[0], span[1], SEARCH_PAGE, before)
    return found, store.user_names({r.dealer_id for r in found})


def _search_query(request: web.Request) -> tuple[str, tuple[float, float], Any]:
    q = request.query
    table_id = shoes.parse_table(q.get("table"), request.app[shoes.TABLES])
    since = parse_since(q.get("from", "0"))
    until = parse_since(q["to"]) if "to" in q else time.time() + 86_400
    if until <= since:
        raise InvalidInput("bad_span", "'to' is after 'from'.")
    return table_id, (since, until), parse_cursor(q["before"]) if q.get("before") else None


async def round_search(request: web.Request) -> web.Response:
    """GET /api/admin/rounds?table=ID&from=T&to=T&before=CURSOR: a page of the table's rounds
    whose betting closed from ``from`` to before ``to`` (seconds), newest first."""
    try:
        table_id, span, before = _search_query(request)
    except (InvalidInput, NotFound) as exc:
        return refused(exc)
    found, names = await asyncio.to_thread(_search, store_of(request), table_id, span, before)
    return web.json_response(
        {
            "table_id": table_id,
            "from": span[0],
            "to": span[1],
            "rounds": [found_json(r, names) for r in found],
            "next": cursor_of(found[-1]) if len(found) == SEARCH_PAGE else None,
        }
    )


async def shoe_page(request: web.Request) -> web.Response:
    """GET /api/admin/shoes/{shoe_id}: the archive's shoe and rounds, each with its hands."""
    shoe_id = request.match_info["shoe_id"]
    store = store_of(request)
    try:
        if not a_store_id(shoe_id):
            raise NotFound("unknown_shoe", "There is no such shoe.")
        shoe = await asyncio.to_thread(store.get_shoe, shoe_id)
        rounds = await asyncio.to_thread(store.shoe_rounds, shoe_id)
    except BaccaratError as exc:
        return refused(exc)
    return web.json_response(
        {
            **shoes.shoe_entry(shoe),
            "table_id": shoe.table_id,
            "rounds": [{**shoes.round_entry(r), "hands": hands_of(r.cards)} for r in rounds],
        }
    )


def add_routes(router: web.UrlDispatcher) -> None:
    """The rounds' routes under ``/api/admin``, each for a console session."""
    router.add_get("/api/admin/rounds", operator_only(round_search))
    router.add_get("/api/admin/rounds/{round_id}", operator_only(round_record))
    router.add_get("/api/admin/shoes/{shoe_id}", operator_only(shoe_page))

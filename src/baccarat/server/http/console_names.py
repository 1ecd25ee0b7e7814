"""The names the console shows for ids: rooms and tables in each language, users by their
display names, and ledger memos by their parts (the page words them in its language)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from aiohttp import web

from baccarat.server.config import RoomsConfig
from baccarat.server.http.keys import SERVER
from baccarat.store import Store

USER_TARGET = re.compile(r"user:(\d{1,12})")
"""How the operator log names a user it acted on (``user:22``)."""

STAKES_MEMO = re.compile(r"table (\S+) shoe (\S+) round (\d+)(: stakes refused)?")
"""The memo of a round's stakes in escrow (or of stakes the ledger refused)."""
ROUND_MEMO = re.compile(r"round (\S+)")
"""The memo of a round's settlement, or of its stakes returned by a void."""


def rooms_json(config: RoomsConfig) -> list[dict[str, Any]]:
    """Every room of the rooms file with its names, and each table's names, in file order."""
    return [
        {
            "room_id": room.room_id,
            "names": dict(room.names),
            "tables": [{"table_id": t, "names": room.names_of(t)} for t in room.table_ids],
        }
        for room in config.rooms
    ]


async def rooms(request: web.Request) -> web.Response:
    """GET /api/admin/rooms: the rooms and tables with their names in every language."""
    return web.json_response({"rooms": rooms_json(request.app[SERVER].config)})


def memo_parts(kind: str, memo: str) -> dict[str, Any] | None:
    """What a ledger memo the server wrote says, as parts the page words in its language;
    None for a memo a person wrote (a grant's reason), shown as it is."""
    if kind in ("escrow", "void"):
        stakes = STAKES_MEMO.fullmatch(memo)
        if stakes is not None:
            table_id, shoe_id, round_no, refused = stakes.groups()
            return {
                "what": "stakes_refused" if refused else "stakes",
                "table_id": table_id,
                "shoe_id": shoe_id,
                "round_no": int(round_no),
            }
    if kind in ("settle", "void"):
        one = ROUND_MEMO.fullmatch(memo)
        if one is not None:
            return {"what": kind, "round_id": one.group(1)}
    return None


def ledger_json(store: Store, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A user's ledger entries, each with its memo's parts (the stored memo kept as is); a
    memo naming a round by id gets its table and number (blocking)."""
    parts = [memo_parts(e["kind"], e["memo"]) for e in entries]
    places = store.round_places(p["round_id"] for p in parts if p and "round_id" in p)
    for p in parts:
        if p and p.get("round_id") in places:
            p["table_id"], p["round_no"] = places[p["round_id"]]
    return [{**e, "parts": p} for e, p in zip(entries, parts, strict=True)]


def user_ids_of(targets: Iterable[str]) -> set[int]:
    """The ids of the users among the log's targets."""
    return {int(m.group(1)) for t in targets if (m := USER_TARGET.fullmatch(t)) is not None}


def target_names(store: Store, targets: Iterable[str]) -> dict[str, str]:
    """Each user target of the log (``user:22``) with the user's display name (blocking)."""
    names = store.user_names(user_ids_of(targets))
    return {f"user:{uid}": name for uid, name in names.items()}

"""Holds: the browser tests' breakpoints on a live table (``baccarat serve --test-hooks``).

A test drives a table to the moment it needs instead of waiting for a time window to come
by: ``POST /api/test/tables/{id}`` with ``{"hold": "result"}`` holds the table once it is in
its result phase (its deadlines wait; commands go on), ``{"hold": null}`` lets it go on, and
``{"skip": true}`` ends the phase in play at once (its time jumps to its deadline). Each
answers with the table's phase, whether it is held, and the phase's time left.
The route exists only on a server started with ``--test-hooks``, and answers only requests
from the machine itself: it is no part of the game.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from baccarat.protocol.values import time_left
from baccarat.server.http.auth import fail
from baccarat.server.tables.driver import TableDriver

PHASES = ("waiting", "betting", "squeeze", "result", "shuffling")


def hold_route(
    drivers: dict[str, TableDriver],
) -> Callable[[web.Request], Awaitable[web.Response]]:
    """The handler of ``GET`` and ``POST /api/test/tables/{table_id}``."""

    async def handle(request: web.Request) -> web.Response:
        if not _from_loopback(request.remote):
            return fail(403, "forbidden", "Test hooks answer only the machine itself.")
        driver = drivers.get(request.match_info["table_id"])
        if driver is None:
            return fail(404, "no_such_table", "There is no such table on this server.")
        if request.method == "POST":
            try:
                body: Any = await request.json()
            except ValueError:
                return fail(400, "bad_message", "The body must be JSON.")
            match body:
                case {"skip": True} if len(body) == 1:  # (True matches by identity: not 1)
                    driver.hold.skip()
                case {"hold": None | str() as hold} if len(body) == 1 and hold in (None, *PHASES):
                    driver.hold.at(hold)
                case _:
                    return fail(
                        400,
                        "bad_message",
                        f'Send {{"hold": null or one of {PHASES}}} or {{"skip": true}}.',
                    )
        table = driver.table
        return web.json_response(
            {
                "table_id": driver.table_id,
                "phase": table.phase,
                "held": driver.hold.held,
                "round_no": table.round.round_no if table.round is not None else None,
                "remaining_ms": time_left(table.deadline, driver.clock()),
            }
        )

    return handle


def _from_loopback(remote: str | None) -> bool:
    try:
        return remote is not None and ipaddress.ip_address(remote).is_loopback
    except ValueError:
        return False

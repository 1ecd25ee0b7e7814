"""What every console route reads from its request: the store, the operator acting, the user
named in the path, a JSON body and its fields; and how a refusal is answered."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from baccarat.errors import BaccaratError, InvalidInput, NotFound, RuleViolation
from baccarat.numbers import whole
from baccarat.protocol.ids import SeatAt
from baccarat.server.app import Server
from baccarat.server.http import auth
from baccarat.server.http.console_auth import CLI_OPERATOR, acting
from baccarat.server.tables.driver import TableDriver
from baccarat.store import Store, User
from baccarat.store.approvals import GrantPolicy
from baccarat.store.operators import CLI, Actor
from baccarat.store.powers import Party


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


def store_of(request: web.Request) -> Store:
    store: Store = request.app[auth.STORE]
    return store


def actor_of(request: web.Request) -> Actor:
    """Who the log names: the operator's account, or ``cli`` (``baccarat admin``)."""
    operator = acting(request)
    return CLI if operator is CLI_OPERATOR else Actor(operator.username, operator.user_id)


def party_of(request: web.Request) -> Party:
    """The acting operator as the rules of who may act on whom see them."""
    operator = acting(request)
    if operator is CLI_OPERATOR:
        return Party(None, "cli", "admin")
    return Party(operator.user_id, operator.username, operator.role)


def grant_policy(request: web.Request) -> GrantPolicy:
    """The ``[server]`` bounds of operators' grants."""
    settings = request.app[auth.SETTINGS]
    return GrantPolicy(settings.grant_approve_above, settings.grant_daily_cap)


def refused(exc: BaccaratError) -> web.Response:
    status = 404 if isinstance(exc, NotFound) else 400 if isinstance(exc, InvalidInput) else 409
    return auth.fail(status, exc.code, exc.message)


def user_id_of(request: web.Request) -> int:
    text = request.match_info["user_id"]
    if not (text.isascii() and text.isdigit()) or len(text) > 12:
        raise NotFound("unknown_user", f"There is no user with id {text!r}.")
    return int(text)


async def body_of(request: web.Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except ValueError:
        raise InvalidInput("bad_request", "The body is not JSON.") from None
    if not isinstance(data, dict):
        raise InvalidInput("bad_request", "Send a JSON object.")
    return data


def whole_field(data: dict[str, Any], field: str) -> int:
    value = data.get(field)
    if not whole(value):
        raise InvalidInput(f"bad_{field}", f"'{field}' is a whole number.")
    return value


def reason_of(data: dict[str, Any]) -> str:
    reason = data.get("reason")
    if not isinstance(reason, str):
        raise InvalidInput("bad_reason", "Every operator action needs a reason.")
    return reason


async def driver_here(server: Server, table_id: str) -> TableDriver:
    """The table's driver on this node; ``unknown_table``, ``table_opening`` (no node runs
    it yet), or ``table_elsewhere`` naming the node that runs it."""
    driver = server.drivers.get(table_id)
    if driver is not None:
        return driver
    url = await server.lobby.elsewhere(table_id)
    if url is None and server.lobby.listed(table_id):
        raise RuleViolation("table_opening", "No node runs the table yet; try in a moment.")
    if url is None:
        raise NotFound("unknown_table", f"There is no table {table_id!r}.")
    raise RuleViolation("table_elsewhere", f"The table runs at {url}; act there.")


def seat_here(server: Server, user_id: int) -> tuple[SeatAt, TableDriver] | None:
    """Where the user sits on this node and that table's driver, or None."""
    where = server.seating.seats.get(user_id)
    driver = None if where is None else server.drivers.get(where.table_id)
    return None if where is None or driver is None else (where, driver)

"""The HTTP side of a server: its routes, health, metrics and the lobby without a socket.

``create_app`` builds the aiohttp application for a ``Server``; the tables start with the
application and stop with it.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import logging
import time
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from baccarat.errors import RuleViolation
from baccarat.platform.config import PlatformConfig
from baccarat.roads.patterns import PATTERNS
from baccarat.server.app import Server
from baccarat.server.http import (
    auth,
    commitlog,
    console,
    console_risk,
    mybets,
    platform_routes,
    shoes,
    tickets,
)
from baccarat.server.http.bad_requests import quiet_bad_requests
from baccarat.server.http.guard import answer_not_logged_in
from baccarat.server.http.headers import add_security_headers
from baccarat.server.http.holds import hold_route
from baccarat.server.http.keys import SERVER
from baccarat.server.http.outages import OUTAGES, RETRY_AFTER, Outages, answer_outages
from baccarat.server.http.static import StaticFiles
from baccarat.server.http.verifier import verifier_routes
from baccarat.server.http.ws import Dispatcher, websocket
from baccarat.server.tables.lobby import View

log = logging.getLogger("baccarat.server")


def web_root() -> Path:
    """The browser client's files (``baccarat/web``)."""
    return Path(str(resources.files("baccarat").joinpath("web")))


async def livez(request: web.Request) -> web.Response:
    """GET /livez: the process answers, so its loop turns (liveness: restart it if not)."""
    return web.json_response({"ok": True})


async def healthz(request: web.Request) -> web.Response:
    """GET /healthz and /readyz: whether a proxy should send clients here (readiness).

    200 while the node runs and is not stopping, even when the database or Redis is away:
    that is ``degraded`` in the body, since every node misses a shared part alike and the
    node still serves the page and answers ``503 service_unavailable`` for what needs it.
    """
    server = request.app[SERVER]
    health = server.health
    running = sum(1 for d in server.drivers.values() if d.running)
    body = {
        "ok": health.ready,
        "status": health.status(),
        "db": health.up("database"),
        "directory": health.up("directory"),
        "degraded": health.degraded,
        "tables": running,
        "stopped": sorted(t for t, d in server.drivers.items() if not d.running),
        "taken": sorted(server.node.keeper.taken),
        "clients": len(server.hub.connections),
    }
    headers = {} if health.ready else {"Retry-After": str(RETRY_AFTER)}
    return web.json_response(body, status=200 if health.ready else 503, headers=headers)


async def metrics_page(request: web.Request) -> web.Response:
    """GET /metrics: Prometheus text format (see :func:`create_metrics_app`)."""
    server = request.app[SERVER]
    body = server.metrics.render() + await asyncio.to_thread(server.metrics.render_process)
    return web.Response(body=body, content_type="text/plain")


async def public_metrics(request: web.Request) -> web.Response:
    """GET /metrics on the public listener: only with the operator's bearer token."""
    server = request.app[SERVER]
    if server.metrics_token is None:
        return auth.fail(
            404,
            "not_found",
            "Metrics are not served here; the operator reads them with a token or on a "
            "listener of their own.",
        )
    given = request.headers.get("Authorization", "")
    if not hmac.compare_digest(given.encode(), f"Bearer {server.metrics_token}".encode()):
        return auth.fail(
            401,
            "not_authenticated",
            "Send the metrics token as 'Authorization: Bearer TOKEN'.",
            **{"WWW-Authenticate": 'Bearer realm="metrics"'},
        )
    return await metrics_page(request)


async def lobby_page(request: web.Request) -> web.Response:
    """GET /api/lobby: the lobby without a socket (``?room=ID&page=N&road=R``: one page)."""
    server = request.app[SERVER]
    query = request.query
    room, page, road = query.get("room"), query.get("page"), query.get("road")
    if room is None and page is None and road is None:
        return web.json_response(await server.lobby.message())
    if not _known_road(road):
        return auth.fail(400, "bad_message", f"road is 'any' or one of {', '.join(PATTERNS)}.")
    try:
        view = server.lobby.check(View(room, _page_number(page), road))
    except ValueError:
        return auth.fail(400, "bad_message", "page is a whole number >= 0.")
    except RuleViolation as exc:
        return auth.fail(404, exc.code, exc.message)
    return web.json_response(await server.lobby.message(view))


def _known_road(road: str | None) -> bool:
    """Whether ``road`` filters by a road the lobby knows ('any', or none, is no filter)."""
    return road is None or road == "any" or road in PATTERNS


def _page_number(page: str | None) -> int:
    """The page asked for (the first if none); ``ValueError`` unless a whole number >= 0."""
    number = int(page or 0)
    if number < 0:
        raise ValueError(page)
    return number


@web.middleware
async def _log_requests(request: web.Request, handler: Any) -> web.StreamResponse:
    started = time.perf_counter()
    response: web.StreamResponse = await handler(request)
    if request.path.startswith("/api/"):
        log.info(
            "http",
            extra={
                "method": request.method,
                "path": request.path,
                "status": response.status,
                "ms": round((time.perf_counter() - started) * 1000, 2),
            },
        )
    return response


async def _to_console(request: web.Request) -> web.Response:
    raise web.HTTPFound("/admin/")


def create_app(
    server: Server, platform: PlatformConfig | None = None, *, start: bool = True
) -> web.Application:
    """The aiohttp application serving ``server`` (and the operator's ``platform``).

    With ``start`` the server starts with the application; ``baccarat serve`` starts it
    itself once its port listens, so that no node takes a table its clients cannot reach."""
    quiet_bad_requests()
    app = web.Application(
        middlewares=[_log_requests, answer_outages, answer_not_logged_in], client_max_size=64 * 1024
    )
    app[OUTAGES] = Outages()
    app[SERVER] = server
    app[auth.STORE] = server.store
    app[auth.SETTINGS] = server.config.server
    app[auth.ALLOW_REGISTER] = server.allow_register
    app[auth.ORIGINS] = server.origins
    app[auth.LIMITS] = server.limits
    app[auth.PASSWORDS] = server.passwords
    app[auth.ON_LOGOUT] = server.hub.logged_out
    app[auth.SHOWN] = server.seating.shown
    app[shoes.TABLES] = frozenset(server.config.table_room())
    app[commitlog.KEYS] = server.keys

    app.router.add_post("/api/register", auth.register)
    app.router.add_post("/api/login", auth.login)
    app.router.add_post("/api/logout", auth.logout)
    app.router.add_get("/api/me", auth.me)
    app.router.add_post("/api/ticket", tickets.ticket)
    app.router.add_get("/api/enter", tickets.enter)
    app.router.add_get("/api/lobby", lobby_page)
    app.router.add_get("/api/my/rounds", mybets.my_rounds)
    app.router.add_get("/api/my/net", mybets.my_net)
    app.router.add_get("/api/shoes", shoes.shoe_list)
    app.router.add_get("/api/shoes/{shoe_id}", shoes.shoe_detail)
    commitlog.add_routes(app.router)
    console.add_routes(app.router)
    app.router.add_get("/admin", _to_console)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", healthz)
    app.router.add_get("/livez", livez)
    app.router.add_get("/metrics", public_metrics)
    app.router.add_get("/ws", functools.partial(websocket, server, Dispatcher(server)))
    if server.test_hooks:
        held = hold_route(server.drivers)
        app.router.add_get("/api/test/tables/{table_id}", held)
        app.router.add_post("/api/test/tables/{table_id}", held)
    if platform is not None:
        platform_routes.add_routes(app, platform)
    app.router.add_routes(verifier_routes(web_root()))
    app.router.add_get("/{path:.*}", StaticFiles(web_root()).serve)

    async def on_startup(app: web.Application) -> None:
        await server.start()

    async def on_shutdown(app: web.Application) -> None:
        await server.stop()

    app.on_response_prepare.append(add_security_headers)
    if start:
        app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.cleanup_ctx.append(console_risk.sweep)
    return app


def create_metrics_app(server: Server) -> web.Application:
    """An application serving only ``GET /metrics``, for a listener only the operator reaches."""
    app = web.Application()
    app[SERVER] = server
    app.router.add_get("/metrics", metrics_page)
    return app

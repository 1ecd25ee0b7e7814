"""The platform's routes, added to the application when ``baccarat serve --platform``."""

from __future__ import annotations

import asyncio

from aiohttp import web

from baccarat.platform import launch, transfers
from baccarat.platform.config import PlatformConfig
from baccarat.platform.tokens import LaunchTokens


def add_routes(app: web.Application, config: PlatformConfig) -> None:
    """``/launch`` and, with the transfer wallet, ``/api/platform/...``."""
    app[launch.TOKENS] = LaunchTokens(config)
    app[transfers.CONFIG] = config
    app[transfers.ONE_AT_A_TIME] = asyncio.Lock()
    app.router.add_get("/launch", launch.launch)
    app.router.add_get("/platform/launch.js", launch.launch_js)
    if config.wallet == "transfer":
        app.router.add_post("/api/platform/transfers", transfers.post_transfer)
        app.router.add_get("/api/platform/transfers", transfers.list_transfers)
        app.router.add_get("/api/platform/transfers/{transfer_id}", transfers.get_transfer)
        app.router.add_get("/api/platform/balance", transfers.balance)

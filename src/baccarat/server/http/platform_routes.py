"""The platform's routes, added to the application when ``baccarat serve --platform``
(what they use of the platform is :mod:`baccarat.platform`'s: its config, tokens and wallet)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

from aiohttp import web

from baccarat.platform.config import PlatformConfig
from baccarat.platform.seamless import SeamlessWallet, WalletClient
from baccarat.platform.tokens import LaunchTokens
from baccarat.server.http import launch, transfers
from baccarat.server.http.headers import FRAME_ANCESTORS
from baccarat.server.http.keys import SERVER


def add_routes(app: web.Application, config: PlatformConfig) -> None:
    """``/launch``; with the transfer wallet, ``/api/platform/...``; with the seamless wallet,
    the tables ask the platform's wallet for the coins of the users it launched."""
    app[launch.TOKENS] = LaunchTokens(config)
    app[FRAME_ANCESTORS] = config.frame_origins
    app[transfers.CONFIG] = config
    app[transfers.ONE_AT_A_TIME] = asyncio.Lock()
    app.router.add_get("/launch", launch.launch)
    app.router.add_get("/platform/launch.js", launch.launch_js)
    if config.wallet == "transfer":
        app.router.add_post("/api/platform/transfers", transfers.post_transfer)
        app.router.add_get("/api/platform/transfers", transfers.list_transfers)
        app.router.add_get("/api/platform/transfers/{transfer_id}", transfers.get_transfer)
        app.router.add_get("/api/platform/balance", transfers.balance)
    if config.wallet == "seamless":
        server = app[SERVER]
        wallet = SeamlessWallet(server.store, WalletClient(config))
        server.seating.wallet = wallet
        app.cleanup_ctx.append(_sweeping(wallet))


def _sweeping(
    wallet: SeamlessWallet,
) -> Callable[[web.Application], contextlib.AbstractAsyncContextManager[None]]:
    """The wallet's sweep while the application runs; its calls stop with it."""

    @contextlib.asynccontextmanager
    async def run(app: web.Application) -> AsyncIterator[None]:
        task = asyncio.create_task(wallet.run())
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await wallet.close()

    return run

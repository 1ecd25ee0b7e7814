"""The seamless wallet's records wait out a database outage: a debit asked while PostgreSQL is
cut off is recorded, sent and answered once it is back, never dropped half-way (which once
left a table's close unpublished while its cards went out)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from tcprelay import Relay

from baccarat.platform.config import PlatformConfig
from baccarat.platform.seamless import SeamlessWallet, WalletClient
from baccarat.store import open_store
from baccarat.store.platform import Launched
from baccarat.store.wallet import DONE
from pgschema import private_schema

pytestmark = pytest.mark.postgres


async def _platform(balances: dict[str, int]) -> TestServer:
    """A platform's wallet that takes every debit it is sent (once per transaction id)."""
    seen: set[str] = set()

    async def debit(request: web.Request) -> web.Response:
        body: dict[str, Any] = await request.json()
        if body["transaction_id"] not in seen:
            seen.add(body["transaction_id"])
            balances[body["user"]] -= body["amount"]
        return web.json_response(
            {"transaction_id": body["transaction_id"], "balance": balances[body["user"]]}
        )

    app = web.Application()
    app.router.add_post("/debit", debit)
    server = TestServer(app, host="127.0.0.1", port=0)
    await server.start_server()
    return server


async def test_a_debit_asked_while_the_database_is_away_is_recorded_once_it_is_back() -> None:
    with private_schema("wallet") as direct:
        host_port = direct.split("@", 1)[1].split("/", 1)[0]
        relay = Relay(int(host_port.rsplit(":", 1)[1]) if ":" in host_port else 5432)
        url = direct.replace(f"@{host_port}/", f"@127.0.0.1:{relay.port}/", 1)
        store = await asyncio.to_thread(open_store, url)
        balances = {"p1": 10_000}
        platform = await _platform(balances)
        config = PlatformConfig(
            issuer="pf",
            audience="game",
            secret=b"s" * 32,
            wallet="seamless",
            wallet_url=f"http://127.0.0.1:{platform.port}",
            wallet_timeout=2.0,
        )
        wallet = SeamlessWallet(store, WalletClient(config))
        try:
            user = store.launch(Launched("p1", "P One", 1, "jti-1", 4e9))
            assert await wallet.keeps(user.user_id)
            relay.cut()
            took = asyncio.create_task(wallet.take("round-1", {user.user_id: 500}))
            await asyncio.sleep(1.5)
            assert not took.done()  # waiting on the database, not failed
            relay.mend()
            refused = await asyncio.wait_for(took, 30)
            assert refused == set()
            assert balances["p1"] == 9_500  # debited once
            calls = store.wallet_calls_between(0.0, 1e12)
            assert [(c.state, c.amount) for c in calls] == [(DONE, 500)]
        finally:
            await wallet.close()
            await platform.close()
            store.close()
            relay.close()

"""The API client against answers that are not the server's: a proxy's HTML page for a dead
node, a body that is not JSON. Each is a failed call (an ``HttpError``), never a crash, and a
bot looking for its table goes on to the next node. A command a node never answers gives up
(``no_answer``) rather than wait for good."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from baccarat.api import HttpError, lobby, login
from baccarat.bots import Bot, BotPlan
from baccarat.client import Client, CommandError
from baccarat.protocol.messages import hello

BAD_GATEWAY = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"


@pytest.fixture
async def proxy() -> AsyncIterator[str]:
    """A server on 127.0.0.1 that answers like nginx in front of a dead node, or worse."""

    async def bad_gateway(request: web.Request) -> web.Response:
        return web.Response(status=502, text=BAD_GATEWAY, content_type="text/html")

    async def not_json(request: web.Request) -> web.Response:
        return web.Response(status=200, text="OK", content_type="text/plain")

    async def a_list(request: web.Request) -> web.Response:
        return web.json_response([1, 2, 3])

    app = web.Application()
    app.router.add_get("/node/a/api/lobby", bad_gateway)
    app.router.add_post("/node/a/api/login", bad_gateway)
    app.router.add_get("/node/b/api/lobby", not_json)
    app.router.add_get("/node/c/api/lobby", a_list)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


@pytest.mark.parametrize(("node", "status"), [("a", 502), ("b", 200), ("c", 200)])
async def test_an_answer_that_is_not_a_json_object_is_a_failed_call(
    proxy: str, node: str, status: int
) -> None:
    with pytest.raises(HttpError) as failed:
        await lobby(f"{proxy}/node/{node}", "token")
    assert failed.value.status == status
    assert failed.value.code == f"http_{status}"
    assert "not JSON" in failed.value.message


async def test_a_login_through_a_dead_node_is_a_failed_call(proxy: str) -> None:
    with pytest.raises(HttpError) as failed:
        await login(f"{proxy}/node/a", "sam", "password1")
    assert (failed.value.status, failed.value.code) == (502, "http_502")


async def test_a_bot_looking_for_its_table_passes_over_a_dead_node(proxy: str) -> None:
    bot = Bot(f"{proxy}/node/a", "token", BotPlan(table_id="t1"), rng=random.Random(1))
    bot.route.remember([f"{proxy}/node/b", f"{proxy}/node/c"])
    # No node answers with a lobby (a 502 page, HTML, a list; the address alone is not
    # served): nothing raised, and the bot backs off and tries again at the same address.
    assert await asyncio.wait_for(bot.route.follow("t1"), 30) is False
    assert bot.route.url == f"{proxy}/node/a"


@pytest.fixture
async def silent_node() -> AsyncIterator[str]:
    """A node that says hello on its socket, then never answers a command."""

    async def socket(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        user = {"id": 1, "name": "u", "display_name": "u", "level": 60, "coins": 0}
        await ws.send_json(hello(user, 0.0, None, 10.0))
        async for _ in ws:
            pass  # read every command, answer none
        return ws

    app = web.Application()
    app.router.add_get("/ws", socket)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


async def test_a_command_the_server_never_answers_gives_up_with_no_answer(
    silent_node: str,
) -> None:
    client = await Client.connect(silent_node, "token")
    client.answer_timeout = 0.3
    try:
        with pytest.raises(CommandError) as sit:
            await client.sit("t1", 1)
        assert sit.value.code == "no_answer"
        with pytest.raises(CommandError) as watch:
            await client.watch("t1")
        assert watch.value.code == "no_answer"
        assert not client.closed  # the socket itself is fine: the caller decides
    finally:
        await client.close()

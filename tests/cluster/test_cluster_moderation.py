"""An operator's ban and lobby notice reach every node: two servers on one directory (in
process, and over Redis) and one database; the console of one closes the banned user's
socket on the other, and its lobby notice shows on the sockets of both."""

from __future__ import annotations

from pathlib import Path

import aiohttp
from console_nodes import NodeFactory, console_login, operator, running_nodes
from test_cluster_server import _rooms

from baccarat.client import Client
from baccarat.server.config import parse_rooms
from baccarat.store import open_store


async def test_a_ban_and_a_lobby_notice_reach_the_users_sockets_on_every_node(
    tmp_path: Path, nodes: NodeFactory
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'shared.db'}")
    secret = operator(store, "boss")
    cheat = store.create_user("cheat", "password1", level=50, coins=100_000)
    fair = store.create_user("fair", "password1", level=50, coins=100_000)
    clients: list[Client] = []
    rooms = parse_rooms(_rooms(["t1", "t2"]))
    try:
        async with running_nodes(store, rooms, nodes, speed=10.0, shutdown_grace=0.5) as running:
            (_, a), (_, b) = running
            # Both users are connected to node B only; the operator works on node A.
            on_b = await Client.connect(b, store.create_session(cheat.user_id))
            fair_b = await Client.connect(b, store.create_session(fair.user_id))
            fair_a = await Client.connect(a, store.create_session(fair.user_id))
            clients += [on_b, fair_b, fair_a]
            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
                await console_login(http, a, "boss", secret)
                notice = {"text": {"zh-TW": "全館公告", "en": "To all"}, "reason": "a test"}
                async with http.post(f"{a}/api/admin/notices", json=notice) as resp:
                    assert resp.status == 200
                for client in (fair_a, fair_b):
                    got = await client.wait_for(lambda m: m.get("type") == "notice", 5)
                    assert got["text"] == {"zh-TW": "全館公告", "en": "To all"}
                ban = {"reason": "sold coins"}
                url = f"{a}/api/admin/users/{cheat.user_id}/ban"
                async with http.post(url, json=ban) as resp:
                    assert resp.status == 200
            # The banned user's socket on the other node closes, with the ban's code.
            while await on_b.next_message(timeout=5) is not None:
                pass
            assert on_b.close_code == 4003
            assert not fair_b.closed and not fair_a.closed
    finally:
        for client in clients:
            await client.close()
        store.close()

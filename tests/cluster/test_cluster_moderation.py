"""An operator's ban and lobby notice reach every node: two servers on one directory (in
process, and over Redis) and one database; the console of one closes the banned user's
socket on the other, and its lobby notice shows on the sockets of both."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import aiohttp
import pyotp
from aiohttp.test_utils import TestServer
from test_cluster_server import _rooms

from baccarat.client import Client
from baccarat.cluster import Directory
from baccarat.server import Server, create_app
from baccarat.server.config import parse_rooms
from baccarat.store import open_store
from serving import free_port

NodeFactory = Callable[[], Directory]


async def test_a_ban_and_a_lobby_notice_reach_the_users_sockets_on_every_node(
    tmp_path: Path, nodes: NodeFactory
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'shared.db'}")
    op = store.create_user("boss", "password1", level=50)
    store.set_role(op.user_id, "operator", "a test operator")
    secret = pyotp.random_base32()
    store.set_totp(op.user_id, secret, enrolled=True)
    cheat = store.create_user("cheat", "password1", level=50, coins=100_000)
    fair = store.create_user("fair", "password1", level=50, coins=100_000)
    servers: list[TestServer] = []
    clients: list[Client] = []
    try:
        bases = []
        for node in ("A", "B"):
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            server = Server(store, parse_rooms(_rooms(["t1", "t2"])), speed=10.0, shutdown_grace=0.5,
                            directory=nodes(), node_id=node, public_url=base)  # fmt: skip
            ts = TestServer(create_app(server), host="127.0.0.1", port=port)
            await ts.start_server()
            servers.append(ts)
            bases.append(base)
        a, b = bases
        # Both users are connected to node B only; the operator works on node A.
        on_b = await Client.connect(b, store.create_session(cheat.user_id))
        fair_b = await Client.connect(b, store.create_session(fair.user_id))
        fair_a = await Client.connect(a, store.create_session(fair.user_id))
        clients += [on_b, fair_b, fair_a]
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            creds = {"username": "boss", "password": "password1", "code": pyotp.TOTP(secret).now()}
            async with http.post(f"{a}/api/admin/login", json=creds) as resp:
                assert resp.status == 200
            notice = {"text": {"zh-TW": "全館公告", "en": "To all"}, "reason": "a test"}
            async with http.post(f"{a}/api/admin/notices", json=notice) as resp:
                assert resp.status == 200
            for client in (fair_a, fair_b):
                got = await client.wait_for(lambda m: m.get("type") == "notice", 5)
                assert got["text"] == {"zh-TW": "全館公告", "en": "To all"}
            ban = {"reason": "sold coins"}
            async with http.post(f"{a}/api/admin/users/{cheat.user_id}/ban", json=ban) as resp:
                assert resp.status == 200
        # The banned user's socket on the other node closes, with the ban's code.
        while await on_b.next_message(timeout=5) is not None:
            pass
        assert on_b.close_code == 4003
        assert not fair_b.closed and not fair_a.closed
    finally:
        for client in clients:
            await client.close()
        for ts in servers:
            await ts.close()
        store.close()

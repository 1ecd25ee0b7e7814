"""Two servers in this process on one directory and one database, as nodes of one system,
and operators who log in to their console."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pyotp
from aiohttp.test_utils import TestServer

from baccarat.cluster import Directory
from baccarat.server import Server, create_app
from baccarat.store import Store
from serving import free_port

NodeFactory = Callable[[], Directory]


@asynccontextmanager
async def running_nodes(
    store: Store, rooms: Any, nodes: NodeFactory, **options: Any
) -> AsyncIterator[list[tuple[Server, str]]]:
    """Nodes A and B on ``store`` and the directory of ``nodes``: each server and its URL."""
    running: list[tuple[Server, str]] = []
    runners: list[TestServer] = []
    try:
        for node in ("A", "B"):
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            server = Server(
                store, rooms, directory=nodes(), node_id=node, public_url=url, **options
            )
            runner = TestServer(create_app(server), host="127.0.0.1", port=port)
            await runner.start_server()
            runners.append(runner)
            running.append((server, url))
        yield running
    finally:
        for runner in runners:
            await runner.close()


def operator(store: Store, name: str) -> str:
    """A new operator ``name`` (password ``password1``) with an enrolled authenticator: its
    secret."""
    user = store.create_user(name, "password1", level=50)
    store.set_role(user.user_id, "operator", "a test operator")
    secret = pyotp.random_base32()
    store.set_totp(user.user_id, secret, enrolled=True)
    return secret


async def console_login(http: aiohttp.ClientSession, url: str, name: str, secret: str) -> None:
    """Log ``http`` in to the console at ``url`` as the operator ``name``."""
    creds = {"username": name, "password": "password1", "code": pyotp.TOTP(secret).now()}
    async with http.post(f"{url}/api/admin/login", json=creds) as resp:
        assert resp.status == 200, await resp.text()

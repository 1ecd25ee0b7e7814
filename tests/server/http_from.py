"""HTTP requests to a live server from a chosen loopback address (127.0.0.x).

Linux answers on the whole of 127.0.0.0/8, so a client bound to 127.0.0.2 reaches a server
on 127.0.0.1 and the server sees a different peer address: rate limits by address are
tested over real sockets.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import aiohttp


@dataclass
class Answer:
    """An HTTP answer: status, JSON body (or None), headers."""

    status: int
    body: Any
    headers: dict[str, str]

    @property
    def code(self) -> str | None:
        """The error code of an error answer."""
        return (
            self.body["error"]["code"]
            if isinstance(self.body, dict) and "error" in self.body
            else None
        )


async def post(
    base: str,
    path: str,
    body: Any,
    *,
    source: str = "127.0.0.1",
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
) -> Answer:
    """POST ``body`` as JSON (or ``raw`` bytes with the given headers) from ``source``."""
    connector = aiohttp.TCPConnector(local_addr=(source, 0))
    async with aiohttp.ClientSession(connector=connector) as http:
        data = raw if raw is not None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", **(headers or {})}
        async with http.post(base + path, data=data, headers=sent) as resp:
            text = await resp.text()
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            return Answer(resp.status, parsed, dict(resp.headers))


async def login_from(base: str, name: str, password: str, source: str = "127.0.0.1") -> Answer:
    """POST /api/login from ``source``."""
    return await post(base, "/api/login", {"username": name, "password": password}, source=source)

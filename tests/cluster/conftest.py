"""Fixtures: a directory per back end, and "nodes" that share it.

A local directory is shared by handing out the same object; Redis nodes are separate
connections under one fresh key prefix, removed after the test.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from baccarat.cluster import Directory, LocalDirectory, RedisDirectory

REDIS_URL = os.environ.get("BACCARAT_TEST_REDIS", "redis://127.0.0.1:6379/0")

NodeFactory = Callable[[], Directory]


async def _reachable() -> bool:
    client = Redis.from_url(REDIS_URL, socket_connect_timeout=1.0)
    try:
        return bool(await client.ping())
    except (RedisConnectionError, OSError):
        return False
    finally:
        await client.aclose()


@pytest.fixture(params=["local", "redis"])
async def nodes(request: pytest.FixtureRequest) -> AsyncIterator[NodeFactory]:
    """A factory of directory handles that all see one shared directory."""
    if request.param == "local":
        shared = LocalDirectory()
        yield lambda: shared
        return
    if not await _reachable():
        pytest.skip(f"Redis is not reachable at {REDIS_URL} (set BACCARAT_TEST_REDIS)")
    prefix = f"test:{uuid.uuid4().hex}:"
    made: list[RedisDirectory] = []

    def node() -> Directory:
        directory = RedisDirectory.from_url(REDIS_URL, prefix)
        made.append(directory)
        return directory

    try:
        yield node
    finally:
        cleaner = Redis.from_url(REDIS_URL)
        keys = [k async for k in cleaner.scan_iter(match=f"{prefix}*")]
        if keys:
            await cleaner.delete(*keys)
        await cleaner.aclose()
        for directory in made:
            await directory.close()

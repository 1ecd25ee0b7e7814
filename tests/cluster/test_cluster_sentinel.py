"""The directory through Redis Sentinel: a ``redis+sentinel://`` URL names the sentinels and
the master's service, the directory's keys land on the master they name, and after a
failover its calls go to the promoted replica.

Every Redis here is the test's own, on free 127.0.0.1 ports: a master, a replica of it, and
a sentinel watching them (``redis-server --sentinel``).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import pytest
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from baccarat.cli import main
from baccarat.cluster import RedisDirectory
from baccarat.cluster.outage import part_down
from baccarat.cluster.remote import check_url
from baccarat.cluster.sentinel import PORT, SentinelUrl, parse
from baccarat.errors import InvalidInput
from services import OwnRedis, own_redis, own_sentinel
from serving import wait_until


def test_a_sentinel_url_names_the_sentinels_the_service_and_the_database() -> None:
    url = (
        "redis+sentinel://:s%40fe@10.0.0.1:26380,[::1],sentinel-c:26381/baccarat/2"
        "?sentinel_password=watch"
    )
    assert parse(url) == SentinelUrl(
        (("10.0.0.1", 26380), ("::1", PORT), ("sentinel-c", 26381)),
        "baccarat",
        2,
        None,
        "s@fe",
        None,
        "watch",
    )
    assert parse("redis+sentinel://h/baccarat").db == 0


@pytest.mark.parametrize(
    "url",
    [
        "redis+sentinel://h:26379",
        "redis+sentinel://h:26379/",
        "redis+sentinel://h:26379/baccarat/x",
        "redis+sentinel://h:26379/baccarat/0/extra",
        "redis+sentinel://h:port/baccarat",
        "redis+sentinel:///baccarat",
        "redis+sentinel://[::1/baccarat",
        "redis+sentinel://h/baccarat?socket_timeout=1",
        "sentinel://h:26379/baccarat",
        "redis://h:port/0",
    ],
)
def test_a_malformed_redis_url_is_refused(url: str) -> None:
    with pytest.raises(InvalidInput) as err:
        check_url(url)
    assert err.value.code == "bad_redis_url"


def test_serve_refuses_a_malformed_sentinel_url_before_it_opens_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "baccarat.db"
    argv = ["serve", "--db", f"sqlite:///{db}", "--keys", str(tmp_path / "keys")]
    assert main([*argv, "--redis", "redis+sentinel://h:26379", "--port", "8000"]) == 2
    assert "is not a Redis Sentinel URL" in capsys.readouterr().err
    assert not db.exists()


async def _until_master(directory: RedisDirectory, node: str, limit: float = 30.0) -> float:
    """Register ``node`` until a master takes it (a directory outage meanwhile); seconds."""
    start = time.monotonic()
    while True:
        try:
            await directory.register(node, f"http://{node.lower()}:8000", ttl=30.0)
            return time.monotonic() - start
        except Exception as exc:
            assert part_down(exc) == "directory", exc
            assert time.monotonic() - start < limit, "gave up waiting for the new master"
            await asyncio.sleep(0.1)


async def test_the_directory_works_through_sentinel_and_follows_a_failover() -> None:
    with own_redis() as master:
        replica = OwnRedis(replica_of=master)
        replica.start()
        try:
            with own_sentinel(master) as sentinel:
                prefix = f"test:{uuid.uuid4().hex}:"
                directory = RedisDirectory.from_url(sentinel.url, prefix)
                try:
                    await directory.register("A", "http://a:8000", ttl=30.0)
                    assert await directory.nodes() == {"A": "http://a:8000"}
                    # The keys are on the master the sentinel names, under the prefix.
                    with Redis(port=master.port) as direct:
                        assert direct.hget(f"{prefix}node:A", "url") == b"http://a:8000"

                    wait_until(sentinel.replicas, "the sentinel to know the replica", limit=30)
                    master.kill()
                    with pytest.raises(RedisConnectionError):
                        await directory.register("B", "http://b:8000", ttl=30.0)
                    await _until_master(directory, "B")
                    with Redis(port=replica.port) as promoted:
                        assert promoted.role()[0] == b"master"
                        assert promoted.hget(f"{prefix}node:B", "url") == b"http://b:8000"
                finally:
                    await directory.close()
        finally:
            replica.kill()

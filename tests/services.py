"""Throwaway Redis and PostgreSQL servers of a test's own, on free 127.0.0.1 ports.

A test that restarts a service starts its own, so the shared ones other suites use keep
running: ``own_redis`` runs ``redis-server`` without persistence (a restart comes back
empty, as a cache would), ``own_postgres`` a fresh cluster made with ``initdb`` in a
temporary directory (as the ``postgres`` user when run as root, since PostgreSQL refuses
to run as root). Both skip the test when the program is not installed.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis import Redis

from serving import free_port, wait_until


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


class OwnRedis:
    """A ``redis-server`` of this test's own; ``restart`` kills it and starts it empty.
    ``replica_of`` makes it a replica of another (``--replicaof``)."""

    def __init__(self, replica_of: OwnRedis | None = None) -> None:
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server is not installed")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self._follow = (
            [] if replica_of is None else ["--replicaof", "127.0.0.1", str(replica_of.port)]
        )

    def start(self) -> None:
        """Start it and wait until it answers."""
        self.proc = subprocess.Popen(
            [
                "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--loglevel", "warning",
                *self._follow,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_until(lambda: _listening(self.port), "redis-server to listen")

    def kill(self) -> None:
        """SIGKILL it: every key is gone."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        """Kill it and start it again, empty, on the same port."""
        self.kill()
        self.start()


@contextlib.contextmanager
def own_redis() -> Iterator[OwnRedis]:
    """A running private Redis, killed on exit."""
    redis = OwnRedis()
    redis.start()
    try:
        yield redis
    finally:
        redis.kill()


class OwnSentinel:
    """A Redis Sentinel of this test's own (``redis-server --sentinel``) that watches
    ``master`` under the service name ``service``, and fails it over to a replica one second
    after it stops answering."""

    def __init__(self, master: OwnRedis, service: str = "baccarat") -> None:
        self.port = free_port()
        self.service = service
        self.url = f"redis+sentinel://127.0.0.1:{self.port}/{service}/0"
        self.dir = Path(tempfile.mkdtemp(prefix="baccarat-sentinel-"))
        # The sentinel rewrites its file as it learns the replicas and the failovers.
        (self.dir / "sentinel.conf").write_text(
            f"port {self.port}\nbind 127.0.0.1\ndir {self.dir}\n"
            f"sentinel monitor {service} 127.0.0.1 {master.port} 1\n"
            f"sentinel down-after-milliseconds {service} 1000\n"
            f"sentinel failover-timeout {service} 5000\n"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start it and wait until it answers."""
        self.proc = subprocess.Popen(
            [
                "redis-server",
                str(self.dir / "sentinel.conf"),
                "--sentinel",
                "--loglevel",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: _listening(self.port), "the sentinel to listen")

    def replicas(self) -> int:
        """How many replicas of the master it knows (only those can be promoted)."""
        with Redis(port=self.port, socket_timeout=1.0) as client:
            return len(client.sentinel_slaves(self.service))

    def close(self) -> None:
        """Stop it and remove its file."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


@contextlib.contextmanager
def own_sentinel(master: OwnRedis) -> Iterator[OwnSentinel]:
    """A running Sentinel of the test's own watching ``master``, stopped on exit."""
    sentinel = OwnSentinel(master)
    try:
        sentinel.start()
        yield sentinel
    finally:
        sentinel.close()


def _pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if found:
        return found[-1]
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"PostgreSQL's {name} is not installed")
    return path


class OwnPostgres:
    """A PostgreSQL cluster of this test's own: ``stop`` and ``start`` it at will; a
    ``standby`` of it streams its writes and is ``promote``d to take them over."""

    def __init__(self, primary: OwnPostgres | None = None) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="baccarat-pg-"))
        self.data = self.dir / "data"
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._user: str | None = None
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root without a postgres user to run PostgreSQL as")
            self._user = "postgres"
            shutil.chown(self.dir, "postgres")
        if primary is None:
            self._run(_pg_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres")
        else:
            # A copy of the running primary, told to stream its writes from it (-R).
            self._run(
                _pg_bin("pg_basebackup"), "-D", str(self.data), "-h", "127.0.0.1",
                "-p", str(primary.port), "-U", "postgres", "-X", "stream", "-R", "-c", "fast",
            )  # fmt: skip

    def standby(self) -> OwnPostgres:
        """A streaming replica of this running cluster, started (it takes no writes)."""
        standby = OwnPostgres(self)
        standby.start()
        return standby

    def promote(self) -> None:
        """Make this standby a primary, and wait until it takes writes."""
        self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-w", "promote")

    def _run(self, *argv: str) -> None:
        cmd = list(argv) if self._user is None else ["runuser", "-u", self._user, "--", *argv]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def start(self) -> None:
        """Start the cluster and wait until it accepts connections."""
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} "
            "-c fsync=off -c full_page_writes=off"
        )
        self._run(
            _pg_bin("pg_ctl"), "-D", str(self.data), "-o", options,
            "-l", str(self.dir / "log"), "-w", "start",
        )  # fmt: skip

    def stop(self) -> None:
        """Stop it fast: open connections are cut, nothing committed is lost."""
        self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def close(self) -> None:
        """Stop it if running and remove its files."""
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@contextlib.contextmanager
def own_postgres() -> Iterator[OwnPostgres]:
    """A running private PostgreSQL cluster, removed on exit."""
    pg = OwnPostgres()
    try:
        pg.start()
        yield pg
    finally:
        pg.close()


REDIS_URL = os.environ.get("BACCARAT_TEST_REDIS", "redis://127.0.0.1:6379/0")
"""The shared Redis the cluster tests use (each under a prefix of its own)."""


@contextlib.contextmanager
def redis_prefix() -> Iterator[str]:
    """A key prefix of the test's own in the shared Redis, its keys deleted on exit (the
    test is skipped when Redis is not reachable)."""
    client = Redis.from_url(REDIS_URL, socket_connect_timeout=1.0)
    try:
        client.ping()
    except Exception:
        client.close()
        pytest.skip(f"Redis is not reachable at {REDIS_URL} (set BACCARAT_TEST_REDIS)")
    prefix = f"test:{uuid.uuid4().hex}:"
    try:
        yield prefix
    finally:
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()

"""``baccarat serve --workers 2``: two nodes of one system from one command, one database and
one Redis. Both answer on their ports, every table runs on exactly one of them, each on
the worker whose share it is, and both lobbies say which; a worker killed with SIGKILL is started again and comes back as the same
node; SIGTERM stops both cleanly. A command line that cannot make one system is refused."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from test_cluster_serve import _rooms

from services import redis_prefix
from serving import READY_LIMIT, health, run_serve, start_serve, wait_until


def _two_free_ports() -> int:
    """A port P such that P and P+1 are both free now."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port >= 65535:
            continue
        with socket.socket() as other, contextlib.suppress(OSError):
            other.bind(("127.0.0.1", port + 1))
            return port
    raise AssertionError("no two free ports in a row")


def _lobby(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(base + "/api/lobby", timeout=5) as resp:
        return {t["table_id"]: t for t in json.load(resp)["tables"]}


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    out.add(int(entry.name))
    return out


def _serving(pid: int, port: int) -> int | None:
    """The child of ``pid`` holding the socket that listens on ``port`` (from /proc)."""
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state = fields[1], fields[3]
        if state == "0A" and int(local.split(":")[1], 16) == port:
            inode = fields[9]
    if inode is None:
        return None
    for child in _children(pid):
        with contextlib.suppress(OSError):
            for fd in (Path("/proc") / str(child) / "fd").iterdir():
                if os.readlink(fd) == f"socket:[{inode}]":
                    return child
    return None


def test_two_workers_make_one_system_come_back_when_killed_and_stop_cleanly(
    tmp_path: Path,
) -> None:
    with redis_prefix() as prefix:
        port = _two_free_ports()
        a, b = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port + 1}"
        tables = ["t1", "t2", "t3", "t4"]
        served = start_serve(
            "--workers", "2", "--db", f"sqlite:///{tmp_path / 'w.db'}",
            "--rooms", str(_rooms(tmp_path / "rooms.toml", tables)), "--speed", "10",
            "--redis", "redis://127.0.0.1:6379/0", "--redis-prefix", prefix,
            "--node-id", "w{n}", "--lease-ttl", "5", "--log-level", "warning",
            port=port,
        )  # fmt: skip
        with served:
            wait_until(lambda: health(b)["ok"], "the second worker to answer")
            # Every table runs once, on one of the two, and both lobbies agree on where.
            wait_until(lambda: sum(health(u)["tables"] for u in (a, b)) == len(tables), "4 tables")
            # A table's line reaches the lobbies at the next lobby tick after it runs.
            wait_until(lambda: len(_lobby(a)) == len(tables), "A's lobby to list every table")
            # Worker i leases every second table first: the first one up takes only its own.
            where = {t: line["url"] for t, line in _lobby(a).items()}
            assert where == {"t1": a, "t2": b, "t3": a, "t4": b}
            assert {t: line["node_id"] for t, line in _lobby(a).items()} == {
                "t1": "w0",
                "t2": "w1",
                "t3": "w0",
                "t4": "w1",
            }
            wait_until(lambda: {t: x["url"] for t, x in _lobby(b).items()} == where, "B's lobby")

            # SIGKILL the second worker: the parent starts it again, as the same node.
            killed = _serving(served.proc.pid, port + 1)
            assert killed is not None, "no worker listens on the second port"
            os.kill(killed, signal.SIGKILL)
            back = wait_until(
                lambda: (p := _serving(served.proc.pid, port + 1)) not in (None, killed) and p,
                "the killed worker to be started again",
                READY_LIMIT,
            )
            assert back != killed and health(b)["ok"]
            wait_until(
                lambda: sum(health(u)["tables"] for u in (a, b)) == len(tables),
                "every table running again",
            )
            assert {x["node_id"] for x in _lobby(b).values()} <= {"w0", "w1"}

            # SIGTERM: both workers drain and stop, and so does the parent, with 0.
            assert served.stop() == 0
            for url in (a, b):
                with pytest.raises(OSError):
                    health(url)


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ([], "give --redis URL"),
        (["--redis", "redis://127.0.0.1:6379/0", "--port", "0"], "fixed --port"),
        (
            ["--redis", "redis://127.0.0.1:6379/0", "--public-url", "https://cards.example.com"],
            "put {n} where its number goes",
        ),
        (["--redis", "redis://127.0.0.1:6379/0", "--node-id", "node"], "--node-id names"),
        (["--redis", "redis://127.0.0.1:6379/0", "--port", "65535"], "past port 65535"),
    ],
)
def test_workers_refuse_a_command_line_that_is_not_one_system(
    tmp_path: Path, extra: list[str], said: str
) -> None:
    done = run_serve("--workers", "2", "--db", f"sqlite:///{tmp_path / 'x.db'}", *extra)
    assert done.returncode == 2
    assert said in done.stderr and done.stderr.count("\n") == 1
    assert not (tmp_path / "x.db").exists()

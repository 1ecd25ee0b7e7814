"""Two nodes on PostgreSQL and Redis share the packaged tables: a node started after the
first takes its share within 45 s, a node killed and restarted takes its share back the same
way, every move between them is a planned handover at a round's end (nothing voided), and
the audit is clean."""

from __future__ import annotations

import signal
import time
from contextlib import ExitStack
from pathlib import Path

from baccarat.store import open_store
from pgschema import private_schema
from services import REDIS_URL, redis_prefix
from serving import Serve, free_port, health, start_serve, wait_until

TTL = "3"


def _node(db: str, prefix: str, name: str, *extra: str, log: Path) -> Serve:
    port = free_port()
    return start_serve(
        "--db", db, "--speed", "4", "--redis", REDIS_URL, "--redis-prefix", prefix,
        "--node-id", name, "--public-url", f"http://127.0.0.1:{port}", "--lease-ttl", TTL,
        "--log-level", "warning", *extra,
        port=port, log=log,
    )  # fmt: skip


def _tables(node: Serve) -> int:
    return int(health(node.url)["tables"])


def test_a_joining_and_a_returning_node_each_take_their_share(tmp_path: Path) -> None:
    with ExitStack() as stack:
        db = stack.enter_context(private_schema("spread"))
        prefix = stack.enter_context(redis_prefix())
        keys = ("--keys", str(tmp_path / "keys"))
        a = stack.enter_context(_node(db, prefix, "A", "--demo", *keys, log=tmp_path / "a.log"))
        wait_until(lambda: _tables(a) == 8, "the first node to run every table")
        started = time.monotonic()
        b = stack.enter_context(_node(db, prefix, "B", *keys, log=tmp_path / "b.log"))
        wait_until(lambda: _tables(b) >= 3 and _tables(a) + _tables(b) == 8, "B's share", 45)
        joined = time.monotonic() - started
        wait_until(lambda: (_tables(a), _tables(b)) == (4, 4), "an even split", 45)

        a.proc.send_signal(signal.SIGKILL)
        a.proc.wait()
        killed = time.monotonic()
        wait_until(lambda: _tables(b) == 8, "B to take every table over", 30)
        took_over = time.monotonic() - killed
        a = stack.enter_context(_node(db, prefix, "A", *keys, log=tmp_path / "a2.log"))
        started = time.monotonic()
        wait_until(lambda: _tables(a) >= 3, "the restarted node's share", 45)
        returned = time.monotonic() - started
        wait_until(lambda: (_tables(a), _tables(b)) == (4, 4), "an even split again", 45)
        assert a.stop() == 0 and b.stop() == 0
        print(
            f"joined in {joined:.1f} s, took A's 4 tables over {took_over:.1f} s after the kill"
            f" (ttl {TTL} s), took its share back in {returned:.1f} s"
        )

        store = open_store(db)
        try:
            report = store.audit()
        finally:
            store.close()
        assert report.ok, report.problems
        assert report.rounds > 0
        # Only the kill may void a round (one per table at most); no handover voids any.
        assert set(report.void_reasons) <= {"crash"}, report.void_reasons
        assert report.void_reasons.get("crash", 0) <= 8

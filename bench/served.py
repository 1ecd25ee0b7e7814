"""A ``baccarat serve`` subprocess for the benches: fresh SQLite file, accounts, captured logs.

Used by ``fuzz_protocol.py`` and ``bench_hostile.py``: the server runs as it would in
production (its own process, uvloop, JSON logs on stderr, kept in a file the bench reads).
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from argon2 import PasswordHasher

from baccarat.store import open_store

ROOMS = """
[server]
login_attempts_per_ip = 1000000
login_attempts = 1000000
command_rate = {command_rate}
[[rooms]]
id = "standard"
chip_unit = 100
tables = ["t1", "t2"]
"""


@dataclass
class Served:
    """A running server and what the bench needs to talk to it and judge it."""

    base: str
    db: str
    proc: subprocess.Popen[str]
    log: Path
    tokens: dict[str, str] = field(default_factory=dict)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 30 s); a second call does nothing."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def rss_mb(self) -> float:
        """The server's resident memory now."""
        text = Path(f"/proc/{self.proc.pid}/status").read_text()
        match = re.search(r"VmRSS:\s+(\d+) kB", text)
        return int(match.group(1)) / 1024 if match else float("nan")

    def problems(self) -> list[dict[str, object]]:
        """Every log line at ERROR or above, and every line that is not JSON (a traceback)."""
        out: list[dict[str, object]] = []
        for line in self.log.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                out.append({"raw": line})
                continue
            if record.get("level") in ("error", "critical") or "exc" in record:
                out.append(record)
        return out


@contextlib.contextmanager
def served(
    accounts: dict[str, int], *, command_rate: float = 1e9, log_level: str = "info"
) -> Iterator[Served]:
    """Start a server with ``accounts`` (name -> coins), each with a session; stop it and
    delete its files after (``Served.stop`` stops it earlier, to read its database)."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-served-"))
    rooms = tmp / "rooms.toml"
    rooms.write_text(ROOMS.format(command_rate=command_rate), encoding="utf-8")
    db = f"sqlite:///{tmp / 'bench.db'}"
    store = open_store(db, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    tokens = {}
    for name, coins in accounts.items():
        user = store.create_user(name, "password", coins=coins)
        tokens[name] = store.create_session(user.user_id)
    store.close()
    log = tmp / "serve.log"
    with log.open("w", encoding="utf-8") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "baccarat",
                "serve",
                "--db",
                db,
                "--rooms",
                str(rooms),
                "--port",
                "0",
                "--log-level",
                log_level,
            ],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    base = ""
    try:
        assert proc.stdout is not None
        while not base:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"the server did not start; see {log}")
            found = re.search(r"http://[\d.]+:\d+", line)
            base = found.group(0) if found and "open:" in line else ""
        yield Served(base, db, proc, log, tokens)
    finally:
        Served(base, db, proc, log).stop()
        shutil.rmtree(tmp, ignore_errors=True)

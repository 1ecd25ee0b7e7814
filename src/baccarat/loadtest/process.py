"""The server under test as a child process: started pinned to a core, measured from /proc."""

from __future__ import annotations

import contextlib
import os
import platform
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
READY = re.compile(r"(?:open|listening):\s+(http://\S+?)/?$")


def cores() -> list[int]:
    """The cores this process may run on, in order."""
    return sorted(os.sched_getaffinity(0))


def pin(pid: int, core: int | None) -> None:
    """Keep ``pid`` on one core (no-op for None, or when the core is not ours)."""
    if core is not None and core in os.sched_getaffinity(0):
        os.sched_setaffinity(pid, {core})


def machine() -> dict[str, Any]:
    """The machine and its load when the run started."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "python": platform.python_version(),
        "cpu": model,
        "cores": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


class ServerProcess:
    """A server started as ``python -m ...``; it prints its URL once it is ready."""

    def __init__(
        self,
        argv: list[str],
        *,
        core: int | None,
        log: Path,
        env: dict[str, str] | None = None,
    ) -> None:
        self.log = log
        self._out = log.open("w", encoding="utf-8")
        self.metrics_token = secrets.token_hex(16)
        """The bearer the server's ``/metrics`` answers (a bare server has none)."""
        self.proc = subprocess.Popen(
            [sys.executable, *argv],
            stdout=subprocess.PIPE,
            stderr=self._out,
            text=True,
            env={
                **os.environ,
                "PYTHONUNBUFFERED": "1",
                "BACCARAT_METRICS_TOKEN": self.metrics_token,
                **(env or {}),
            },
        )
        pin(self.proc.pid, core)
        self.url = ""

    def wait_ready(self, timeout: float = 300.0) -> str:
        """Read the server's output until it names its URL; return the URL."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self._out.write(line)
            found = READY.search(line.strip())
            if found:
                self.url = found.group(1)
                return self.url
        self.stop()
        raise RuntimeError(f"the server did not start; see {self.log}")

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self.proc.pid

    def cpu_seconds(self) -> float:
        """User plus system CPU time the server has used."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    def rss_mb(self) -> float:
        """The server's resident memory in MB."""
        text = Path(f"/proc/{self.pid}/status").read_text()
        found = re.search(r"VmRSS:\s+(\d+) kB", text)
        return int(found.group(1)) / 1024 if found else float("nan")

    def stop(self, timeout: float = 120.0) -> None:
        """SIGTERM, then SIGKILL if it does not stop in time."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            with contextlib.suppress(ValueError):
                self._out.write(self.proc.stdout.read())
            self.proc.stdout.close()
        self._out.close()

"""``baccarat serve`` as an operator runs it, for the tests that need the real command.

``start_serve`` launches it in a subprocess and returns once it is ready: with ``--port 0``
(the default) when it has printed its stop hint (its address is on the ``open:`` line);
with a port of the test's choosing when ``/healthz`` answers. Its log goes to a file, whose
end is shown when the server ends before it is ready. ``wait_until`` and ``free_port`` are
the waiting and the port picking every such test needs.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

READY_LIMIT = 60.0
"""Seconds a server may take to be ready (a bound on a hang, not a speed test)."""


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(predicate: Callable[[], T], what: str, limit: float = 60.0, every: float = 0.1) -> T:
    """Poll ``predicate`` until it returns something truthy, and return that (a bound on a
    hang, not a speed test). An ``OSError`` (nothing listens yet) counts as not yet."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        with contextlib.suppress(OSError):
            value = predicate()
            if value:
                return value
        time.sleep(every)
    raise AssertionError(f"gave up waiting for {what}")


def health(base: str) -> dict[str, Any]:
    """``GET /healthz`` (its body also when it answers 503); an ``OSError`` if nobody answers."""
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=5) as resp:
            body: dict[str, Any] = json.load(resp)
    except urllib.error.HTTPError as exc:
        with exc:
            body = json.load(exc)
    return body


@dataclass
class Serve:
    """A running ``baccarat serve``."""

    proc: subprocess.Popen[str]
    url: str
    """Where it listens, without a trailing slash."""
    log: Path
    """Its standard error (and its standard output, when nobody reads that)."""
    lines: list[str] = field(default_factory=list)
    """What it printed up to its stop hint (``--port 0`` only)."""
    own_log: bool = False
    """The log is a temporary file of ours, removed when the server has stopped."""

    def tail(self) -> str:
        """The end of its log, for a message about why it ended."""
        return self.log.read_text(errors="replace")[-2000:]

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM (after SIGCONT, in case a test froze it), and wait; its exit status (it
        is killed if it does not stop within ``timeout``)."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGCONT)
                self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"serve did not stop within {timeout} s: {self.tail()}") from None
        finally:
            if self.proc.stdout is not None:
                self.proc.stdout.close()
        if self.own_log:
            self.log.unlink(missing_ok=True)
        return code

    def __enter__(self) -> Serve:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(AssertionError):
                self.stop()


def start_serve(
    *args: str,
    port: int | None = None,
    host: str = "127.0.0.1",
    log: Path | None = None,
    env: dict[str, str] | None = None,
    healthy: bool = True,
    limit: float = READY_LIMIT,
) -> Serve:
    """Start ``baccarat serve ARGS`` and return it once ready.

    Without ``port`` it listens on a port of its own choosing (``--port 0``) and is ready
    when it prints its stop hint. With ``port`` (``host`` too, for another loopback
    address) it is ready when ``/healthz`` answers, ``"ok"`` unless ``healthy`` is False.
    ``env`` is added to this process's environment; ``limit`` bounds the wait.
    """
    own_log = log is None
    if log is None:
        fd, name = tempfile.mkstemp(prefix="baccarat-serve-", suffix=".log")
        os.close(fd)
        log = Path(name)
    listen = ["--port", "0"] if port is None else ["--host", host, "--port", str(port)]
    argv = [sys.executable, "-m", "baccarat", "serve", *listen, *args]
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    with log.open("ab") as err:
        proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE if port is None else err,
            stderr=err,
            text=True,
            env=full_env,
        )
    if port is None:
        served = Serve(proc, "", log, own_log=own_log)
        served.lines = _ready_lines(served)
        found = next((m for line in served.lines if (m := re.search(r"open:\s+(\S+)", line))), None)
        assert found is not None, f"serve printed no address: {served.lines}"
        served.url = found.group(1).rstrip("/")
        return served
    served = Serve(proc, f"http://{host}:{port}", log, own_log=own_log)

    def ready() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"serve ended before it was ready: {served.tail()}")
        return bool(health(served.url)["ok"]) or not healthy

    wait_until(ready, "serve to answer /healthz", limit)
    return served


def _ready_lines(served: Serve) -> list[str]:
    stdout = served.proc.stdout
    assert stdout is not None
    lines: list[str] = []
    while not lines or "Ctrl-C" not in lines[-1]:
        line = stdout.readline()
        if not line:
            served.proc.wait()
            raise AssertionError(f"serve ended before it was ready: {served.tail()}")
        lines.append(line)
    return lines


def run_serve(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``baccarat serve ARGS`` to its end (one that refuses to start), its output kept."""
    return subprocess.run(
        [sys.executable, "-m", "baccarat", "serve", *args],
        capture_output=True,
        text=True,
        timeout=READY_LIMIT,
    )


@contextlib.contextmanager
def listening(argv: list[str], port: int, what: str) -> Iterator[None]:
    """Run ``argv`` in the foreground until the block ends, once it listens on ``port`` (a
    proxy such as nginx or HAProxy); its standard error says why when it ends before."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"{what} does not listen")
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()

"""The platform's stand-in for a fault run: ``examples/platform/app.py`` in seamless mode (it
keeps its users' coins and the game asks its wallet each round), a process that can be
stopped and started again on the same port and data."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import IO

from serving import free_port, wait_until

APP = Path(__file__).resolve().parents[2] / "examples" / "platform" / "app.py"


class StandIn:
    """The platform stand-in for the game at ``game``."""

    def __init__(self, data: Path, game: str) -> None:
        self.data = data
        self.game = game
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        """Where it answers."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def game_file(self) -> Path:
        """The file ``baccarat serve --platform`` reads (written at its first start)."""
        return self.data / "game.toml"

    def start(self) -> None:
        """Start it and wait until it answers."""
        if self._log is None:
            self._log = (self.data.parent / "platform.log").open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, str(APP), "--game", self.game, "--port", str(self.port),
             "--data", str(self.data), "--wallet", "seamless"],
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        wait_until(lambda: self._call("GET", "/admin/users") is not None, "the platform")

    def stop(self) -> None:
        """SIGTERM, and wait for it to end."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(15)
        self.proc = None

    def add_user(self, user: str, coins: int) -> None:
        """A user of level 60 with ``coins`` in the platform's wallet."""
        self._call("POST", "/admin/users", {"id": user, "name": user, "level": 60, "coins": coins})

    def _call(self, method: str, path: str, data: object = None) -> object:
        body = None if data is None else json.dumps(data).encode()
        req = urllib.request.Request(self.url + path, body, method=method)
        with urllib.request.urlopen(req, timeout=10) as answer:
            return json.load(answer)

    def close(self) -> None:
        """Stop it and close its log."""
        self.stop()
        if self._log is not None:
            self._log.close()

"""The reference platform (``examples/platform/app.py``) and a ``baccarat serve --platform``
beside it, each a real process on 127.0.0.1, and the calls the tests make to both."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from baccarat.platform import signing
from baccarat.store import open_store
from serving import Serve, free_port, start_serve, wait_until

APP = Path(__file__).resolve().parents[2] / "examples" / "platform" / "app.py"
ROOMS = """
[server]
login_attempts_per_ip = 1000

[[rooms]]
id = "standard"
name = "Standard"
chip_unit = 100
bettor_floor = 1000
dealer_floor = 35000
tables = ["t1"]

[timers]
betting = 6.0
squeeze = 2.0
result = 1.0
shuffle = 1.0
"""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str]


def http(
    method: str, url: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> Answer:
    """One HTTP call; its status, JSON (or text) body and headers, errors included."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        resp = _OPENER.open(request, timeout=30)
    except urllib.error.HTTPError as exc:
        resp = exc
    with resp:
        raw = resp.read()
        try:
            data: Any = json.loads(raw)
        except ValueError:
            data = raw.decode(errors="replace")
        return Answer(resp.status, data, {k: v for k, v in resp.headers.items()})


@dataclass
class Stack:
    """The platform and the game, running."""

    platform: str
    game: str
    db: str
    data: Path
    proc: subprocess.Popen[bytes]
    serve: Serve

    @property
    def secret(self) -> bytes:
        return (self.data / "secret.txt").read_text().strip().encode()

    @property
    def game_file(self) -> Path:
        return self.data / "game.toml"

    def admin(self, path: str, data: Any = None) -> Any:
        """The platform's sandbox: ``/admin/...``."""
        body = None if data is None else json.dumps(data).encode()
        answer = http("GET" if body is None else "POST", self.platform + path, body)
        assert answer.status in (200, 409), answer
        return answer.body

    def token(self, user: str, **claims: Any) -> str:
        token: str = self.admin("/admin/token", {"user": user, "lang": "en", "claims": claims})[
            "token"
        ]
        return token

    def launch(self, token: str) -> Answer:
        return http("GET", f"{self.game}/launch?token={token}")

    def session(self, user: str) -> str:
        """Launch ``user`` and return the game's session token from the cookie."""
        answer = self.launch(self.token(user))
        assert answer.status == 200, answer.body
        cookie: SimpleCookie = SimpleCookie(answer.headers["Set-Cookie"])
        return cookie["baccarat_session"].value

    def me(self, session: str) -> dict[str, Any]:
        answer = http("GET", f"{self.game}/api/me", headers={"Authorization": f"Bearer {session}"})
        assert answer.status == 200, answer.body
        user: dict[str, Any] = answer.body["user"]
        return user

    def signed(
        self,
        method: str,
        path_qs: str,
        data: Any = None,
        *,
        secret: bytes | None = None,
        at: float | None = None,
    ) -> Answer:
        """A call to the game's platform API, signed as the platform signs it."""
        body = b"" if data is None else json.dumps(data).encode()
        headers = signing.sign(
            secret or self.secret, time.time() if at is None else at, method, path_qs, body
        )
        headers["Content-Type"] = "application/json"
        return http(method, self.game + path_qs, body or None, headers)

    def transfer(self, transfer_id: str, user: str, amount: int) -> Answer:
        body = {"transfer_id": transfer_id, "user": user, "amount": amount}
        return self.signed("POST", "/api/platform/transfers", body)

    def balance(self, user: str) -> int:
        answer = self.signed("GET", f"/api/platform/balance?user={user}")
        assert answer.status == 200, answer.body
        return int(answer.body["balance"])

    def reconcile(self, *extra: str) -> subprocess.CompletedProcess[str]:
        return baccarat("reconcile", "--db", self.db, "--platform", str(self.game_file), *extra)

    def audit(self) -> subprocess.CompletedProcess[str]:
        return baccarat("audit", "--db", self.db, "--live")

    def platform_coins(self, user: str) -> int:
        users = self.admin("/admin/users")["users"]
        return int(next(u["coins"] for u in users if u["id"] == user))

    def assert_sound(self, *, reconciled: bool = True) -> None:
        """Nothing lost: the ledger sums to zero, the audit is clean, and (unless the test
        made transfers the platform does not know of) the two sides agree."""
        with open_store(self.db) as store:
            assert store.total_coins()["total"] == 0
        audit = self.audit()
        assert audit.returncode == 0, audit.stdout + audit.stderr
        if reconciled:
            compared = self.reconcile("--from", str(time.time() - 3600))
            assert compared.returncode == 0, compared.stdout + compared.stderr
            assert "0 difference(s)" in compared.stdout


def baccarat(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "baccarat", *args], capture_output=True, text=True, timeout=60
    )


@contextlib.contextmanager
def running_platform(tmp: Path, game: str, wallet: str = "transfer") -> Any:
    """The reference platform for the game at ``game``: its URL, data folder and process."""
    data = tmp / "platform"
    port = free_port()
    log = (tmp / "platform.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, str(APP), "--game", game, "--port", str(port), "--data", str(data),
         "--wallet", wallet],
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    platform = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: http("GET", platform + "/admin/users").status == 200, "the platform")
        yield platform, data, proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


@contextlib.contextmanager
def running_stack(
    tmp: Path,
    *serve_args: str,
    wallet: str = "transfer",
    game_file: str = "",
    game_host: str = "127.0.0.1",
) -> Any:
    """Start the platform (with its ``wallet`` mode), then the game reading the file the
    platform wrote (with ``game_file``'s lines added). The platform sends its players to the
    game at ``game_host`` (``localhost``: another site than the platform's 127.0.0.1, as a
    game provider's is)."""
    game_port = free_port()
    game = f"http://127.0.0.1:{game_port}"
    with running_platform(tmp, f"http://{game_host}:{game_port}", wallet) as (
        platform,
        data,
        proc,
    ):
        if game_file:
            with (data / "game.toml").open("a") as f:
                f.write(game_file)
        rooms = tmp / "rooms.toml"
        rooms.write_text(ROOMS)
        db = f"sqlite:///{tmp / 'game.db'}"
        with start_serve(
            "--db", db, "--rooms", str(rooms), "--platform", str(data / "game.toml"),
            *serve_args, port=game_port, log=tmp / "serve.log",
        ) as served:  # fmt: skip
            yield Stack(platform, game, db, data, proc, served)

"""``baccarat admin`` acts through the running ``baccarat serve``, as the console does: a ban
closes the user's live socket within a second, and a grant a seated dealer's book needs is
refused mid-round with the console's error, so the round is not voided. With no server, the
command changes the database alone and says so."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from baccarat.client import Client
from baccarat.protocol.requests import Watch
from baccarat.store import open_store
from serving import start_serve

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
betting = 8.0
squeeze = 4.0
result = 2.0
shuffle = 1.0
"""


def admin(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``baccarat admin ARGS --db DB`` to its end."""
    return subprocess.run(
        [sys.executable, "-m", "baccarat", "admin", *args, "--db", db],
        capture_output=True,
        text=True,
        timeout=60,
    )


def hook(url: str, body: dict[str, Any]) -> dict[str, Any]:
    """Post to the table's test hook (hold a phase, skip one)."""
    request = urllib.request.Request(
        f"{url}/api/test/tables/t1",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as resp:
        answer: dict[str, Any] = json.load(resp)
    return answer


def is_event(kind: str) -> Any:
    return lambda m: m.get("type") == "event" and m.get("event") == kind


def test_a_cli_ban_closes_the_live_socket_within_a_second(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'b.db'}"
    rooms = tmp_path / "rooms.toml"
    rooms.write_text(ROOMS)
    with open_store(db) as store:
        cheat = store.create_user("cheat", "password1", coins=10_000)
        token = store.create_session(cheat.user_id)
    with start_serve("--db", db, "--rooms", str(rooms)) as served:

        async def scene() -> float:
            client = await Client.connect(served.url, token)
            try:
                await client.send(Watch("t1"))
                done = await asyncio.to_thread(admin, db, "ban", "cheat", "--reason", "sold coins")
                finished = time.monotonic()
                assert done.returncode == 0, done.stderr
                assert "through the server" in done.stderr
                while await client.next_message(timeout=5) is not None:
                    pass
                assert client.close_code == 4003
                return time.monotonic() - finished
            finally:
                await client.close()

        closed_after = asyncio.run(scene())
        assert closed_after < 1.0, closed_after
        assert served.stop() == 0
    # No server now: the change goes to the database alone, and the command says so.
    done = admin(db, "unban", "cheat", "--reason", "appeal")
    assert done.returncode == 0, done.stderr
    assert "no server is running" in done.stderr
    with open_store(db) as store:
        assert store.get_user(cheat.user_id).banned is None
        assert [e.action for e in store.operator_log(target=f"user:{cheat.user_id}")][:2] == [
            "unban",
            "ban",
        ]


def test_a_cli_grant_the_dealers_book_needs_is_refused_mid_round(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    rooms = tmp_path / "rooms.toml"
    rooms.write_text(ROOMS)
    with open_store(db) as store:
        ids = {}
        for name, coins in (("dealer", 40_000), ("bettor", 50_000)):
            user = store.create_user(name, "password1", coins=coins)
            ids[name] = (user.user_id, store.create_session(user.user_id))
    with start_serve("--db", db, "--rooms", str(rooms), "--test-hooks") as served:

        async def scene() -> dict[str, Any]:
            dealer = await Client.connect(served.url, ids["dealer"][1])
            bettor = await Client.connect(served.url, ids["bettor"][1])
            try:
                hook(served.url, {"hold": "squeeze"})
                await bettor.sit("t1", 1)
                await dealer.sit("t1", 0)
                await bettor.wait_for(is_event("betting_opened"), 20)
                for _ in range(5):
                    await bettor.bet("player", 10)  # 5,000 on the book
                hook(served.url, {"skip": True})
                await bettor.wait_for(is_event("squeeze_started"), 20)
                assert hook(served.url, {"hold": "squeeze"})["phase"] == "squeeze"
                # Mid-squeeze: 39,000 taken from the dealer would leave 1,000 for a 5,000 book.
                done = await asyncio.to_thread(
                    admin, db, "grant", "dealer", "-39000", "--reason", "take it back"
                )
                assert done.returncode == 2, done.stdout
                assert "dealer_cannot_cover" in done.stderr
                hook(served.url, {"hold": None})
                settled: dict[str, Any] = await bettor.wait_for(is_event("round_settled"), 30)
                return settled
            finally:
                await dealer.close()
                await bettor.close()

        settled = asyncio.run(scene())
        assert served.stop() == 0
    with open_store(db) as store:
        record = store.get_round(settled["data"]["round_id"])
        assert record.status == "settled"
        assert store.operator_log(action="grant", actor="cli") == []
        report = store.audit()
        assert report.ok, report.problems

"""The transfer wallet behind many nodes: a withdrawal the platform sends to any node leaves
alone the coins the player's table needs, whichever node runs that table (the call goes on,
as it came, to that node)."""

from __future__ import annotations

import asyncio
from contextlib import ExitStack
from pathlib import Path

from platform_support import ROOMS, Stack, http, running_platform

from baccarat.client import Client
from pgschema import private_schema
from services import REDIS_URL, redis_prefix
from serving import free_port, start_serve, wait_until

PINNED = ROOMS.replace('tables = ["t1"]', 'tables = [{id = "t1", nodes = ["B"]}]')


def test_a_withdrawal_at_a_node_that_does_not_run_the_players_table_is_decided_there(
    tmp_path: Path,
) -> None:
    a_port, b_port = free_port(), free_port()
    a, b = f"http://127.0.0.1:{a_port}", f"http://127.0.0.1:{b_port}"
    with ExitStack() as stack:
        db = stack.enter_context(private_schema("platform_nodes"))
        prefix = stack.enter_context(redis_prefix())
        platform, data, proc = stack.enter_context(running_platform(tmp_path, a))
        rooms = tmp_path / "rooms.toml"
        rooms.write_text(PINNED)
        nodes = {}
        for name, port, url in (("A", a_port, a), ("B", b_port, b)):
            nodes[name] = stack.enter_context(
                start_serve(
                    "--db", db, "--rooms", str(rooms), "--platform", str(data / "game.toml"),
                    "--redis", REDIS_URL, "--redis-prefix", prefix, "--node-id", name,
                    "--public-url", url, "--lease-ttl", "3", "--keys", str(tmp_path / "keys"),
                    port=port, log=tmp_path / f"{name}.log",
                )
            )  # fmt: skip
        at_a = Stack(platform, a, db, data, proc, nodes["A"])
        dealer, bettor = at_a.session("u1002"), at_a.session("u1001")
        for user, amount in (("u1002", 100_000), ("u1001", 5_000)):
            assert (
                at_a.admin("/admin/transfer", {"user": user, "amount": amount})["status"] == "done"
            )

        def b_runs_t1() -> bool:
            lobby = http("GET", f"{b}/api/lobby").body
            return any(t["table_id"] == "t1" and t.get("url") == b for t in lobby["tables"])

        wait_until(b_runs_t1, "B to run t1 (pinned there)", 30)

        async def scene() -> None:
            d = await Client.connect(b, dealer)
            p = await Client.connect(b, bettor)
            try:
                await d.sit("t1", 0)
                await p.sit("t1", 1)
                await p.wait_for(lambda m: m.get("event") == "betting_opened", 30)
                for _ in range(2):
                    await p.bet("player", 10)  # 2,000 of the bettor's 5,000 on the table
                # Sent to A, which does not run t1: B's table keeps the bets' coins.
                out = await asyncio.to_thread(at_a.transfer, "w1", "u1001", -4_000)
                assert (out.status, out.body["error"]["code"]) == (409, "coins_below_stake")
                out = await asyncio.to_thread(at_a.transfer, "w2", "u1002", -99_000)
                assert (out.status, out.body["error"]["code"]) == (409, "dealer_cannot_cover")
                out = await asyncio.to_thread(at_a.transfer, "w3", "u1001", -3_000)
                assert out.status == 200, out.body
                # ... and the table at B knows: the bettor has 2,000 left there, all staked.
                assert (await p.resync())["me"]["coins"] == 2_000
            finally:
                await d.close()
                await p.close()

        asyncio.run(scene())
        wait_until(lambda: at_a.balance("u1001") in (0, 2_000, 4_000), "the round to land")

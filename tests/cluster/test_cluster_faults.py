"""The fault suite, short: a real two-node cluster with bots, one of each fault, mid-round.

Two ``baccarat serve`` nodes on a PostgreSQL and a Redis of the test's own, two tables with
three bots each; the faults, each while a table is betting or mid-squeeze: SIGKILL of the
node running it, SIGSTOP past its lease then SIGCONT, Redis restarting empty, PostgreSQL
restarting, the node cut off from Redis but not from the database. After each: nothing
created or lost, at most the round in flight of each table voided (none when nobody took a
table over), every user seated before seated again within the grace, and play goes on.
After all of them, ``baccarat audit`` is clean. ``bench/faults.py`` is the long run.

Its timers run twice as fast as the long run's (a round in about 4 s), and the reconnect
grace is 10 s: a frozen node's bots are back in their seats about 5 s after the freeze.
"""

from __future__ import annotations

import json
from pathlib import Path

from faultkit import FAULTS, PHASES, FaultRun
from outcome import summary

from services import own_postgres, own_redis

SPEED = 8.0
GRACE = 10.0


def test_a_cluster_recovers_from_every_fault_without_losing_a_coin(tmp_path: Path) -> None:
    with own_postgres() as pg, own_redis() as redis:
        run = FaultRun(tmp_path, pg, redis, speed=SPEED, grace=GRACE)
        try:
            run.start()
            outcomes = [
                run.inject(fault, PHASES[i % len(PHASES)], "t1") for i, fault in enumerate(FAULTS)
            ]
        finally:
            run.close()
        report = run.audit()
    figures = summary(outcomes)
    print(json.dumps(figures, indent=1))
    for o in outcomes:
        assert o.problems == [], figures
        assert o.coins_lost == 0
        assert o.seated_again
        assert all(n <= 1 for n in o.voided.values())
    stopped = next(o for o in outcomes if o.fault == "stop")
    assert stopped.takeover is not None
    # The frozen node's bots found the table's new node by themselves, while it was frozen.
    assert stopped.followed is not None
    assert report["ok"], report["problems"]


def test_a_rolling_restart_voids_nothing_and_every_user_keeps_their_seat(tmp_path: Path) -> None:
    with own_postgres() as pg, own_redis() as redis:
        run = FaultRun(tmp_path, pg, redis, speed=SPEED, grace=GRACE)
        try:
            run.start()
            figures = run.rolling_restart()
        finally:
            run.close()
        report = run.audit()
    print(json.dumps({k: v for k, v in figures.items() if not k.startswith("seats")}))
    assert figures["voided"] == {}
    assert figures["coins_lost"] == 0
    assert figures["seats_after"] == figures["seats_before"]
    assert len(figures["seats_before"]) == len(run.users)
    assert report["ok"], report["problems"]

"""A PostgreSQL failover under play: the nodes name the primary and its streaming standby in
one URL (libpq's ``host1:port1,host2:port2`` with ``target_session_attrs=read-write``); the
primary stops, the standby is promoted, and the tables play on on it.

A real replica: ``initdb`` for the primary, ``pg_basebackup -R`` for the standby, both on
free 127.0.0.1 ports; two ``baccarat serve --redis`` nodes and three bots at each of two
tables (``faultkit``). The primary stops while the bots play and the standby is promoted
3 s later (``pg_ctl promote``). Then: every table settles rounds again on the promoted
database, nothing is voided or lost, every seat is kept, no answer is 5xx but 503, nothing
is logged as an error, and ``baccarat audit`` through the same two-host URL is clean.
"""

from __future__ import annotations

import json
from pathlib import Path

from faultkit import FaultRun

from services import own_postgres, own_redis

SPEED = 8.0
GRACE = 10.0


def test_the_tables_play_on_on_a_promoted_standby_and_void_nothing(tmp_path: Path) -> None:
    with own_postgres() as pg, own_redis() as redis:
        standby = pg.standby()
        try:
            run = FaultRun(tmp_path, pg, redis, speed=SPEED, grace=GRACE, standby=standby)
            try:
                run.start()
                outcome = run.failover()
            finally:
                run.close()
            report = run.audit()
        finally:
            standby.close()
    print(json.dumps(outcome.__dict__))
    assert outcome.problems == []
    assert outcome.voided == {} and outcome.coins_lost == 0
    assert outcome.seated_again
    assert report["ok"], report["problems"]
    assert report["voided"] == 0

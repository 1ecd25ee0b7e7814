"""A PostgreSQL failover under play, the platform's wallet down and a server started by
mistake, on one cluster: the nodes name the primary and its streaming standby in one URL
(libpq's ``host1:port1,host2:port2`` with ``target_session_attrs=read-write``).

A real replica: ``initdb`` for the primary, ``pg_basebackup -R`` for the standby, both on
free 127.0.0.1 ports; two ``baccarat serve --redis --platform`` nodes, three bots at each of
two tables and three bots of the platform's users at a third (``outagekit``: the nodes ask
the platform stand-in's wallet for those users' coins). The primary stops while the bots
play and the standby is promoted 3 s later (``pg_ctl promote``); then the platform stops for
5 s; then a ``baccarat serve`` without ``--redis`` is started on the same database. After
each: every table settles rounds again, every client back in its seat within 5 s of the
part's return, nothing voided or lost, no answer 5xx but 503, no traceback (after the
failover nothing logged as an error); the stray server is refused in one line with exit
status 2 and raises no table's epoch; ``baccarat audit`` through the two-host URL is clean.
"""

from __future__ import annotations

import json
from pathlib import Path

from outagekit import OutageRun

from services import own_postgres, own_redis

SPEED = 8.0
GRACE = 10.0


def test_the_tables_play_on_through_a_failover_a_wallet_outage_and_a_stray_server(
    tmp_path: Path,
) -> None:
    with own_postgres() as pg, own_redis() as redis:
        standby = pg.standby()
        try:
            run = OutageRun(
                tmp_path, pg, redis, speed=SPEED, grace=GRACE, standby=standby, page=False
            )
            try:
                run.start()
                outcomes = [run.failover(), run.outage("wallet", 5.0), run.second_serve()]
            finally:
                run.close()
            report = run.audit()
        finally:
            standby.close()
    for outcome in outcomes:
        print(json.dumps(outcome.__dict__))
        assert outcome.problems == [], outcome.fault
        assert outcome.voided == {} and outcome.coins_lost == 0
        assert outcome.seated_again
    failover, wallet, stray = outcomes
    assert failover.played_after is not None and wallet.played_after is not None
    assert "baccarat nodes (--redis) are running on this database" in stray.said
    assert report["ok"], report["problems"]
    assert report["voided"] == 0

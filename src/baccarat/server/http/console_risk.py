"""The console's risk view (``GET /api/admin/risk``): pairs of accounts scored for 對打 and
chip dumping (``baccarat.risk``) with their shared rounds as evidence, and the sweep that
keeps ``baccarat_risk_pairs_flagged`` current for the alert."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from aiohttp import web

from baccarat import risk
from baccarat.server.http import auth
from baccarat.server.http.console_request import store_of
from baccarat.server.http.keys import SERVER
from baccarat.store import Store

log = logging.getLogger("baccarat.console")

RISK_DAYS = 7
"""The window the sweep (and the view, unless asked otherwise) scores: the last week."""
SWEEP_SECONDS = 300.0
"""How often the sweep scores the window again for the metric."""
PAIRS_SHOWN = 50
EVIDENCE_SHOWN = 30


def look(store: Store, since: float) -> tuple[list[risk.PairScore], dict[int, frozenset[str]]]:
    """Every pair's scores over the rounds settled since ``since``, and the accounts'
    login addresses (blocking: run it in a thread)."""
    facts = store.risk_rounds(since)
    ids = {u for r in facts for u in r.positions} | {r.dealer_id for r in facts}
    addresses = store.login_addresses(ids)
    return risk.score_pairs(facts, addresses), addresses


def _pair_json(
    score: risk.PairScore, names: dict[int, str], addresses: dict[int, frozenset[str]]
) -> dict[str, Any]:
    # The newest hedged rounds first; a flow's heaviest rounds its way first.
    evidence = score.evidence[::-1] if score.pattern == risk.HEDGE else score.evidence
    data = replace(score, evidence=evidence[:EVIDENCE_SHOWN]).json()
    data["a_name"] = names.get(score.a, f"#{score.a}")
    data["b_name"] = names.get(score.b, f"#{score.b}")
    shared = addresses.get(score.a, frozenset()) & addresses.get(score.b, frozenset())
    data["addresses"] = sorted(shared)
    return data


async def risk_view(request: web.Request) -> web.Response:
    """GET /api/admin/risk?days=N: the pairs by score over the last N days (1 to 90)."""
    days = _days(request.query.get("days", str(RISK_DAYS)))
    if days is None:
        return auth.fail(400, "bad_days", "'days' is a whole number from 1 to 90.")
    store = store_of(request)
    since = time.time() - days * 86_400
    scores, addresses = await asyncio.to_thread(look, store, since)
    shown = [s for s in scores if s.flagged or s.score > 0][:PAIRS_SHOWN]
    names = await asyncio.to_thread(store.user_names, {u for s in shown for u in (s.a, s.b)})
    counts = risk.flagged(scores)
    if days == RISK_DAYS:
        _report(request.app, counts)
    return web.json_response(
        {
            "days": days,
            "since": since,
            "flagged": counts,
            "thresholds": thresholds(),
            "pairs": [_pair_json(s, names, addresses) for s in shown],
        }
    )


def _days(text: str) -> int | None:
    """The number of days ``text`` asks for, or None unless it is a whole number 1 to 90."""
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= 90):
        return None
    return int(text)


def thresholds() -> dict[str, float]:
    """The rules' thresholds, as the view states them."""
    return {
        "hedge_match": risk.HEDGE_MATCH,
        "hedge_min_rounds": risk.HEDGE_MIN_ROUNDS,
        "hedge_min_share": risk.HEDGE_MIN_SHARE,
        "hedge_flag": risk.HEDGE_FLAG,
        "address_weight": risk.ADDRESS_WEIGHT,
        "dump_min_rounds": risk.DUMP_MIN_ROUNDS,
        "dump_flag": risk.DUMP_FLAG,
    }


def _report(app: web.Application, counts: dict[str, int]) -> None:
    gauge = app[SERVER].metrics.risk_pairs
    for pattern, count in counts.items():
        gauge.labels(pattern).set(count)


async def sweep(app: web.Application) -> AsyncIterator[None]:
    """While the server runs, score the last :data:`RISK_DAYS` days every few minutes for
    ``baccarat_risk_pairs_flagged`` (an aiohttp cleanup context)."""
    store: Store = app[auth.STORE]

    async def loop() -> None:
        while True:
            try:
                since = time.time() - RISK_DAYS * 86_400
                scores, _ = await asyncio.to_thread(look, store, since)
                _report(app, risk.flagged(scores))
            except Exception:  # a database that does not answer: next time
                log.exception("risk sweep failed")
            await asyncio.sleep(SWEEP_SECONDS)

    task = asyncio.create_task(loop())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task

"""The server's own count of its stalls, read from its ``/metrics`` before and after a step.

A delivery's latency as the clients see it does not say why it was late. The server counts
how late its loop woke (``baccarat_loop_lag_seconds``) and how long each garbage collection
stopped it (``baccarat_gc_pause_seconds``); the difference of two readings is what the
measured window saw. A bare server has no ``/metrics``: its steps report none.
"""

from __future__ import annotations

from collections import Counter

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

STALL_MS = (10, 25, 50, 100)
"""A stall is counted under each of these (ms) it passed."""
_FAMILIES = {"baccarat_loop_lag_seconds": "loop", "baccarat_gc_pause_seconds": "gc"}

Reading = Counter[tuple[str, str]]
"""(family, bucket bound) -> cumulative count: ``le`` "+Inf" is every observation."""


async def read(url: str, token: str) -> Reading | None:
    """The stall histograms of the server at ``url`` (every generation's pauses summed)."""
    headers = {"Authorization": f"Bearer {token}"}
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session,
            session.get(url.rstrip("/") + "/metrics", headers=headers) as resp,
        ):
            if resp.status != 200:
                return None
            text = await resp.text()
    except (aiohttp.ClientError, TimeoutError):
        return None
    got: Reading = Counter()
    for family in text_string_to_metric_families(text):
        name = _FAMILIES.get(family.name)
        if name is None:
            continue
        for sample in family.samples:
            if sample.name.endswith("_bucket"):
                got[(name, sample.labels["le"])] += int(sample.value)
    return got


def between(before: Reading | None, after: Reading | None) -> dict[str, dict[str, int]] | None:
    """Per family: the wake-ups (or collections) of the window, and how many passed each of
    ``STALL_MS``."""
    if before is None or after is None:
        return None
    out: dict[str, dict[str, int]] = {}
    for name in _FAMILIES.values():

        def count(le: str, name: str = name) -> int:
            return after[(name, le)] - before[(name, le)]

        total = count("+Inf")
        # A bucket counts what stayed within its bound: the rest passed it.
        out[name] = {"n": total} | {
            f"over_{ms}ms": total - count(_le(ms / 1000)) for ms in STALL_MS
        }
    return out


def _le(seconds: float) -> str:
    # How the client library writes a bucket's bound.
    return repr(float(seconds))

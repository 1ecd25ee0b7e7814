"""One measured step of a capacity run: its clients connected and seated, play let settle,
then the deliveries, latency, CPU, memory and stalls of a fixed window."""

from __future__ import annotations

import asyncio
import gc
import os
import time
from typing import Any

from baccarat.loadtest import scrape
from baccarat.loadtest.accounts import Crew
from baccarat.loadtest.clients import Generator
from baccarat.loadtest.options import Options, Phase
from baccarat.loadtest.process import ServerProcess

CLIENTS_PER_TABLE = 9


async def measure_step(
    gen: Generator,
    crews: list[Crew],
    server: ServerProcess | None,
    opts: Options,
    phase: Phase,
) -> dict[str, Any]:
    """Connect and seat ``crews``, let play settle, then measure for ``opts.duration``."""
    tally = gen.tally
    rss_before = server.rss_mb() if server is not None else None
    connect_s = await _connect_and_seat(gen, crews, opts, phase)
    rss_idle = server.rss_mb() if server is not None else None
    # The generator's own collector pauses would count as the server's latency: its clients
    # are built now, so they are frozen out of the collector's walks, and it does not
    # collect while it measures.
    gc.collect()
    gc.freeze()
    phase.start("warm up", opts.warmup)
    await sleep_with(opts.warmup, phase)
    load_avg = os.getloadavg()[0]
    stalls0, cpu0 = await _server_before(gen, server)
    own0 = time.process_time()
    tally.measuring = True
    started = time.perf_counter()
    phase.start("measure", opts.duration)
    gc.disable()
    try:
        await sleep_with(opts.duration, phase)
    finally:
        gc.enable()
    tally.measuring = False
    elapsed = time.perf_counter() - started
    cpu, stalls1 = await _server_after(gen, server, cpu0)
    own = (time.process_time() - own0) / elapsed
    clients = len(gen.clients)
    report = tally.report()
    deliveries = report["frames"]
    figures: dict[str, Any] = {
        **report,
        "clients": clients,
        "seconds": round(elapsed, 2),
        "connect_seconds": round(connect_s, 2),
        "deliveries_per_s": round(deliveries / elapsed),
        "load_average": round(load_avg, 2),
        "generator_cpu": round(own, 3),
        "per_client_round": tally.per_client_round(clients),
        "stalls": scrape.between(stalls0, stalls1),
    }
    if server is not None and cpu is not None:
        figures["server_cpu"] = round(cpu / elapsed, 3)
        figures["cpu_us_per_delivery"] = round(cpu / max(1, deliveries) * 1e6, 2)
        figures["rss_mb"] = {
            "start": rss_before,
            "connected": rss_idle,
            "playing": round(server.rss_mb(), 1),
        }
    figures["passed"] = _passed(report, opts)
    return figures


async def _connect_and_seat(
    gen: Generator, crews: list[Crew], opts: Options, phase: Phase
) -> float:
    """Connect ``crews``' clients, then seat them; the seconds connecting took."""
    phase.start("connect", len(crews) * CLIENTS_PER_TABLE)
    connected_at = time.monotonic()
    await gen.connect(crews, progress=phase.advance)
    connect_s = time.monotonic() - connected_at
    phase.start("seat", len(crews) * CLIENTS_PER_TABLE)
    await gen.seat(
        gen.clients[-len(crews) * CLIENTS_PER_TABLE :], spread=opts.ramp, progress=phase.advance
    )
    return connect_s


async def _server_before(
    gen: Generator, server: ServerProcess | None
) -> tuple[scrape.Reading | None, float]:
    """The server's stall counters, then its CPU seconds, as the measure starts."""
    if server is None:
        return None, 0.0
    return await scrape.read(gen.url, server.metrics_token), server.cpu_seconds()


async def _server_after(
    gen: Generator, server: ServerProcess | None, cpu0: float
) -> tuple[float | None, scrape.Reading | None]:
    """The server's CPU seconds over the measure, then its stall counters, as it ends."""
    if server is None:
        return None, None
    cpu = server.cpu_seconds() - cpu0
    return cpu, await scrape.read(gen.url, server.metrics_token)


def _passed(report: dict[str, Any], opts: Options) -> bool:
    """Whether a step delivered within the latency limit and without an error."""
    return bool(
        report["delivery"]["n"] > 0
        and report["delivery"]["p99_ms"] <= opts.p99_limit_ms
        and not report["errors"]
    )


async def sleep_with(seconds: float, phase: Phase) -> None:
    """Wait ``seconds``, moving ``phase`` on every half second."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        await asyncio.sleep(min(0.5, left))
        phase.advance(min(0.5, left))

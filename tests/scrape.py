"""A server's ``/metrics`` read as Prometheus reads it: over a listener of the operator's own.

``scrape(server)`` starts the metrics listener ``baccarat serve --metrics-listen`` starts (on
127.0.0.1, a free port), reads ``GET /metrics`` once over a real socket, closes it, and
returns the samples parsed by ``prometheus_client``'s own parser.
"""

from __future__ import annotations

from dataclasses import dataclass

import aiohttp
from aiohttp.test_utils import TestServer
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from baccarat.server import Server
from baccarat.server.http.routes import create_metrics_app


@dataclass
class Scraped:
    """One scrape: its text, and its samples by name."""

    text: str

    @property
    def samples(self) -> list[Sample]:
        """Every sample of every family."""
        return [s for f in text_string_to_metric_families(self.text) for s in f.samples]

    def value(self, name: str, **labels: str) -> float | None:
        """The value of the sample ``name`` with exactly these labels, None if absent."""
        for sample in self.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
        return None

    def families(self) -> dict[str, set[str]]:
        """Each family's name, with the label names its samples carry."""
        out: dict[str, set[str]] = {}
        for family in text_string_to_metric_families(self.text):
            names = out.setdefault(family.name, set())
            for sample in family.samples:
                names.update(sample.labels)
        return out


async def scrape(server: Server) -> Scraped:
    """Read the server's metrics once through a metrics listener of its own."""
    own = TestServer(create_metrics_app(server), host="127.0.0.1", port=0)
    await own.start_server()
    try:
        async with aiohttp.ClientSession() as http, http.get(own.make_url("/metrics")) as resp:
            assert resp.status == 200, resp.status
            return Scraped(await resp.text())
    finally:
        await own.close()

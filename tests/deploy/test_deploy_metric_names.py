"""Every metric an alert rule or a dashboard panel reads is one a running server exports.

``baccarat serve`` is started as an operator runs it (SQLite, ``--metrics-listen`` on
127.0.0.1) on a database holding a round a crash left in escrow, and given a little
traffic so that its labelled series exist: a round played and settled, a refused command,
refused logins, a socket closed by a logout. Its ``/metrics`` is read on the metrics
listener, as ``deploy/prometheus/prometheus.yml`` reads it, and parsed with
``prometheus_client``'s parser; each expression under ``deploy/`` is tokenized
(``promql.py``), and each metric name it reads must be a series the scrape holds, each
label it matches or groups on one that its series carry.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from promql import parse

from baccarat.client import Client, CommandError
from baccarat.store import BetRecord, open_store
from scrape import Scraped
from serving import free_port, start_serve

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
ALERTS = DEPLOY / "prometheus" / "alerts.yml"
DASHBOARD = DEPLOY / "grafana" / "baccarat.json"
NOT_THE_SERVERS = {
    "up": {"job", "instance"},
    "probe_success": {"job", "instance"},
}
"""Series that Prometheus itself writes (``up``, for every scrape) and the blackbox exporter's
probe of ``/healthz`` (``probe_success``): not in a node's own metrics."""
TARGET_LABELS = {"job", "instance"}
"""Labels Prometheus adds to every series it scrapes."""


def rule_expressions() -> Iterator[tuple[str, str]]:
    """Each alert rule's name and expression."""
    for group in yaml.safe_load(ALERTS.read_text())["groups"]:
        for rule in group["rules"]:
            yield rule["alert"], rule["expr"]


def panel_expressions() -> Iterator[tuple[str, str]]:
    """Each dashboard query's panel title and expression."""
    for panel in json.loads(DASHBOARD.read_text())["panels"]:
        for target in panel.get("targets", []):
            yield panel["title"], target["expr"]


def test_the_tokenizer_finds_metrics_and_labels_and_nothing_else() -> None:
    query = parse(
        "histogram_quantile(0.99, sum by (instance, le) (rate(baccarat_command_seconds_bucket"
        '{instance=~"$instance", command!="ping"}[$__rate_interval]))) > 0.25 '
        "and on (instance) time() - heartbeat_seconds offset 5m > 1e3"
    )
    assert query.metrics == {"baccarat_command_seconds_bucket", "heartbeat_seconds"}
    assert query.labels == {"instance", "le", "command"}
    assert query.matchers == {"baccarat_command_seconds_bucket": {"instance", "command"}}


ROOMS = """\
[server]
login_attempts = 3
metrics_listen = "127.0.0.1:{metrics}"

[[rooms]]
id = "standard"
name = "Standard"
chip_unit = 100
bettor_floor = 1000
dealer_floor = 35000
tables = ["t1"]
"""


def _database(tmp_path: Path) -> tuple[str, list[str]]:
    """A database with two accounts (their session tokens returned) and a round a crash
    left in escrow at t1, which the server voids when it starts."""
    url = f"sqlite:///{tmp_path / 'baccarat.db'}"
    store = open_store(url)
    try:
        dealer = store.create_user("dealer", "password1", level=50, coins=1_000_000)
        alice = store.create_user("alice", "password1", level=50, coins=100_000)
        tokens = [store.create_session(u.user_id) for u in (dealer, alice)]
        store.record_shoe_start("shoe-0", "t1", "00" * 32)
        bets = [BetRecord(alice.user_id, "tie", 2, 200, time.time())]
        store.escrow_round("r-0", "t1", "shoe-0", 1, dealer.user_id, bets)
    finally:
        store.close()
    return url, tokens


def _event(kind: str) -> Any:
    return lambda m: m.get("type") == "event" and m.get("event") == kind


async def _play(base: str, dealer_token: str, alice_token: str) -> None:
    """A round played to its settlement, a refusal, refused logins, a logout's close."""
    dealer = await Client.connect(base, dealer_token)
    alice = await Client.connect(base, alice_token)
    try:
        await _round(dealer, alice)
        async with aiohttp.ClientSession() as http:
            for _ in range(4):
                body = {"username": "nobody", "password": "guess12"}
                async with http.post(base + "/api/login", json=body):
                    pass
            auth = {"Authorization": f"Bearer {dealer_token}"}
            async with http.post(base + "/api/logout", headers=auth):
                pass
        # The logout closes the dealer's socket: its inbox ends.
        while await dealer.next_message(timeout=10) is not None:
            pass
    finally:
        await dealer.close()
        await alice.close()


async def _round(dealer: Client, alice: Client) -> None:
    """A refused bet, then a round bet on and played to its settlement."""
    with pytest.raises(CommandError):
        await alice.bet("banker", 5)  # not seated yet
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    await alice.wait_for(_event("betting_opened"))
    await alice.bet("banker", 5)
    while True:
        msg = await alice.wait_for(lambda m: m.get("event") in ("squeeze_started", "round_settled"))
        if msg["event"] == "round_settled":
            return
        with contextlib.suppress(CommandError):  # the dealer's card, or opened by its timer
            await alice.open(msg["data"]["hand"])


@pytest.fixture(scope="module")
def scraped(tmp_path_factory: pytest.TempPathFactory) -> Scraped:
    """One scrape of a real ``baccarat serve`` for every check of this module."""
    tmp_path = tmp_path_factory.mktemp("names")
    url, tokens = _database(tmp_path)
    metrics = free_port()
    rooms = tmp_path / "rooms.toml"
    rooms.write_text(ROOMS.format(metrics=metrics))
    with start_serve("--db", url, "--rooms", str(rooms), "--speed", "10") as served:
        # On a thread of its own: the main thread's loop may be another test's.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, _play(served.url, *tokens)).result()
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics}/metrics", timeout=10) as resp:
            text = resp.read().decode()
        assert served.stop() == 0, served.tail()
    return Scraped(text)


def _series(scraped: Scraped) -> dict[str, set[str]]:
    """Each series name in the scrape, with the label names its samples carry."""
    out: dict[str, set[str]] = {}
    for sample in scraped.samples:
        out.setdefault(sample.name, set()).update(sample.labels)
    return out


def _unknown(expr: str, series: dict[str, set[str]]) -> list[str]:
    """What ``expr`` reads that the server does not export."""
    query = parse(expr)
    known = {**series, **NOT_THE_SERVERS}
    problems = [f"metric {m}" for m in sorted(query.metrics) if m not in known]
    carried = set(TARGET_LABELS)
    for metric in query.metrics & known.keys():
        carried |= known[metric]
    problems += [f"label {label}" for label in sorted(query.labels - carried)]
    for metric, labels in query.matchers.items():
        missing = labels - known.get(metric, set()) - TARGET_LABELS
        problems += [f"label {label} of {metric}" for label in sorted(missing)]
    return problems


@pytest.mark.parametrize(("name", "expr"), list(rule_expressions()))
def test_every_alert_reads_only_what_the_server_exports(
    scraped: Scraped, name: str, expr: str
) -> None:
    assert _unknown(expr, _series(scraped)) == [], name


@pytest.mark.parametrize(("title", "expr"), list(panel_expressions()))
def test_every_panel_reads_only_what_the_server_exports(
    scraped: Scraped, title: str, expr: str
) -> None:
    assert _unknown(expr, _series(scraped)) == [], title


def test_the_traffic_made_the_labelled_series_the_rules_read(scraped: Scraped) -> None:
    # Without these the checks above would pass on names alone, not on series.
    assert scraped.value("baccarat_rounds_voided_total", reason="crash") == 1
    assert (scraped.value("baccarat_rounds_settled_total", table_id="t1") or 0) >= 1
    assert scraped.value("baccarat_clients_dropped_total", reason="logged_out") == 1
    assert (scraped.value("baccarat_command_seconds_count", command="bet") or 0) >= 1
    assert (scraped.value("process_resident_memory_bytes") or 0) > 0
    assert scraped.value("baccarat_auth_rate_limited_total", limit="login_attempts") == 1
    assert scraped.value("baccarat_gc_pause_seconds_count", generation="0") is not None


def test_a_misspelt_metric_or_label_is_caught(scraped: Scraped) -> None:
    # A counter's family name is not a series (Prometheus stores ..._total), nor is a typo.
    expr = 'sum by (node) (rate(baccarat_rounds_voided{reasn="crash"}[5m]))'
    assert _unknown(expr, _series(scraped)) == [
        "metric baccarat_rounds_voided",
        "label node",
        "label reasn",
        "label reasn of baccarat_rounds_voided",
    ]

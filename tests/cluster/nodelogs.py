"""What the nodes of a fault run logged: JSON lines, each log read from a mark (its size when
a fault began) on."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol


class Logged(Protocol):
    """A node, as far as its log goes."""

    name: str
    log: Path


def marks(nodes: Iterable[Logged]) -> dict[str, int]:
    """Each node's log size now: what it logs from here on is the next fault's."""
    return {n.name: n.log.stat().st_size for n in nodes}


def tail(path: Path, mark: int) -> str:
    """The text of ``path`` past ``mark`` bytes."""
    with path.open("rb") as f:
        f.seek(mark)
        return f.read().decode(errors="replace")


def records(nodes: Iterable[Logged], at: dict[str, int]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each node's JSON log records past ``at`` (each log's size at a mark)."""
    for node in nodes:
        for line in tail(node.log, at.get(node.name, 0)).splitlines():
            with contextlib.suppress(ValueError):
                rec = json.loads(line)
                if isinstance(rec, dict):
                    yield node.name, rec


def server_errors(nodes: Iterable[Logged], at: dict[str, int]) -> tuple[int, list[str]]:
    """Requests answered with a server error other than 503 (an outage's answer), and the
    message logged before each traceback, in the nodes' logs past ``at``."""
    errors = 0
    tracebacks: list[str] = []
    for node in nodes:
        last = ""
        for line in tail(node.log, at.get(node.name, 0)).splitlines():
            if line.startswith("Traceback (most recent call last)"):
                tracebacks.append(last[:160])
            with contextlib.suppress(ValueError):
                rec = json.loads(line)
                last = f"{node.name}: {rec.get('msg')}"
                status = int(rec.get("status", 0)) if rec.get("msg") == "http" else 0
                errors += status >= 500 and status != 503
    return errors, tracebacks


def errors_logged(nodes: Iterable[Logged], at: dict[str, int]) -> list[str]:
    """The message of every record logged as an error, or with a traceback, past ``at``."""
    return [
        f"{name}: {rec.get('msg')}"[:160]
        for name, rec in records(nodes, at)
        if rec.get("level") in ("error", "critical") or "exc" in rec
    ]


def resumed_at(nodes: Iterable[Logged], at: dict[str, int], since: float) -> dict[str, float]:
    """When each table whose write waited for the database took it, past ``at``."""
    out: dict[str, float] = {}
    for _, rec in records(nodes, at):
        if rec.get("msg") == "table resumed" and float(rec.get("ts", 0)) >= since:
            out.setdefault(str(rec.get("table_id")), float(rec["ts"]))
    return out


def seats_freed(nodes: Iterable[Logged], users: set[int]) -> list[str]:
    """Every ``seat freed`` record of ``users``, with its node's name."""
    return [
        f"{name}: {rec}"
        for name, rec in records(nodes, {})
        if rec.get("msg") == "seat freed" and rec.get("user_id") in users
    ]

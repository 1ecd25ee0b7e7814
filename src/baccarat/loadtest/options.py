"""What a capacity run is asked to do (``Options``), and how it reports its progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from baccarat.loadtest import P99_LIMIT_MS


@dataclass
class Options:
    """What to run."""

    steps: list[int]
    model: str = "browser"
    duration: float = 30.0
    warmup: float = 5.0
    ramp: float = 30.0
    """Seconds over which the tables are seated one after another."""
    url: str | None = None
    db: str | None = None
    raw: bool = False
    workdir: Path | None = None
    p99_limit_ms: float = P99_LIMIT_MS
    seed: int | None = None
    keep_going: bool = False
    """Run every step even after one failed."""
    squeeze_rate: float = 10.0
    """Peel moves a second the servers started here pass on (``[server] squeeze_rate``)."""
    compiled: bool = False
    """Also run each step against the project's mypyc build (``baccarat.compiled``)."""
    pin_generator: bool = False
    """Keep the load generator off the server's core. On a two-core machine that stalls the
    measurement itself: past ~26,000 deliveries a second both processes sit half idle while
    the bare server's loop runs late by tenths of a second (``docs/benchmarks.md``)."""


@dataclass
class Phase:
    """Progress reporting: ``start(name, total)`` then ``advance(n)``."""

    start: Callable[[str, float], None] = lambda name, total: None
    advance: Callable[[float], None] = lambda n: None

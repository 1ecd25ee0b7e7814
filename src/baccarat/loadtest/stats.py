"""What a load step measures: latencies, frames and bytes by type, errors, rounds."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


def percentile(sorted_values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of already sorted values, nearest rank; 0 when empty."""
    if not sorted_values:
        return 0.0
    i = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[i]


def summary_ms(values: list[float]) -> dict[str, float]:
    """p50, p99, max (and the count) of durations in seconds, in milliseconds."""
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "p50_ms": round(percentile(ordered, 0.50) * 1000, 2),
        "p99_ms": round(percentile(ordered, 0.99) * 1000, 2),
        "max_ms": round((ordered[-1] if ordered else 0.0) * 1000, 2),
    }


GAP_BUCKETS_MS = (0.1, 1.0, 2.0, 5.0, 10.0, 20.0)
"""Upper bounds (ms) of the buckets of time between two frames on one socket."""


@dataclass
class Tally:
    """Counters of one step, filled by every client of the load generator."""

    measuring: bool = False
    """Only what happens inside the measured window counts."""
    delivery: list[float] = field(default_factory=list)
    """A bet sent to its ``chip_placed`` arriving at another client of the same table (s)."""
    round_trip: list[float] = field(default_factory=list)
    """A command sent to its answer (s)."""
    frames: Counter[str] = field(default_factory=Counter)
    bytes: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    """Refusals by code, and lost connections as ``closed:<code>``."""
    rounds: int = 0
    """Rounds settled, counted once per table (by its spectator)."""
    gaps: Counter[float] = field(default_factory=Counter)
    """Frames by the time since the socket's previous frame, in buckets (``GAP_BUCKETS_MS``):
    how many writes a flush window of that length could have merged at most."""
    sent: int = 0
    """Commands sent in the window (the seating before it lasts as long as the server takes
    to seat everyone, so counting it would make a slower server look busier)."""

    def frame(self, kind: str, size: int, gap: float) -> None:
        """Count one frame received, ``gap`` seconds after its socket's previous one."""
        if self.measuring:
            self.frames[kind] += 1
            self.bytes[kind] += size
            ms = gap * 1000
            self.gaps[next((b for b in GAP_BUCKETS_MS if ms < b), math.inf)] += 1

    def within(self) -> dict[str, float]:
        """The share of frames that came within each bucket's ms of their socket's last."""
        total = sum(self.gaps.values()) or 1
        return {
            f"{b:g}": round(sum(n for g, n in self.gaps.items() if g <= b) / total, 4)
            for b in GAP_BUCKETS_MS
        }

    def per_client_round(self, clients: int) -> dict[str, dict[str, float]]:
        """Frames and bytes by type, per client and per round, most bytes first."""
        tables = max(1, clients // 9)
        per_table_rounds = self.rounds / tables if self.rounds else 1.0
        scale = clients * per_table_rounds
        kinds = sorted(self.bytes, key=lambda k: -self.bytes[k])
        return {
            k: {
                "frames": round(self.frames[k] / scale, 2),
                "bytes": round(self.bytes[k] / scale),
            }
            for k in kinds
        }

    def report(self) -> dict[str, Any]:
        """The step's client-side figures."""
        return {
            "delivery": summary_ms(self.delivery),
            "round_trip": summary_ms(self.round_trip),
            "frames": sum(self.frames.values()),
            "bytes": sum(self.bytes.values()),
            "rounds": self.rounds,
            "frames_within_ms": self.within(),
            "commands": self.sent,
            "errors": dict(self.errors),
        }

"""What one fault or outage did to the cluster, and the figures of a run (``summary``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Outcome:
    """What one fault did."""

    fault: str
    phase: str
    table: str
    takeover: float | None
    voided: dict[str, int]
    coins_lost: int
    seated_again: bool
    refused_late: int = 0
    problems: list[str] = field(default_factory=list)
    followed: float | None = None
    """Seconds until the table's bots were back in their seats on the new node, found while
    the old node was still frozen (the stop fault)."""
    back_after: float | None = None
    """An outage: seconds from the part's return until every client (bots and page) was
    back in its seat, 0 when none had left it."""
    played_after: float | None = None
    """An outage: seconds from the part's return until every table had settled a round; a
    wallet outage: until a round took the stakes of the users the platform keeps."""
    resumed: dict[str, float] | None = None
    """A failover: seconds from the promotion until each table whose write waited for the
    database took it (its node logs ``table resumed``)."""
    http_5xx: dict[str, int] | None = None
    """An outage: answers 5xx other than 503, as the proxy's log, the clients and the nodes'
    logs saw them; ``proxy_503`` counts the proxy's own page (no node could answer)."""
    page: dict[str, bool] | None = None
    """An outage: whether the page ever showed the proxy's page, or the lobby saying its
    connection was lost (連線中斷)."""
    tracebacks: int = 0
    """Traceback lines in the nodes' logs since the fault."""
    said: str = ""
    """A server refused at its start: what it said."""


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    """The figures of a run, per fault."""
    out: dict[str, Any] = {"faults": len(outcomes), "by_fault": {}}
    for fault in dict.fromkeys(o.fault for o in outcomes):
        some = [o for o in outcomes if o.fault == fault]
        takes = sorted(o.takeover for o in some if o.takeover is not None)
        out["by_fault"][fault] = {
            "injected": len(some),
            "takeover_max_s": round(takes[-1], 2) if takes else None,
            "takeover_median_s": round(takes[len(takes) // 2], 2) if takes else None,
            "rounds_voided": sum(sum(o.voided.values()) for o in some),
            "rounds_voided_max_per_table": max(
                (n for o in some for n in o.voided.values()), default=0
            ),
            "coins_lost": sum(o.coins_lost for o in some),
            "not_seated_again": sum(not o.seated_again for o in some),
            "late_writes_refused": sum(o.refused_late for o in some),
            "bots_followed_s": [o.followed for o in some if o.fault == "stop"] or None,
            "seated_after_s": [o.back_after for o in some if o.back_after is not None] or None,
            "played_after_s": [o.played_after for o in some if o.played_after is not None] or None,
            "resumed_s": [o.resumed for o in some if o.resumed is not None] or None,
            "http_5xx": [o.http_5xx for o in some if o.http_5xx is not None] or None,
            "page": [o.page for o in some if o.page is not None] or None,
            "tracebacks": sum(o.tracebacks for o in some),
            "said": [o.said for o in some if o.said] or None,
            "problems": [p for o in some for p in o.problems],
        }
    return out

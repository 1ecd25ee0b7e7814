"""Outages of what the server leans on: the database or the directory (Redis) unreachable.

Any request that meets one is answered ``503 service_unavailable`` with ``Retry-After``, never
500 with a traceback; the log says so once an outage, not once a request.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from baccarat.cluster.outage import part_down
from baccarat.server.http import auth

log = logging.getLogger("baccarat.server")

RETRY_AFTER = 5
"""Seconds a client is asked to wait before trying again."""


class Outages:
    """What is down now, as the requests found it: an outage is failures of one part with
    less than ``QUIET`` seconds between them, and is logged once."""

    QUIET = 30.0

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last: dict[str, float] = {}
        """When a request last met each part down."""

    def failed(self, part: str, exc: BaseException) -> None:
        """A request met ``part`` unreachable (logged once an outage)."""
        now = self.clock()
        last = self.last.get(part)
        self.last[part] = now
        if last is None or now - last > self.QUIET:
            log.warning(
                f"the {part} is unreachable: answering 503 until it is back",
                extra={"error": f"{type(exc).__name__}: {exc}"[:300]},
            )


OUTAGES = web.AppKey("outages", Outages)


def unavailable(part: str) -> web.Response:
    """The answer to a request that met ``part`` unreachable."""
    return auth.fail(
        503,
        "service_unavailable",
        f"The {part} cannot be reached just now; try again in a few seconds.",
        **{"Retry-After": str(RETRY_AFTER)},
    )


@web.middleware
async def answer_outages(request: web.Request, handler: Any) -> web.StreamResponse:
    """503 with ``Retry-After`` for a request that meets the database or Redis down."""
    outages = request.app[OUTAGES]
    try:
        response: web.StreamResponse = await handler(request)
    except web.HTTPException:
        raise
    except Exception as exc:
        part = part_down(exc)
        if part is None:
            raise
        outages.failed(part, exc)
        return unavailable(part)
    return response

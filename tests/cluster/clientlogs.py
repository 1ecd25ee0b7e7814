"""What the clients of a fault run logged, and what its proxy saw: when each client was back
in its seat after an outage, and the server errors each met.

The bots' crews and the browser page (``pagewatch``) log JSON lines with their time
(``ts``); HAProxy logs one line per request (``option httplog``), its status after the
timers and ``<NOSRV>`` for an answer of its own (no node could take the request).
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FIVE_XX = re.compile(r"\b(5\d\d), message=")
"""A bot's message about an HTTP answer (aiohttp's wording: ``502, message='...'``)."""
PAUSE = 2.0
"""The longest pause of a seated bot between two tries to connect (``BACKOFF_CAP_SEATED``)."""
QUIET = 4.0
"""Seconds without a failure after which a bot that was trying to connect has."""
HTTP_LINE = re.compile(r"\] \S+ (\S+)/(\S+) \S+ (-?\d+) ")
"""An HAProxy request line: its backend, server and status."""


def json_lines(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON records of a log (other lines left out)."""
    if not path.exists():
        return
    for line in path.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            rec = json.loads(line)
            if isinstance(rec, dict) and "ts" in rec:
                yield rec


def crew_back(
    path: Path, since: float, returned: float, now: float | None = None
) -> tuple[float | None, int]:
    """From a crew's log up to ``now``: a bound on the seconds from ``returned`` until every
    bot that lost its connection after ``since`` had it again, in its seat (0.0 when none
    lost it, or all had it again before), None while one is still trying; and the answers
    5xx but 503 its bots met.

    A bot logs a connection that ended, a try to connect that failed and its return to its
    seat, but not a connection closed by its node nor a seat taken on a new connection, and
    not which bot failed: the bound is the later of the last return and one pause past the
    last failure (a bot tries again within ``PAUSE``), once no try has failed for ``QUIET``
    seconds."""
    now = time.time() if now is None else now
    errors = 0
    back, failed = since, 0.0
    for rec in json_lines(path):
        ts = float(rec["ts"])
        if not since <= ts <= now:
            continue
        msg = str(rec.get("msg", ""))
        if msg.startswith(("bot connection ended", "bot cannot connect")):
            failed = ts
        elif msg == "bot back in its seat":
            back = ts
        found = FIVE_XX.search(msg)
        errors += found is not None and found.group(1) != "503"
    if failed and back < failed and now - failed <= QUIET:
        return None, errors
    if failed:
        back = max(back, failed + PAUSE)
    return round(max(0.0, back - returned), 2), errors


def page_back(
    path: Path, since: float, returned: float
) -> tuple[float | None, dict[str, bool], int]:
    """From the page's log: seconds from ``returned`` until it was back in its seat (0.0 when
    it never left it after ``since``, or was back before), None while it is not; whether it
    showed the proxy's page or the lobby saying 連線中斷 after ``since``; and the answers 5xx
    but 503 it got."""
    seated, back = False, since
    shown = {"proxy_page": False, "lobby_offline": False}
    errors = 0
    for rec in json_lines(path):
        ts = float(rec["ts"])
        if rec.get("msg") == "page http" and ts >= since:
            errors += int(rec["status"]) >= 500 and int(rec["status"]) != 503
        if rec.get("msg") != "page":
            continue
        if ts >= since:
            shown["proxy_page"] |= bool(rec.get("proxy"))
            shown["lobby_offline"] |= bool(rec.get("lobby_offline"))
            if rec.get("in_seat") and not seated:
                back = ts
        seated = bool(rec.get("in_seat"))
    if not seated:
        return None, shown, errors
    return round(max(0.0, back - returned), 2), shown, errors


def proxy_answers(path: Path, mark: int) -> tuple[int, int]:
    """From HAProxy's log past ``mark`` bytes: answers 5xx but 503, and the proxy's own 503
    pages (no node took the request)."""
    if not path.exists():
        return 0, 0
    with path.open("rb") as f:
        f.seek(mark)
        text = f.read().decode(errors="replace")
    errors = own = 0
    for line in text.splitlines():
        found = HTTP_LINE.search(line)
        if found is None:
            continue
        server, status = found.group(2), int(found.group(3))
        errors += status >= 500 and status != 503
        own += status == 503 and server == "<NOSRV>"
    return errors, own


def size(path: Path) -> int:
    """A log's size now (0 when it is not there)."""
    return path.stat().st_size if path.exists() else 0

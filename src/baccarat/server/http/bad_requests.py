"""aiohttp's parse failures of hostile requests, logged as what they are: one info line."""

from __future__ import annotations

import logging

from aiohttp.http_exceptions import HttpProcessingError


class BadRequestFilter(logging.Filter):
    """aiohttp logs a request it cannot parse as an error with a traceback; it is the
    client's fault and already answered 4xx, so it becomes one info line.

    Hostile clients send such requests at will: as errors they would flood the log and
    hide the server's own failures.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Downgrade a 4xx parse failure; leave every other record as it is."""
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError) and 400 <= exc.code < 500:
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg = "bad HTTP request (%s %s)"
            record.args = (exc.code, exc.message.strip().splitlines()[0][:200])
            record.exc_info = record.exc_text = None
        return True


def quiet_bad_requests() -> None:
    """Install ``BadRequestFilter`` on aiohttp's server logger (once)."""
    logger = logging.getLogger("aiohttp.server")
    if not any(isinstance(f, BadRequestFilter) for f in logger.filters):
        logger.addFilter(BadRequestFilter())

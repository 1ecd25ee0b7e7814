"""Structured logs: one JSON object per line on stderr, from the standard library's logging."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from aiohttp.http_exceptions import HttpProcessingError

# Attributes every LogRecord has; anything else was passed with ``extra=`` and is logged.
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON line: time, level, logger, message, then the extras."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line."""
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


def setup_logging(level: str = "info") -> None:
    """Send every log record to stderr as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # aiohttp's access log duplicates our request log.
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    logging.getLogger("alembic.runtime.migration").addFilter(_migrations_only)


def _migrations_only(record: logging.LogRecord) -> bool:
    # Alembic describes its own machinery on every start; keep only the migrations it runs.
    return record.levelno >= logging.WARNING or record.getMessage().startswith("Running ")


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

"""Structured logs: one JSON object per line on stderr, from the standard library's logging.

Shared by ``serve`` and ``bots`` (and each bot's own process): it imports no part of the
server, so a bot starts without loading it."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

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

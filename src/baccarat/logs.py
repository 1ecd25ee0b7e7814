"""Structured logs on stderr, from the standard library's logging: one JSON object per line,
or on a terminal one readable line per record.

Shared by ``serve`` and ``bots`` (and each bot's own process): it imports no part of the
server, so a bot starts without loading it."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, Literal

LogFormat = Literal["auto", "json", "text"]
FORMATS: tuple[LogFormat, ...] = ("auto", "json", "text")
"""``auto``: readable text on a terminal, JSON lines otherwise (a file, a pipe, journald)."""

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
        out.update(_extras(record))
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {
        key: value
        for key, value in record.__dict__.items()
        if key not in _STANDARD and not key.startswith("_")
    }


def _text(value: object) -> str:
    """A value as a key=value line shows it: quoted only when a space or quote would blur it."""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    if text == "" or any(c in text for c in ' \t\n"='):
        return json.dumps(text, ensure_ascii=False)
    return text


class TextFormatter(logging.Formatter):
    """Format a record as one line for a person at a terminal: local time, level, message,
    then the extras as ``key=value``; the lines after, indented, carry the rest of a message
    of many lines and a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a readable line."""
        stamp = time.strftime("%H:%M:%S", time.localtime(record.created))
        millis = int(record.created % 1 * 1000)
        parts = [f"{stamp}.{millis:03d}", f"{record.levelname.lower():<7}", record.getMessage()]
        parts += [f"{key}={_text(value)}" for key, value in _extras(record).items()]
        line = " ".join(parts)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        # A message of many lines (a migration's, a traceback) stays one record to the eye.
        return line.replace("\n", "\n    ")


def formatter(fmt: LogFormat = "auto") -> logging.Formatter:
    """The formatter of ``fmt``: ``auto`` is text when stderr is a terminal, else JSON."""
    if fmt == "auto":
        fmt = "text" if sys.stderr.isatty() else "json"
    return TextFormatter() if fmt == "text" else JsonFormatter()


def setup_logging(level: str = "info", fmt: LogFormat = "auto") -> None:
    """Send every log record to stderr, as JSON lines or (``text``) readable lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(fmt))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # aiohttp's access log duplicates our request log.
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    logging.getLogger("alembic.runtime.migration").addFilter(_migrations_only)


def _migrations_only(record: logging.LogRecord) -> bool:
    # Alembic describes its own machinery on every start; keep only the migrations it runs.
    return record.levelno >= logging.WARNING or record.getMessage().startswith("Running ")

"""JSON on the wire: strict, bounded reading and writing that is always encodable.

Everything a client sends (a WebSocket frame, a login or register body) is read here, so
hostile text meets one guard:

- The parser is orjson: strict RFC 8259 JSON, without Python recursion. It refuses
  ``NaN``/``Infinity``, numbers that overflow a double, invalid UTF-8 and lone surrogates
  (``"\\ud800"``), which would otherwise travel on and break an encoder later.
- Nesting deeper than ``MAX_DEPTH`` is refused before anything walks the value (the protocol's
  messages are flat objects; the standard library's parser recurses and fails at ~1000 levels).

What the server sends is encoded by ``dumps`` (text) or ``dumps_bytes`` (UTF-8, for a
finished frame): always valid UTF-8, so a writer never meets text it cannot send. This is
the project's one JSON codec: sockets, the store's JSON columns and the HTTP API use it.
"""

from __future__ import annotations

import json
import re

import orjson

from baccarat.errors import InvalidInput

MAX_DEPTH = 16
"""Deepest nesting of arrays and objects accepted (a protocol message has depth 1)."""

# Written with chr(): a lone surrogate cannot stand in the compiled build's literals.
_SURROGATE = re.compile(f"[{chr(0xD800)}-{chr(0xDFFF)}]")


def loads(data: str | bytes) -> object:
    """Parse one JSON text, or raise ``InvalidInput("bad_message")`` saying what is wrong."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InvalidInput("bad_message", f"The text is not valid JSON ({exc}).") from exc
    # Nesting needs an opening bracket per level: most texts cannot be deep, and are not walked.
    raw = data.encode() if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and depth(value) > MAX_DEPTH:
        raise InvalidInput(
            "bad_message", f"The JSON nests deeper than {MAX_DEPTH} levels of arrays and objects."
        )
    return value


def loads_own(data: str | bytes) -> object:
    """Parse JSON this system wrote itself (a lobby line another node published through
    ``dumps``): strict as ``loads``, without walking the value for its depth."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InvalidInput("bad_message", f"The text is not valid JSON ({exc}).") from exc


def depth(value: object) -> int:
    """How deeply arrays and objects nest in ``value`` (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        stack.extend((child, level) for child in children if isinstance(child, dict | list))
    return deepest


_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps_bytes(message: object) -> bytes:
    """``message`` as compact UTF-8 JSON bytes (see ``dumps``)."""
    try:
        return orjson.dumps(message, option=_OPTIONS)
    except TypeError:
        # orjson refuses what the standard encoder repairs (a lone surrogate in a text).
        return dumps(message).encode("utf-8")


def dumps(message: object) -> str:
    """Encode a server message as compact JSON (UTF-8 kept) that always encodes as UTF-8.

    A lone surrogate can only sit inside a JSON string (the syntax is ASCII); it becomes
    U+FFFD, so the text stays valid JSON and the socket's writer can always send it.
    """
    try:
        return orjson.dumps(message, option=_OPTIONS).decode()
    except TypeError:
        # orjson refuses a lone surrogate (and integers beyond 64 bits): the standard
        # encoder writes them, and the surrogate is replaced below.
        pass
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _SURROGATE.sub("\ufffd", text)
    return text

"""Server messages as finished WebSocket frames: encoded once, written to many sockets.

A server's frames are not masked, and the server does not compress (see
``docs/benchmarks.md``), so one text message is the same bytes on every socket. The hub
encodes a message for a whole audience once (JSON by orjson, then the frame header of RFC
6455 section 5.2) and each connection only hands the bytes to its transport.
"""

from __future__ import annotations

from baccarat.protocol.codec import dumps_bytes


def text_frame(payload: bytes) -> bytes:
    """A final, unmasked text frame carrying ``payload`` (UTF-8 JSON)."""
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 1 << 16:
        return b"\x81\x7e" + n.to_bytes(2, "big") + payload
    return b"\x81\x7f" + n.to_bytes(8, "big") + payload


PING = b"\x89\x00"
"""A ping without payload (the heartbeat's)."""


def pong_frame(data: bytes) -> bytes:
    """The pong answering a ping with ``data`` (a control frame: at most 125 bytes, which
    the reader enforces on the ping)."""
    return bytes((0x8A, len(data))) + data


def payload(frame: bytes) -> bytes:
    """The payload of a frame made by ``text_frame``."""
    n = frame[1]
    return frame[2 + (2 if n == 126 else 8 if n == 127 else 0) :]


def encode(message: object) -> bytes:
    """``message`` as compact UTF-8 JSON in one text frame."""
    return text_frame(dumps_bytes(message))

"""The signature on every call between the platform and the game: HMAC-SHA256 with the
shared secret over the timestamp, the method, the path with its query, and the body.

Pure: the caller gives the time. A call is good for ``WINDOW`` seconds either side of its
timestamp; what it does is made idempotent by its own id, not by the signature.
"""

from __future__ import annotations

import hashlib
import hmac

from baccarat.errors import InvalidInput

TIMESTAMP = "X-Platform-Timestamp"
SIGNATURE = "X-Platform-Signature"
WINDOW = 300
"""Seconds a signed call stays good (5 minutes, either side)."""


def signature(secret: bytes, timestamp: str, method: str, path_qs: str, body: bytes) -> str:
    """The hex HMAC-SHA256 of ``timestamp\\nMETHOD\\npath?query\\n`` and the body."""
    message = f"{timestamp}\n{method.upper()}\n{path_qs}\n".encode() + body
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def sign(secret: bytes, now: float, method: str, path_qs: str, body: bytes = b"") -> dict[str, str]:
    """The two headers that sign a call made at ``now``."""
    stamp = str(int(now))
    return {TIMESTAMP: stamp, SIGNATURE: signature(secret, stamp, method, path_qs, body)}


def verify(
    secret: bytes,
    now: float,
    headers: dict[str, str],
    method: str,
    path_qs: str,
    body: bytes,
) -> None:
    """Refuse a call whose signature is wrong (``bad_signature``) or whose timestamp is
    outside the window (``stale_timestamp``)."""
    stamp, given = headers.get(TIMESTAMP, ""), headers.get(SIGNATURE, "")
    if not stamp.isascii() or not stamp.isdigit() or len(stamp) > 12:
        raise InvalidInput("bad_signature", f"{TIMESTAMP} is the call's Unix time in seconds.")
    expected = signature(secret, stamp, method, path_qs, body)
    if not hmac.compare_digest(expected.encode(), given.encode()):
        raise InvalidInput("bad_signature", f"{SIGNATURE} does not sign this call.")
    if abs(now - int(stamp)) > WINDOW:
        raise InvalidInput(
            "stale_timestamp",
            f"The call's timestamp is more than {WINDOW} s from the game's clock.",
        )

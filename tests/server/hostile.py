"""Hostile input for a live server: a probe socket, a log catcher, and corpora of bad frames.

Shared by the regression tests, the fuzz test and ``bench/fuzz_protocol.py``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import random
import struct
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from baccarat.client import ws_url
from baccarat.errors import InvalidInput
from baccarat.protocol.ids import UserId
from baccarat.protocol.parse import parse

MARK = "~probe-"
"""Prefix of the probe's own ping ids (fuzzed frames do not use it)."""


@contextlib.contextmanager
def logged_errors() -> Iterator[list[logging.LogRecord]]:
    """Collect every log record at ERROR or above (tracebacks included) while inside."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(logging.ERROR)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield records
    finally:
        root.removeHandler(handler)


def describe(records: list[logging.LogRecord]) -> list[str]:
    """The records as lines, for an assertion message."""
    return [f"{r.name}: {r.getMessage()} {r.exc_info[1] if r.exc_info else ''}" for r in records]


class Probe:
    """A raw WebSocket that sends any frame and reads every answer (ack or error)."""

    def __init__(self, http: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.http = http
        self.ws = ws
        self.marks = 0
        self.answers: list[dict[str, Any]] = []
        """Every answer to a frame that was not the probe's own ping."""
        self.hello: dict[str, Any] = {}
        self.close_code: int | None = None
        """The code the server closed the socket with, once it did."""

    @classmethod
    async def open(cls, base: str, token: str) -> Probe:
        """Connect with a bearer token; read the hello."""
        http = aiohttp.ClientSession()
        ws = await http.ws_connect(
            ws_url(base), headers={"Authorization": f"Bearer {token}"}, max_msg_size=0
        )
        probe = cls(http, ws)
        probe.hello = await ws.receive_json()
        return probe

    async def close(self) -> None:
        """Close the socket and the session."""
        await self.ws.close()
        await self.http.close()

    async def send(self, frame: str | bytes) -> None:
        """Send a text frame (``str``) or a binary one (``bytes``)."""
        if isinstance(frame, bytes):
            await self.ws.send_bytes(frame)
        else:
            await self.ws.send_str(frame)

    def _closed(self, msg: aiohttp.WSMessage) -> None:
        code = msg.data if msg.type == aiohttp.WSMsgType.CLOSE else self.ws.close_code
        self.close_code = code
        raise ConnectionError(f"socket closed: {msg.type!r} {code}")

    async def mark(self) -> list[dict[str, Any]]:
        """Ping, read until the ping's ack, and return the answers read before it.

        Raises ``ConnectionError`` if the socket closes first.
        """
        self.marks += 1
        mark = f"{MARK}{self.marks}"
        await self.ws.send_str(json.dumps({"type": "ping", "id": mark}))
        got: list[dict[str, Any]] = []
        while True:
            msg = await self.ws.receive()
            if msg.type != aiohttp.WSMsgType.TEXT:
                self._closed(msg)
            data = json.loads(msg.data)
            if data.get("type") not in ("ack", "error"):
                continue
            if data.get("id") == mark:
                # The ping itself may be refused (rate_limited): an answer all the same.
                self.answers.extend(got)
                return got
            got.append(data)

    async def ask(self, frame: str | bytes) -> list[dict[str, Any]]:
        """Send one frame, then mark: the answers the frame got.

        A squeeze move is answered when it reaches the table (up to 50 ms later), so for a
        frame that reads as one, the answer with its id is awaited past the mark.
        """
        await self.send(frame)
        got = await self.mark()
        late = _squeeze_id(frame)
        if late is None or any(a.get("id") == late[0] for a in got):
            return got
        while True:
            msg = await self.ws.receive()
            if msg.type != aiohttp.WSMsgType.TEXT:
                self._closed(msg)
            data = json.loads(msg.data)
            if data.get("type") in ("ack", "error"):
                got.append(data)
                self.answers.append(data)
                if data.get("id") == late[0]:
                    return got


def _squeeze_id(frame: str | bytes) -> tuple[str | int] | None:
    """The id of a frame the server reads as a squeeze move, or None."""
    try:
        msg = parse(frame, UserId(1)) if isinstance(frame, str) else None
    except InvalidInput:
        return None
    return (msg.id,) if msg is not None and msg.type == "squeeze" else None


def masked_frame(first: int, payload: bytes, *, masked: bool = True) -> bytes:
    """One client frame: ``first`` is FIN/RSV/opcode (0x81 a whole text frame)."""
    mask = os.urandom(4) if masked else b""
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if masked else payload
    bit = 0x80 if masked else 0
    if len(payload) < 126:
        head = struct.pack("!BB", first, bit | len(payload))
    elif len(payload) < 65536:
        head = struct.pack("!BBH", first, bit | 126, len(payload))
    else:
        head = struct.pack("!BBQ", first, bit | 127, len(payload))
    return head + mask + body


BAD_WS_FRAMES: dict[str, tuple[bytes, int]] = {
    # What a library client cannot send: each closes its socket with the RFC 6455 code.
    "text that is not UTF-8": (masked_frame(0x81, b'{"type":"ping","id":"\xff"}'), 1007),
    "an encoded surrogate": (masked_frame(0x81, b'{"id":"\xed\xa0\x80"}'), 1007),
    "a reserved opcode": (masked_frame(0x83, b"{}"), 1002),
    "reserved bits": (masked_frame(0xF1, b"{}"), 1002),
    "a ping of 200 bytes": (masked_frame(0x89, b"x" * 200), 1002),
    "a fragmented ping": (masked_frame(0x09, b"x"), 1002),
    "a continuation with nothing to continue": (masked_frame(0x80, b"{}"), 1002),
    # FIN + text, masked, 64-bit length (RFC 6455 section 5.2), then the mask: the header
    # alone, so the answer does not depend on how much of a megabyte the network carried.
    "a frame announcing 1 MB": (struct.pack("!BBQ", 0x81, 0x80 | 127, 1_000_000) + bytes(4), 1009),
}
"""Raw WebSocket frames and the close code each must get; the server serves on."""


async def oversized_frame_close_code(base: str, token: str) -> int:
    """Announce a text frame of 1 MB on a raw socket; return the server's close code."""
    return await raw_frame_close_code(base, token, BAD_WS_FRAMES["a frame announcing 1 MB"][0])


async def raw_frame_close_code(base: str, token: str, frame: bytes) -> int:
    """Open a socket by hand, send ``frame`` as bytes; return the server's close code."""
    url = urlsplit(base)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: {url.netloc}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {token}\r\n\r\n"
            ).encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        writer.write(frame)
        while True:
            first, second = await reader.readexactly(2)
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", await reader.readexactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", await reader.readexactly(8))
            payload = await reader.readexactly(length)
            if first & 0x0F == 0x8:
                return int(struct.unpack("!H", payload[:2])[0])
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


BAD_RAW_REQUESTS: list[bytes] = [
    b"GET /api/\xed\xa0\x80 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /api/lobby?x=\xff HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /\xff HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /api/me HTTP/1.1\r\nHost: x\r\nCookie: baccarat_session=\xed\xa0\x80\r\n\r\n",
    b"GET /api/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xed\xa0\x80\r\n\r\n",
    b"POST /api/logout HTTP/1.1\r\nHost: x\r\nCookie: baccarat_session=\xff\r\n"
    b"Content-Length: 0\r\n\r\n",
    b"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json; charset=\xff\r\n"
    b'Content-Length: 5\r\n\r\n{"a":',
    b"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    b"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    b"POST /api/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 100_000 + b"\r\n\r\n",
    b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"G\x00T / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: !!\r\nSec-WebSocket-Version: 99\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
]
"""Raw requests no HTTP client would send: none may get a 5xx (a 4xx, or a closed
connection; a logout with a bad cookie is still a 200)."""


async def raw_status(base: str, request: bytes) -> int | None:
    """Send ``request`` as bytes; the status of the answer, or None if none came."""
    url = urlsplit(base)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        writer.write(request)
        line = await reader.readline()
    except ConnectionError:
        return None
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
    parts = line.split()
    return int(parts[1]) if len(parts) >= 2 and parts[1].isdigit() else None


def nested(depth: int) -> str:
    """``[[[...]]]``, ``depth`` levels."""
    return "[" * depth + "]" * depth


def _obj(**fields: Any) -> str:
    return json.dumps(fields)


CORPUS: list[str | bytes] = [
    # Nesting, as a whole frame and inside a field.
    nested(1000),
    nested(100_000)[:4000],
    '{"type":"ping","id":1,"x":' + nested(1000) + "}",
    '{"type":"sit","id":2,"table_id":"t1","seat":' + nested(500) + "}",
    "{" * 2000,
    '{"a":' * 1000 + "1" + "}" * 1000,
    # Lone surrogates in ids, field names and values (escapes: valid UTF-8 on the wire).
    r'{"type":"ping","id":"\ud800"}',
    r'{"type":"ping","id":3,"\udfff":1}',
    r'{"type":"table.watch","id":4,"table_id":"\udbff"}',
    r'{"type":"\ud800","id":5}',
    r'{"type":"bet","id":6,"area":"\udc00","chip":1}',
    r'{"type":"ping","id":"\ud83d\ude00"}',
    # Not JSON, or JSON with what RFC 8259 does not allow.
    '{"type":"ping","id":NaN}',
    '{"type":"ping","id":Infinity}',
    '{"type":"squeeze","id":7,"hand":"player","progress":NaN,"corner":"tl"}',
    '{"type":"squeeze","id":8,"hand":"player","progress":-Infinity,"corner":"tl"}',
    '{"type":"ping","id":1e400}',
    '{"type":"ping","id":' + "9" * 5000 + "}",
    '{"type":"ping","id":-' + "9" * 300 + "}",
    "",
    " ",
    "null",
    "[]",
    '"ping"',
    "{'type':'ping','id':1}",
    '{"type":"ping","id":1}{"type":"ping","id":2}',
    '{"type":"ping","id":1,}',
    "\x00",
    '{"type":"ping","id":"\x00"}',
    # Huge, negative and wrong-typed numbers and fields.
    _obj(type="sit", id=9, table_id="t1", seat=-1),
    _obj(type="sit", id=10, table_id="t1", seat=2**64),
    _obj(type="sit", id=11, table_id="t1", seat=1.5),
    _obj(type="sit", id=12, table_id="t1", seat="1"),
    _obj(type="sit", id=13, table_id="t1", seat=True),
    _obj(type="sit", id=14, table_id=7, seat=1),
    _obj(type="sit", id=15, table_id="", seat=1),
    _obj(type="sit", id=16, table_id="x" * 65, seat=1),
    _obj(type="bet", id=17, area="player", chip=-5),
    _obj(type="bet", id=18, area="player", chip=10**30),
    _obj(type="bet", id=19, area="player", chip=5.5),
    _obj(type="bet", id=20, area=["player"], chip=5),
    _obj(type="squeeze", id=21, hand="player", progress=1e308, corner="tl"),
    _obj(type="squeeze", id=22, hand="player", progress=-0.0, corner="zz"),
    _obj(type="ping", id=True),
    _obj(type="ping", id=None),
    _obj(type="ping", id=[1]),
    _obj(type="ping", id={"a": 1}),
    _obj(type="ping", id="x" * 65),
    _obj(type="ping", id=-(2**63)),
    _obj(type="ping", id=2.5),
    _obj(type=None, id=23),
    _obj(type=5, id=24),
    _obj(type="ping" * 1000, id=25),
    _obj(type="PING", id=26),
    # Unknown fields and forged users.
    _obj(type="ping", id=27, user_id=1),
    _obj(type="stand", id=28, seat=0),
    _obj(type="ping", id=29, **{"": 1}),
    _obj(type="bet", id=30, area="player", chip=1, amount=10**9),
    # Binary frames and oversized text frames (still under the socket's hard limit).
    b"\x00\x01\x02",
    b'{"type":"ping","id":31}',
    b"",
    "x" * 5000,
    _obj(type="ping", id=32, pad="x" * 8000),
]
"""Frames that each must get one answer (an error with a code, or an ack) and break nothing."""

BAD_PATHS: list[str] = [
    "/%00",
    "/index.html%00",
    "/js/main.js%00.png",
    "/" + "a" * 5000,
    "/js/" + "b" * 300 + ".js",
    "/..%2f..%2fpyproject.toml",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/%ff%fe",
    "/%ed%a0%80",
    "/js/%c0%af",
    "/\\..\\..\\etc\\passwd",
    "//etc/passwd",
    "/js//main.js%00",
    "/%",
    "/%zz",
    "/index.html/",
    "/js/main.js/..",
    "/api/%00",
    "/ws%00",
    "/healthz%00",
    "/?token=%ed%a0%80",
    "/api/me?token=%ed%a0%80",
    "/api/me?token=" + "t" * 5000,
    "/api/lobby?%00=%00",
    "/api/shoes?table=%00",
    "/api/shoes?table=%ED%A0%80",
    "/api/shoes?table=" + "t" * 5000,
    "/api/shoes?table=t1&limit=%C2%B2",
    "/api/shoes?table=t1&before=1.0:%00",
    "/api/shoes?table=t1&before=1.0:%ED%A0%80",
    "/api/shoes?table=t1&before=1e999:x",
    "/api/shoes/%00",
    "/api/shoes/%ED%A0%80",
    "/api/shoes/" + "s" * 5000,
]
"""Request paths that must each be answered with a 4xx (or the page), never a 5xx."""

BAD_QUERIES: list[str] = [
    "/api/my/rounds?limit=%C2%B2",
    "/api/my/rounds?limit=" + "9" * 5000,
    "/api/my/rounds?limit=-1",
    "/api/my/rounds?before=1.0:%ED%A0%80",
    "/api/my/rounds?before=nan:x",
    "/api/my/rounds?before=1e999:x",
    "/api/my/rounds?before=" + "1" * 5000 + ":x",
    "/api/my/net?since=" + "9" * 5000,
    "/api/my/net?since=%ED%A0%80",
    "/api/my/net?since=-inf",
    "/api/me?token=%00",
]
"""Query strings of the logged-in API that must each be a 4xx (or a page), never a 5xx."""


MUTATED_MAX = 12_000
"""Characters a mutated frame keeps: it stays under the socket's 16 KiB hard limit."""


def mutate(rng: random.Random, frame: str) -> str:
    """A quick random change of a frame: cut, repeat, splice or flip characters.

    The result is sendable text (no lone surrogate: those are sent as ``\\udXXX`` escapes)
    of at most ``MUTATED_MAX`` characters.
    """
    return _mutate(rng, frame)[:MUTATED_MAX]


def _char(rng: random.Random) -> str:
    point = rng.randrange(0x20, 0x30000)
    return chr(point + 0x800 if 0xD800 <= point < 0xE000 else point)


def _mutate(rng: random.Random, frame: str) -> str:
    if not frame:
        return rng.choice(["{", "[", '"', "\\u"])
    i = rng.randrange(len(frame))
    choice = rng.randrange(6)
    if choice == 0:
        return frame[:i]
    if choice == 1:
        return frame[:i] + frame[i:] * rng.randint(2, 5)
    if choice == 2:
        return frame[:i] + rng.choice(HOSTILE_BITS) + frame[i:]
    if choice == 3:
        return frame[:i] + _char(rng) + frame[i + 1 :]
    if choice == 4:
        j = rng.randrange(len(frame))
        return frame[: min(i, j)] + frame[max(i, j) :]
    return frame[:i] + frame[i:][::-1]


HOSTILE_BITS = [
    r"\ud800",
    r"\udfff",
    r"\u0000",
    "NaN",
    "-Infinity",
    "1e999",
    "-1",
    "9" * 400,
    "[" * 40,
    "{" * 40,
    '"',
    "\\",
    ",",
    ":",
    "null",
    "true",
    "5.0",
    '"id":',
    '"type":"bet",',
    '"user_id":1,',
]

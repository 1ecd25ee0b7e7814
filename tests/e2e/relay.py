"""A TCP relay in front of a server that counts the bytes the browser receives through it.

What crossed the wire, whoever asked for it (the page, its service worker, the browser's
update check), is what it counts; a WebSocket's connection is counted apart. Closed, it
refuses every connection, as a server out of reach does. Failing, it answers every request
with its own HTML 503 page and cuts the connections that were open, as HAProxy does when no
node behind it passes its checks (``on-marked-down shutdown-sessions``).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any
from urllib.parse import urlsplit


class Relay:
    """Listens on 127.0.0.1 and passes every connection on to ``target`` (an http URL)."""

    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.lock = threading.Lock()
        self.received = 0
        self.socket_bytes = 0
        self.requests: list[list[object]] = []  # [request line, bytes of its answer]
        self.open: list[socket.socket] = []
        self.failing = False
        self.refused = 0  # requests answered with the 503 page
        threading.Thread(target=self._accept, daemon=True).start()

    def reset(self) -> None:
        """Count from zero again."""
        with self.lock:
            self.received = 0
            self.socket_bytes = 0
            self.requests.clear()

    def close(self) -> None:
        """Stop listening and cut every connection."""
        self.listener.close()
        self._cut()

    def fail(self, failing: bool) -> None:
        """Answer every request with the 503 page from now on (the open connections cut), or
        pass them on again."""
        self.failing = failing
        if failing:
            self._cut()

    def _cut(self) -> None:
        with self.lock:
            for conn in self.open:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()

    def _accept(self) -> None:
        while True:
            try:
                browser, _ = self.listener.accept()
            except OSError:
                return
            if self.failing:
                threading.Thread(target=self._refuse, args=(browser,), daemon=True).start()
                continue
            server = socket.create_connection(self.target)
            with self.lock:
                self.open += [browser, server]
            state: dict[str, Any] = {"socket": False, "answer": None}
            up = threading.Thread(target=self._up, args=(browser, server, state), daemon=True)
            down = threading.Thread(target=self._down, args=(server, browser, state), daemon=True)
            up.start()
            down.start()
            threading.Thread(
                target=self._end, args=(up, down, browser, server), daemon=True
            ).start()

    def _end(self, *pair: threading.Thread | socket.socket) -> None:
        """Close a connection's two sockets once both its directions have ended."""
        for part in pair:
            if isinstance(part, threading.Thread):
                part.join()
        with self.lock:
            for part in pair:
                if isinstance(part, socket.socket):
                    part.close()
                    if part in self.open:
                        self.open.remove(part)

    def _up(self, src: socket.socket, dst: socket.socket, state: dict[str, Any]) -> None:
        while data := self._read(src):
            for line in data.split(b"\r\n"):
                if line[:4] in (b"GET ", b"POST", b"HEAD"):
                    with self.lock:
                        state["answer"] = [line.decode("latin-1").rsplit(" ", 1)[0], 0]
                        self.requests.append(state["answer"])
            if b"Upgrade: websocket" in data or b"upgrade: websocket" in data:
                state["socket"] = True
            if not self._write(dst, data):
                break
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def _down(self, src: socket.socket, dst: socket.socket, state: dict[str, Any]) -> None:
        while data := self._read(src):
            with self.lock:
                if state["socket"]:
                    self.socket_bytes += len(data)
                else:
                    self.received += len(data)
                if state["answer"] is not None:
                    state["answer"][1] += len(data)
            if not self._write(dst, data):
                break
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def _refuse(self, browser: socket.socket) -> None:
        """Answer the connection's request with the 503 page, and close it."""
        with browser:
            head = b""
            while b"\r\n\r\n" not in head and (data := self._read(browser)):
                head += data
            with self.lock:
                self.refused += 1
            self._write(browser, UNAVAILABLE)
            with contextlib.suppress(OSError):
                browser.shutdown(socket.SHUT_RDWR)

    @staticmethod
    def _read(conn: socket.socket) -> bytes:
        try:
            return conn.recv(65536)
        except OSError:
            return b""

    @staticmethod
    def _write(conn: socket.socket, data: bytes) -> bool:
        try:
            conn.sendall(data)
        except OSError:
            return False
        return True


PAGE = (
    b"<html><body><h1>503 Service Unavailable</h1>\n"
    b"No server is available to handle this request.\n</body></html>\n"
)
UNAVAILABLE = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: %d\r\ncache-control: no-cache\r\n"
    b"content-type: text/html\r\nconnection: close\r\n\r\n%s" % (len(PAGE), PAGE)
)
"""HAProxy's own answer when no server of a backend is up (its ``errorfile 503``)."""

"""What ``baccarat serve`` prints once it serves: where everything is (the tests read its
``open:`` line)."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from baccarat.server import Server


def shown_host(host: str) -> str:
    """The address to print for ``host``: one a browser on this machine can open."""
    return "127.0.0.1" if host in ("0.0.0.0", "::", "") else host


def announce(
    server: Server,
    url: str,
    base: str,
    metrics: str,
    accounts: list[tuple[str, str]],
    keys: Path,
) -> None:
    """Print where everything is (the tests read the ``open:`` line)."""
    print(f"database: {url}", flush=True)
    print(f"keys:     {keys}", flush=True)
    if metrics:
        print(f"metrics:  http://{metrics}/metrics", flush=True)
    if server.node.public_url:
        print(f"node:     {server.node.node_id} at {server.node.public_url}", flush=True)
    print(f"open:     {base}/", flush=True)
    for name, password in accounts:
        print(f"demo account: {name} / {password}", flush=True)
    print("Ctrl-C stops the server (rounds in play finish first).", flush=True)


def bound_port(runner: web.AppRunner, wanted: int) -> int:
    """The port ``runner`` listens on (``wanted`` when it cannot tell)."""
    for addr in runner.addresses:
        if isinstance(addr, tuple) and len(addr) >= 2:
            return int(addr[1])
    return wanted

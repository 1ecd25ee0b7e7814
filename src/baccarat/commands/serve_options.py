"""The options of ``baccarat serve``: where it listens, its database, keys and rooms, its
cluster, proxy, platform, logs and witnesses, each with its default and its check."""

from __future__ import annotations

import argparse

from baccarat.cluster.keeper import DEFAULT_TTL
from baccarat.cluster.remote import DEFAULT_PREFIX
from baccarat.commands import options, witnesses
from baccarat.logs import FORMATS
from baccarat.server.http.proxy import verify_address


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``serve``."""
    parser.epilog = (
        "Tables, WebSocket, HTTP API and the browser client in one process; with --redis, "
        "one node of many; with --workers N, N nodes of one system on this machine "
        "(docs/deployment.md). It makes the database and the keys file when they are "
        "missing. A bad option, a database that cannot be opened, a port in use: one line "
        "on standard error, exit 2."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--port", type=options.port, default=8000, help="port, 0-65535 (0 picks a free one)"
    )
    parser.add_argument("--db", help="database URL (default: the embedded SQLite file)")
    parser.add_argument("--rooms", help="rooms TOML file (default: the packaged rooms.toml)")
    parser.add_argument(
        "--keys",
        help="the keys file that seals shoe seeds and signs the commitment log (default: "
        "beside the SQLite file, else in the data directory; created when missing; every "
        "node of one system needs the same file)",
    )
    parser.add_argument("--demo", action="store_true", help="demo accounts and bots")
    witnesses.add_arguments(parser)
    parser.add_argument("--speed", type=float, default=1.0, help="divide every timer by X")
    parser.add_argument(
        "--register",
        dest="allow_register",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="accept POST /api/register, or not with --no-register "
        "(default: the rooms file's [server] allow_register)",
    )
    # The spellings of earlier versions, still accepted.
    parser.add_argument(
        "--allow-register",
        dest="allow_register",
        action="store_true",
        default=None,
        help=argparse.SUPPRESS,
    )
    parser.add_argument(
        "--no-allow-register",
        dest="allow_register",
        action="store_false",
        default=None,
        help=argparse.SUPPRESS,
    )
    parser.add_argument(
        "--origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another browser origin allowed to open sockets (repeatable)",
    )
    parser.add_argument(
        "--register-per-ip",
        type=int,
        metavar="N",
        help="registrations per hour from one address (default: the rooms file's, else 5)",
    )
    parser.add_argument(
        "--register-per-hour",
        type=int,
        metavar="N",
        help="registrations per hour from all addresses (default: the rooms file's, else 100)",
    )
    parser.add_argument(
        "--metrics-listen",
        metavar="HOST:PORT",
        help="serve /metrics on this address only the operator reaches (such as 127.0.0.1:9100)",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        type=_proxy_address,
        metavar="ADDR",
        help="the address of a reverse proxy whose X-Forwarded-For names the client "
        "(rate limits and the operator log use it then; repeatable)",
    )
    parser.add_argument(
        "--platform",
        metavar="FILE",
        help="the operator's platform (TOML): players launched with its signed tokens, and "
        "its wallet (docs/integration.md)",
    )
    parser.add_argument("--log-level", default="info", help="debug, info, warning, error")
    parser.add_argument(
        "--log-format",
        choices=FORMATS,
        default="auto",
        help="readable text lines, or JSON lines (default: text on a terminal, else JSON)",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="run as one node of many, sharing tables, seats and the lobby through this Redis",
    )
    parser.add_argument(
        "--redis-prefix",
        default=DEFAULT_PREFIX,
        help=f"key prefix in Redis, one per system sharing it (default: {DEFAULT_PREFIX})",
    )
    parser.add_argument(
        "--test-hooks",
        action="store_true",
        help="serve /api/test/tables/ID to the machine itself, where tests hold a table's "
        "phase (for the project's browser tests, never for players)",
    )
    parser.add_argument("--node-id", help="this node's unique name (default: HOSTNAME:PORT)")
    parser.add_argument(
        "--lease-ttl",
        type=float,
        default=DEFAULT_TTL,
        help=f"seconds a table's lease outlives its node's last renewal (default: {DEFAULT_TTL:g})",
    )
    parser.add_argument(
        "--public-url",
        help="where clients reach this node (default with --redis: http://HOST:PORT as listened on)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="run N nodes of one system on this machine, one per core, on ports PORT to "
        "PORT+N-1 (needs --redis and a shared database; {n} in --public-url and --node-id "
        "is each worker's number)",
    )
    # Set for each worker by ``--workers``: (its number, how many): which tables go to it first.
    parser.set_defaults(share=None)


def _proxy_address(text: str) -> str:
    try:
        return verify_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None

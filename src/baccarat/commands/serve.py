"""``baccarat serve``: HTTP, WebSocket, the browser client and the live tables in one process."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import os
import signal
import socket
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from aiohttp import web

from baccarat.cluster import RedisDirectory
from baccarat.cluster.outage import Outage
from baccarat.cluster.remote import check_url
from baccarat.commands import announce, demo_witness, options, serve_lock, witnesses, workers
from baccarat.commands.demo import Demo, demo_layout, ensure_accounts, start_demo
from baccarat.commands.serve_options import add_arguments
from baccarat.errors import BaccaratError, Conflict
from baccarat.logs import setup_logging
from baccarat.platform import config as platform_config
from baccarat.server import Server, collector, create_app, kepthead, keyfile, load_rooms
from baccarat.server.config import RoomsConfig, listen_address, split_address
from baccarat.server.http.proxy import PROXY, Proxy
from baccarat.server.http.routes import create_metrics_app
from baccarat.server.tables import keycheck, shoes
from baccarat.store import VOID_CRASH, Store, default_db_url
from baccarat.store.endpoints import RENEW

HELP = "run the server: tables, WebSocket, HTTP API and the browser client"
__all__ = ["HELP", "add_arguments", "run"]

log = logging.getLogger("baccarat.server")


def run(args: argparse.Namespace) -> int:
    """Start the server; return 0 after a clean shutdown, 2 on a configuration error."""
    try:
        config = _configure(args)
    except BaccaratError as exc:
        print(f"baccarat serve: {exc.message}", file=sys.stderr)
        return 2
    setup_logging(args.log_level, args.log_format)
    url = args.db or default_db_url()
    try:
        keys_path, keys = _keys(args.keys, url)
        # Keys that cannot open the shoes in play are refused before anything is changed.
        store = keycheck.open_checked(url, keys, keys_path)
    except (BaccaratError, OSError) as exc:
        message = exc.message if isinstance(exc, BaccaratError) else str(exc)
        print(f"baccarat serve: {message}", file=sys.stderr)
        return 2
    if args.workers > 1:
        # The database is brought up to date here, once, before the workers open it.
        store.close()
        args.keys = str(keys_path)  # every worker reads the one file
        return workers.run(args, config.server.metrics_listen, run)
    args.keys_path, args.loaded_keys, args.db_url = keys_path, keys, url
    try:
        _install_uvloop()
        return asyncio.run(_serve(args, config, store, url))
    finally:
        store.close()


def _configure(args: argparse.Namespace) -> RoomsConfig:
    """The rooms file with the command line's overrides, every setting checked (a
    ``BaccaratError`` says what is wrong); the platform's file is read into ``args``."""
    options.verify_host("--host", args.host)
    config = _with_flags(load_rooms(args.rooms), args)
    witnesses.check(args)
    if not args.speed > 0:
        raise BaccaratError("bad_config", f"--speed must be positive, not {args.speed}.")
    config.table_configs(args.speed)
    if not args.lease_ttl > 0:
        raise BaccaratError("bad_config", f"--lease-ttl must be positive, not {args.lease_ttl}.")
    workers.check(args, config.server.metrics_listen)
    args.platform_config = platform_config.load(args.platform) if args.platform else None
    if args.redis and args.port == 0 and not args.public_url:
        raise BaccaratError("bad_config", "--redis with --port 0 needs --public-url.")
    if args.redis:
        check_url(args.redis)
    return config


def _keys(flag: str | None, db_url: str) -> tuple[Path, keyfile.Keys]:
    """The keys file (created when missing, and said so) and its keys."""
    path = Path(flag) if flag else keyfile.default_path(db_url)
    keys, created = keyfile.load_or_create(path)
    if created:
        print(f"keys:     created {path} (every node of this system needs this file)", flush=True)
    return path, keys


def _with_flags(config: RoomsConfig, args: argparse.Namespace) -> RoomsConfig:
    """The rooms file's ``[server]`` section with the command line's overrides."""
    changes: dict[str, Any] = {}
    for flag in ("register_per_ip", "register_per_hour"):
        value = getattr(args, flag)
        if value is not None:
            if value < 1:
                raise BaccaratError(
                    "bad_config", f"--{flag.replace('_', '-')} must be at least 1, not {value}."
                )
            changes[flag] = value
    if args.metrics_listen is not None:
        changes["metrics_listen"] = listen_address("--metrics-listen", args.metrics_listen)
    return replace(config, server=replace(config.server, **changes))


def _install_uvloop() -> None:
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


async def _serve(args: argparse.Namespace, config: RoomsConfig, store: Store, url: str) -> int:
    # Handle SIGTERM from the first moment, so a stop during start-up is clean too.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    directory = RedisDirectory.from_url(args.redis, args.redis_prefix) if args.redis else None
    if directory is not None and not await _reachable(directory, args.redis):
        return 2
    # A server alone is the whole system, and nodes share the tables: a server of the other
    # kind on the same database is refused before it writes anything.
    try:
        async with (
            serve_lock.held(store, url, shared=directory is not None),
            demo_witness.beside(args, alone=directory is None),
        ):
            return await _serve_alone_or_not(args, config, store, url, directory, stop)
    except Conflict as exc:
        print(f"baccarat serve: {exc.message}", file=sys.stderr)
        if directory is not None:
            await directory.close()
        return 2


async def _serve_alone_or_not(
    args: argparse.Namespace,
    config: RoomsConfig,
    store: Store,
    url: str,
    directory: RedisDirectory | None,
    stop: asyncio.Event,
) -> int:
    shown = announce.shown_host(args.host)
    server = _server(args, config, store, directory, shown)
    app = create_app(server, args.platform_config, start=False)
    app[PROXY] = Proxy(frozenset(args.trusted_proxy), server.node.public_url.startswith("https:"))
    runner = web.AppRunner(app, shutdown_timeout=5.0, access_log=None)
    await runner.setup()
    site = await _listen(runner, args.host, args.port)
    if site is None:
        await _close(runner, None, directory)
        return 2
    accounts: list[tuple[str, str]] = []
    if args.demo:
        accounts = await asyncio.to_thread(ensure_accounts, store, demo_layout(config))
    voided = await _tidy_alone(args, config, store) if directory is None else 0
    server.metrics.rounds_voided.labels(VOID_CRASH).inc(voided)
    await server.start()
    base = f"http://{shown}:{announce.bound_port(runner, args.port)}"
    advert = asyncio.create_task(_advertise(store, server.node.node_id, base))
    metrics_runner = await _metrics_listener(server, config)
    announce.announce(server, url, base, config.server.metrics_listen, accounts, args.keys_path)
    collector.settle()
    server.metrics.watch_collector()

    demo = await start_demo(base, store, config) if args.demo else None
    await stop.wait()
    log.info("shutting down")
    if demo is not None:
        await _stop_demo(demo)
    advert.cancel()
    await asyncio.to_thread(store.withdraw, server.node.node_id)
    await site.stop()
    await server.drain()
    await _close(runner, metrics_runner, directory)
    log.info("stopped")
    return 0


async def _listen(runner: web.AppRunner, host: str, port: int) -> web.TCPSite | None:
    """Listen, or say in one line why not (None). The port comes first: a node takes no
    table, and a second server on a busy port voids nothing, before clients can reach it."""
    site = web.TCPSite(runner, host, port, shutdown_timeout=5.0)
    try:
        await site.start()
    except OSError as exc:
        why = "another program listens there" if exc.errno == errno.EADDRINUSE else exc.strerror
        print(f"baccarat serve: cannot listen on {host}:{port}: {why}", file=sys.stderr)
        return None
    return site


async def _reachable(directory: RedisDirectory, url: str) -> bool:
    """Whether Redis answers; if not, say so and close the directory."""
    try:
        await directory.nodes()
    except Exception as exc:
        print(f"baccarat serve: Redis is not reachable at {url}: {exc}", file=sys.stderr)
        await directory.close()
        return False
    return True


async def _tidy_alone(args: argparse.Namespace, config: RoomsConfig, store: Store) -> int:
    """What a server alone finishes before it starts; how many rounds it voided."""
    # Alone, this server is the whole system: a round left in escrow at a table no longer
    # in its rooms file will never be settled (the tables it runs void theirs when taken).
    voided = await _void_unfinished(store)
    # ... and a shoe left at such a table will never be dealt on: its seed is revealed.
    gone = set(config.table_room())
    await asyncio.to_thread(shoes.close_gone_tables, store, args.loaded_keys, gone)
    return voided


async def _stop_demo(demo: Demo) -> None:
    """Stop the demo's bots."""
    # The bots go first: after the listener closes they would only try to come back.
    # A round in play finishes without them, its cards opened at once.
    with contextlib.suppress(TimeoutError):
        await demo.close()


async def _advertise(store: Store, node_id: str, base: str) -> None:
    """Keep this node's console address in the database while it runs, for ``baccarat
    admin`` to act through it."""
    outage = Outage("writing the console's address", log)
    while True:
        try:
            await asyncio.to_thread(store.advertise, node_id, base)
        except Exception as exc:
            # A database outage is one warning, as for the other background tasks.
            outage.failed(exc)
        else:
            outage.passed()
        await asyncio.sleep(RENEW)


async def _close(
    runner: web.AppRunner, metrics: web.AppRunner | None, directory: RedisDirectory | None
) -> None:
    """Run the app's shutdown (sockets close), then free the rest."""
    await runner.cleanup()
    if metrics is not None:
        await metrics.cleanup()
    if directory is not None:
        await directory.close()


async def _void_unfinished(store: Store) -> int:
    """Void every round left in escrow (a lone server's start); how many were."""
    voided = await asyncio.to_thread(store.void_unfinished)
    if voided:
        log.warning("voided unfinished rounds", extra={"rounds": voided})
    return len(voided)


def _server(
    args: argparse.Namespace,
    config: RoomsConfig,
    store: Store,
    directory: RedisDirectory | None,
    shown: str,
) -> Server:
    """The node the command line asks for."""
    return Server(
        store,
        config,
        speed=args.speed,
        allow_register=args.allow_register,
        origins=tuple(args.origin),
        directory=directory,
        node_id=args.node_id or f"{socket.gethostname()}:{args.port}",
        # One node alone sends nobody elsewhere: its lobby lines name no node.
        public_url=args.public_url or (f"http://{shown}:{args.port}" if args.redis else ""),
        metrics_token=os.environ.get("BACCARAT_METRICS_TOKEN"),
        lease_ttl=args.lease_ttl,
        test_hooks=args.test_hooks,
        share=args.share,
        keys=args.loaded_keys,
        kept=kepthead.KeptHead(kepthead.path_beside(args.keys_path), args.db_url),
        witnesses=args.witness,
        witness_quorum=args.witness_quorum,
    )


async def _metrics_listener(server: Server, config: RoomsConfig) -> web.AppRunner | None:
    """Start the listener serving only ``/metrics``, if the configuration asks for one."""
    if not config.server.metrics_listen:
        return None
    runner = web.AppRunner(create_metrics_app(server), access_log=None)
    await runner.setup()
    host, port = split_address(config.server.metrics_listen)
    await web.TCPSite(runner, host, port).start()
    return runner

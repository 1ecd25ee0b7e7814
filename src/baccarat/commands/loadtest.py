"""``baccarat loadtest``: how many full tables one server core carries, measured."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from rich.table import Table as RichTable

from baccarat.errors import BaccaratError
from baccarat.loadtest import MODELS, P99_LIMIT_MS
from baccarat.loadtest.curve import write_curve

if TYPE_CHECKING:
    from baccarat.loadtest.options import Options
    from baccarat.loadtest.runner import Step

HELP = "run full tables of human-like clients against a server and measure its capacity"
ABOUT = """\
It needs the loadtest extra (pip install -e '.[loadtest]'); the figures are in
docs/benchmarks.md."""
DEFAULT_STEPS = "50,100,200,300,500,750,1000,1500,2000"


def _steps(text: str) -> list[int]:
    try:
        steps = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of numbers") from None
    if not steps or any(n < 1 for n in steps) or steps != sorted(set(steps)):
        raise argparse.ArgumentTypeError("steps are increasing whole numbers >= 1")
    return steps


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``loadtest``."""
    parser.description = (
        "Runs N full tables (a dealer, 7 bettors betting 2-4 chips a round, 1 spectator; "
        "controllers peel for 2-4 s a card, sending 15 moves/s with --model minimal and, like "
        "the browser, no more than the server's squeeze_rate with --model browser; --model "
        "auto-open opens every card at once) for each N "
        "of --tables, until the "
        f"p99 delivery latency passes {P99_LIMIT_MS:g} ms or a client sees an error. Without "
        "--url it starts its own server for each step (SQLite, default timers) pinned to one "
        "core."
    )
    parser.add_argument(
        "--tables",
        type=_steps,
        default=_steps(DEFAULT_STEPS),
        metavar="N,N,...",
        help=f"the steps: numbers of full tables (default {DEFAULT_STEPS})",
    )
    parser.add_argument(
        "--model", choices=MODELS, default="browser", help="client model (default browser)"
    )
    parser.add_argument(
        "--duration", type=float, default=30.0, help="seconds measured per step (default 30)"
    )
    parser.add_argument(
        "--warmup", type=float, default=5.0, help="seconds of play before measuring (default 5)"
    )
    parser.add_argument(
        "--ramp",
        type=float,
        default=30.0,
        help="seconds over which the tables sit down one after another (default 30, a round)",
    )
    parser.add_argument(
        "--raw",
        action="store_true",
        help="also run each step against bare aiohttp and picows servers sending the same frames",
    )
    parser.add_argument(
        "--compiled",
        action="store_true",
        help="also run each step against the server with its hot path compiled by mypyc "
        "(built first with: python -m baccarat.compiled build)",
    )
    parser.add_argument(
        "--squeeze-rate",
        type=float,
        default=10.0,
        help="peel moves a second the servers started here pass on (default 10, the "
        "server's default; with --url the server's own setting holds)",
    )
    parser.add_argument(
        "--pin-generator",
        action="store_true",
        help="keep the load generator on the core the server does not use (by default it "
        "may run on any core: pinned, it stalls the measurement on a two-core machine; "
        "docs/benchmarks.md)",
    )
    parser.add_argument("--url", help="a running server to load (default: start one per step)")
    parser.add_argument("--db", help="its database URL (needed with --url, for the accounts)")
    parser.add_argument("--p99-limit", type=float, default=P99_LIMIT_MS, help="ms (default 50)")
    parser.add_argument("--keep-going", action="store_true", help="run every step")
    parser.add_argument("--seed", type=int, help="random seed of the clients")
    parser.add_argument("--workdir", type=Path, help="keep the database and server logs here")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--out", type=Path, help="write the JSON report to this file")
    parser.add_argument("--curve", type=Path, help="write the capacity curve (SVG) here")


def run(args: argparse.Namespace) -> int:
    """Run the steps; print a table (or JSON); exit 0 when the first step passed."""
    try:
        from baccarat.loadtest.options import Options
    except ImportError as exc:
        # The load generator's client library is an extra: ``pip install -e '.[loadtest]'``.
        print(f"baccarat loadtest: {exc}; install the 'loadtest' extra", file=sys.stderr)
        return 2
    refusal = _refusal(args)
    if refusal is not None:
        print(f"baccarat loadtest: {refusal}", file=sys.stderr)
        return 2
    opts = Options(
        steps=args.tables,
        model=args.model,
        duration=args.duration,
        warmup=args.warmup,
        ramp=args.ramp,
        url=args.url,
        db=args.db,
        raw=args.raw,
        compiled=args.compiled,
        workdir=args.workdir,
        p99_limit_ms=args.p99_limit,
        seed=args.seed,
        keep_going=args.keep_going,
        squeeze_rate=args.squeeze_rate,
        pin_generator=args.pin_generator,
    )
    try:
        report = _run_with_progress(opts)
    except (OSError, RuntimeError, ValueError, BaccaratError) as exc:
        # A server or database that cannot be reached or read: one line, not a traceback.
        print(f"baccarat loadtest: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 1
    report["command"] = "baccarat loadtest " + shlex.join(sys.argv[2:])
    _write_report(args, report)
    steps = [s for s in report["steps"] if s["server"] == "project"]
    return 0 if steps and steps[0]["passed"] and report["audit"]["ok"] else 1


def _refusal(args: argparse.Namespace) -> str | None:
    """What is wrong with the options taken together, if anything."""
    if args.url:
        return _url_refusal(args)
    if not 1 <= args.squeeze_rate <= 30:
        return "--squeeze-rate must be from 1 to 30"
    if args.duration <= 0 or args.warmup < 0 or args.ramp < 0:
        return "--duration must be > 0, --warmup and --ramp >= 0"
    return _uncompiled() if args.compiled else None


def _url_refusal(args: argparse.Namespace) -> str | None:
    """What is wrong with loading a running server (``--url``), if anything."""
    if not args.db:
        return "--url needs --db (the server's database)"
    if urlsplit(args.url).scheme not in ("http", "https"):
        return f"--url {args.url!r} needs its scheme: http://HOST:PORT"
    if args.compiled:
        return "--compiled starts its own servers; it does not go with --url"
    return _unopened(args.db)


def _uncompiled() -> str | None:
    """Why the compiled build cannot be run, if it cannot."""
    from baccarat.compiled import stale

    why = stale()
    return None if why is None else f"--compiled: {why}"


def _unopened(db: str) -> str | None:
    """Why the running server's database cannot be opened, if it cannot (said before any
    client starts)."""
    from baccarat.store import open_store

    try:
        open_store(db, create=False).close()
    except BaccaratError as exc:
        return exc.message
    return None


def _run_with_progress(opts: Options) -> dict[str, Any]:
    """Run the load test, its current phase shown as a progress bar on stderr."""
    from baccarat.loadtest.options import Phase

    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description:<28}"),
        BarColumn(),
        TextColumn("{task.completed:>8.0f}/{task.total:<8.0f}"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        shown = _PhaseBar(bar)

        def announce(step: Step) -> None:
            console.print(_step_line(step))

        return asyncio.run(_main(opts, Phase(shown.start, shown.advance), announce))


class _PhaseBar:
    """One bar at a time: each phase of the run replaces the last one's."""

    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.task: TaskID | None = None

    def start(self, name: str, total: float) -> None:
        if self.task is not None:
            self.bar.remove_task(self.task)
        self.task = self.bar.add_task(name, total=total)

    def advance(self, n: float) -> None:
        if self.task is not None:
            self.bar.advance(self.task, n)


def _step_line(step: Step) -> str:
    """A finished step in one line, printed as the run goes."""
    f = step.figures
    return (
        f"{step.server:>7} {step.tables:>5} tables: p99 {f['delivery']['p99_ms']} ms, "
        f"{f['deliveries_per_s']} deliveries/s, CPU {f.get('server_cpu', '-')}, "
        f"errors {sum(f['errors'].values())} -> {'pass' if step.passed else 'FAIL'}"
    )


def _write_report(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """The report to ``--out``, the curve to ``--curve``, and JSON or a table to stdout."""
    text = json.dumps(report, indent=2)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.curve is not None:
        write_curve(report, args.curve)
    if args.json:
        print(text)
    else:
        _print_table(report)


async def _main(opts: Any, phase: Any, announce: Any) -> dict[str, Any]:
    from baccarat.loadtest.runner import run as run_load

    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return await run_load(opts, phase, announce)


def _stalls(stalls: dict[str, dict[str, int]] | None) -> str:
    # The loop's late wake-ups and the collector's pauses over 25 ms, as "loop/gc".
    if stalls is None:
        return "-"
    return f"{stalls['loop']['over_25ms']}/{stalls['gc']['over_25ms']}"


def _print_table(report: dict[str, Any]) -> None:
    out = RichTable(title=f"baccarat loadtest ({report['model']} clients)")
    for col in (
        "server",
        "tables",
        "p50 ms",
        "p99 ms",
        "max ms",
        "rtt p99 ms",
        "in 5 ms",
        "stalls >25 ms",
        "deliveries/s",
        "CPU",
        "us/delivery",
        "RSS MB",
        "errors",
        "load avg",
        "gen CPU",
        "",
    ):
        out.add_column(col, justify="right")
    for s in report["steps"]:
        d = s["delivery"]
        out.add_row(
            s["server"],
            str(s["tables"]),
            str(d["p50_ms"]),
            str(d["p99_ms"]),
            str(d["max_ms"]),
            str(s["round_trip"]["p99_ms"]),
            f"{s['frames_within_ms']['5']:.1%}",
            _stalls(s.get("stalls")),
            str(s["deliveries_per_s"]),
            str(s.get("server_cpu", "-")),
            str(s.get("cpu_us_per_delivery", "-")),
            str(s.get("rss_mb", {}).get("playing", "-")),
            str(sum(s["errors"].values())),
            str(s["load_average"]),
            str(s["generator_cpu"]),
            "pass" if s["passed"] else "FAIL",
        )
    console = Console()
    console.width = max(console.width, 150)
    console.print(out)
    console.print(f"audit: {'ok' if report['audit']['ok'] else report['audit']['problems']}")

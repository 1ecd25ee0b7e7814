"""A capacity run: steps of N full tables, each measured, until latency or errors fail.

With no ``url`` the run starts its own server for every step (``baccarat serve`` with exactly
N tables and default timers, SQLite, pinned to one core); the load generator may run on any
core (``pin_generator`` keeps it on another one). With ``raw`` the same clients then play,
at the same N, against the bare servers (``baccarat.loadtest.raw``): aiohttp, the project's
stack, and picows, the cheapest measured; each step states the project's cost per delivery
against both floors. With a ``url`` the clients join the first N tables of
a running server (its database named by ``db``), and each step adds tables to the last.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baccarat.compiled import SWITCH
from baccarat.loadtest.accounts import Crew, make_crews
from baccarat.loadtest.clients import Generator
from baccarat.loadtest.measure import CLIENTS_PER_TABLE, measure_step
from baccarat.loadtest.options import Options, Phase
from baccarat.loadtest.process import ServerProcess, cores, machine, pin
from baccarat.loadtest.stats import Tally
from baccarat.store import open_store


@dataclass
class Step:
    """The figures of one step against one server."""

    server: str
    tables: int
    model: str
    figures: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """p99 within the limit, something measured, and no error."""
        f = self.figures
        return bool(f.get("passed"))


def rooms_toml(table_ids: list[str], squeeze_rate: float = 10.0) -> str:
    """A rooms file with one room holding ``table_ids`` (default timers)."""
    ids = ", ".join(f'"{t}"' for t in table_ids)
    return (
        f"[server]\ncommand_rate = 50\nsqueeze_rate = {squeeze_rate:g}\n\n"
        '[[rooms]]\nid = "load"\nname = "Load"\nmin_level = 50\nchip_unit = 100\n'
        f"bettor_floor = 1000\ndealer_floor = 35000\ntables = [{ids}]\n"
    )


async def _step_against(
    url: str, crews: list[Crew], server: ServerProcess | None, opts: Options, phase: Phase
) -> dict[str, Any]:
    gen = Generator(url, opts.model, Tally(), seed=opts.seed)
    try:
        return await measure_step(gen, crews, server, opts, phase)
    finally:
        gen.close()
        await asyncio.sleep(0.2)


def _serve_argv(db: str, rooms: Path) -> list[str]:
    return [
        "-m",
        "baccarat",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--db",
        db,
        "--rooms",
        str(rooms),
        "--log-level",
        "warning",
        "--no-register",
    ]


def _raw_argv(sizes: dict[str, int], squeeze_rate: float, stack: str) -> list[str]:
    return [
        "-m",
        "baccarat.loadtest.raw",
        "--stack",
        stack,
        "--port",
        "0",
        "--sizes",
        json.dumps(sizes),
        "--squeeze-rate",
        f"{squeeze_rate:g}",
    ]


async def run(opts: Options, phase: Phase, announce: Callable[[Step], None]) -> dict[str, Any]:
    """Every step, in order; the report of the whole run."""
    affinity = os.sched_getaffinity(0)
    try:
        return await _run(opts, phase, announce)
    finally:
        os.sched_setaffinity(0, affinity)


async def _run(opts: Options, phase: Phase, announce: Callable[[Step], None]) -> dict[str, Any]:
    work = opts.workdir or Path(tempfile.mkdtemp(prefix="baccarat-load-"))
    work.mkdir(parents=True, exist_ok=True)
    report = _report_head(opts)
    server_core, load_core = _cores()
    if load_core is not None and opts.pin_generator:
        pin(0, load_core)
    if opts.url is not None:
        assert opts.db is not None
        await _against_running(opts.url, opts.db, opts, phase, announce, report)
        audits = [await _audit(opts.db, phase, void=False)]
    else:
        audits = await _own_servers(work, server_core, opts, phase, announce, report)
    report["audit"] = _audit_summary(audits)
    return report


def _report_head(opts: Options) -> dict[str, Any]:
    """The report's description of the run, its steps still to come."""
    return {
        "command": "",
        "machine": machine(),
        "model": opts.model,
        "duration": opts.duration,
        "p99_limit_ms": opts.p99_limit_ms,
        "squeeze_rate": opts.squeeze_rate,
        "generator_pinned": opts.pin_generator,
        "compiled": opts.compiled,
        "database": opts.db or "sqlite (a fresh file per step)",
        "steps": [],
    }


async def _own_servers(
    work: Path,
    core: int | None,
    opts: Options,
    phase: Phase,
    announce: Callable[[Step], None],
    report: dict[str, Any],
) -> list[dict[str, Any]]:
    """Each step against a server started for it (and the bare one); each step's audit."""
    audits: list[dict[str, Any]] = []
    for n in opts.steps:
        # A fresh database per step: the server keeps who sat where across restarts, and a
        # step's tables must start empty.
        builds = await _project_steps(n, work, core, opts, phase)
        crews = builds[-1][1]
        mine = [step for step, _, _ in builds]
        bare = (
            [await _raw_step(crews, mine, work, core, opts, phase, s) for s in RAW_STACKS]
            if opts.raw
            else []
        )
        for done in (*mine, *bare):
            report["steps"].append(_step_json(done))
            announce(done)
        for _, _, db in builds:
            audits.append(await _audit(db, phase, void=True))
        step = mine[0]
        if not step.passed and not opts.keep_going:
            break
    return audits


async def _project_steps(
    n: int, work: Path, core: int | None, opts: Options, phase: Phase
) -> list[tuple[Step, list[Crew], str]]:
    """Step ``n`` against the project's server, pure and (``compiled``) compiled, each with
    its own fresh database: each step, its crews and its database."""
    out: list[tuple[Step, list[Crew], str]] = []
    for build in BUILDS if opts.compiled else BUILDS[:1]:
        db = fresh_database(work, n, build)
        crews = _accounts(db, [f"load-{i}" for i in range(1, n + 1)], phase, create=True)
        out.append((await _project_step(crews, db, work, core, opts, phase, build), crews, db))
    return out


def _accounts(db: str, table_ids: list[str], phase: Phase, *, create: bool = False) -> list[Crew]:
    """The crews' accounts, made in ``db``: the step's own new database (``create``), or
    the running server's, which must exist."""
    phase.start("accounts", 1)
    with open_store(db, create=create) as store:
        crews = make_crews(store, table_ids)
    phase.advance(1)
    return crews


def _audit_summary(audits: list[dict[str, Any]]) -> dict[str, Any]:
    """Every step's audit as one: ok only if each was."""
    return {
        "ok": all(a["ok"] for a in audits),
        "rounds": sum(a["rounds"] for a in audits),
        "voided_at_the_end": sum(a["voided_at_the_end"] for a in audits),
        "problems": [p for a in audits for p in a["problems"]][:10],
    }


def fresh_database(work: Path, tables: int, build: str = "project") -> str:
    """The URL of step ``tables``'s database in ``work`` for one build of the server, with
    any earlier run's file removed (a ``--workdir`` used again would find last run's seats
    taken)."""
    path = work / (f"load-{tables}.db" if build == "project" else f"{build}-{tables}.db")
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return f"sqlite:///{path}"


async def _against_running(
    url: str,
    db: str,
    opts: Options,
    phase: Phase,
    announce: Callable[[Step], None],
    report: dict[str, Any],
) -> None:
    # A running server: keep the earlier tables playing and add the new ones at each step.
    crews = _accounts(db, _lobby_tables(url)[: max(opts.steps)], phase)
    gen = Generator(url, opts.model, Tally(), seed=opts.seed)
    try:
        for n in opts.steps:
            if n > len(crews):
                break
            fresh = crews[len(gen.clients) // CLIENTS_PER_TABLE : n]
            gen.tally = Tally()
            for client in gen.clients:
                client.tally = gen.tally
            step = Step("project", n, opts.model, await measure_step(gen, fresh, None, opts, phase))
            report["steps"].append(_step_json(step))
            announce(step)
            if not step.passed and not opts.keep_going:
                break
    finally:
        gen.close()
        await asyncio.sleep(0.2)


async def _audit(db: str, phase: Phase, *, void: bool) -> dict[str, Any]:
    phase.start("audit", 1)
    with open_store(db, create=False) as store:
        # A server stopped in the middle of a round returns its stakes at its next start; the
        # last one has no next start, so do what it would have done.
        voided = await asyncio.to_thread(store.void_unfinished) if void else []
        audit = await asyncio.to_thread(store.audit)
    phase.advance(1)
    return {
        "ok": audit.ok,
        "rounds": audit.rounds,
        "voided_at_the_end": len(voided),
        "problems": audit.problems[:10],
    }


def _cores() -> tuple[int | None, int | None]:
    mine = cores()
    if len(mine) < 2:
        return None, None
    return mine[0], mine[1]


async def _project_step(
    crews: list[Crew],
    db: str,
    work: Path,
    core: int | None,
    opts: Options,
    phase: Phase,
    build: str = "project",
) -> Step:
    rooms = work / f"rooms-{len(crews)}.toml"
    rooms.write_text(rooms_toml([c.table_id for c in crews], opts.squeeze_rate), encoding="utf-8")
    phase.start(f"start {build} server", 1)
    server = ServerProcess(
        _serve_argv(db, rooms),
        core=core,
        log=work / f"{'serve' if build == 'project' else build}-{len(crews)}.log",
        # Pure Python unless this is the compiled build's step, whatever the caller's setting.
        env={SWITCH: "1" if build == BUILDS[1] else "0"},
    )
    try:
        url = await asyncio.to_thread(server.wait_ready)
        phase.advance(1)
        figures = await _step_against(url, crews, server, opts, phase)
    finally:
        await asyncio.to_thread(server.stop)
    return Step(build, len(crews), opts.model, figures)


BUILDS = ("project", "project-mypyc")
"""The project's server as pure Python, and with its hot path compiled (``--compiled``)."""

RAW_STACKS = {"aiohttp": "raw", "picows": "raw-picows"}
"""Each bare server's stack, and its name in the report."""


async def _raw_step(
    crews: list[Crew],
    projects: list[Step],
    work: Path,
    core: int | None,
    opts: Options,
    phase: Phase,
    stack: str,
) -> Step:
    sizes = {
        kind: round(v["bytes"] / v["frames"])
        for kind, v in projects[0].figures.get("per_client_round", {}).items()
        if v["frames"]
    }
    name = RAW_STACKS[stack]
    phase.start(f"start {name} server", 1)
    server = ServerProcess(
        _raw_argv(sizes, opts.squeeze_rate, stack),
        core=core,
        log=work / f"{name}-{len(crews)}.log",
    )
    try:
        url = await asyncio.to_thread(server.wait_ready)
        phase.advance(1)
        figures = await _step_against(url, crews, server, opts, phase)
    finally:
        await asyncio.to_thread(server.stop)
    step = Step(name, len(crews), opts.model, figures)
    bare = figures.get("cpu_us_per_delivery")
    for project in projects:
        mine = project.figures.get("cpu_us_per_delivery")
        if mine and bare:
            ratio = round(mine / bare, 2)
            project.figures[f"vs_{name.replace('-', '_')}_cpu_per_delivery"] = ratio
    return step


def _lobby_tables(url: str) -> list[str]:
    with urllib.request.urlopen(url.rstrip("/") + "/api/lobby", timeout=30) as resp:
        lobby = json.load(resp)
    return [str(t["table_id"]) for t in lobby["tables"]]


def _step_json(step: Step) -> dict[str, Any]:
    return {"server": step.server, "tables": step.tables, "model": step.model, **step.figures}

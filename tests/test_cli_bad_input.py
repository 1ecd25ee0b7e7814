"""Every ``baccarat`` command answers bad input in one line with a non-zero exit, never a
traceback: a store that cannot be reached or is not a database, a database that does not
exist (no command but ``serve`` creates one), a busy port, a number out of range, a missing
file, malformed and deeply nested JSON, a URL without its scheme, a table that is not there.

The command lines run in batches, each batch in one process of its own
(``tests/cli_batch.py``), so that a hundred of them take seconds.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import COMMANDS
from baccarat.server import keyfile
from serving import Serve, start_serve

BATCH = Path(__file__).parent / "cli_batch.py"
DOWN_PG = "postgresql://postgres@127.0.0.1:1/baccarat"
"""A PostgreSQL URL where nothing listens (port 1: refused at once)."""
DEEP = "[" * 100_000 + "]" * 100_000
"""JSON nested far past what the parser's recursion reaches."""
PLATFORM = 'issuer = "pf"\naudience = "game"\nsecret = "0123456789abcdef0123"\n'
"""A platform file that reads (its keys' URL is never asked by the commands tried here)."""


@dataclass(frozen=True)
class Case:
    """One bad command line, the exit status it must end with, and a text its line holds."""

    argv: tuple[str, ...]
    status: int = 2
    says: str = ""
    stdin: str = ""


@dataclass(frozen=True)
class Paths:
    """The files the cases name."""

    tmp: Path

    @property
    def missing(self) -> str:
        return f"sqlite:///{self.tmp / 'no' / 'such.db'}"

    @property
    def directory(self) -> str:
        return f"sqlite:///{self.tmp}"

    @property
    def not_db(self) -> str:
        return f"sqlite:///{self.tmp / 'notes.db'}"

    @property
    def default_db(self) -> Path:
        return self.tmp / "xdg" / "baccarat" / "baccarat.db"


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> Paths:
    tmp = tmp_path_factory.mktemp("bad-input")
    (tmp / "notes.db").write_text("not a database, a shopping list\n" * 50)
    (tmp / "pf.toml").write_text(PLATFORM + 'jwks_url = "http://127.0.0.1:1/jwks"\n')
    (tmp / "report.json").write_text('{"transfers": []}')
    (tmp / "deep.json").write_text(DEEP)
    keyfile.save(tmp / "k.keys", keyfile.new_keys())
    return Paths(tmp)


def _env(paths: Paths) -> dict[str, str]:
    """No default database anywhere: the data directory is an empty one of the test's."""
    env = {k: v for k, v in os.environ.items() if k != "BACCARAT_DB"}
    return env | {"XDG_DATA_HOME": str(paths.tmp / "xdg"), "COLUMNS": "100"}


def _run_batch(cases: list[Case], paths: Paths) -> list[dict[str, Any]]:
    spec = paths.tmp / f"batch-{os.getpid()}-{id(cases)}.json"
    spec.write_text(
        json.dumps([{"argv": list(c.argv), "stdin": c.stdin} for c in cases]), encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, str(BATCH), str(spec)],
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(paths),
        cwd=paths.tmp,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def _check(cases: list[Case], results: list[dict[str, Any]]) -> None:
    """Each case ended as it must: no traceback, its status, its refusal in one line."""
    wrong = []
    for case, got in zip(cases, results, strict=True):
        said = [x for x in got["err"].splitlines() if x.strip()] or [
            x for x in got["out"].splitlines() if x.strip()
        ]
        problems = []
        if got["traceback"] or "Traceback" in got["out"] + got["err"]:
            problems.append(f"traceback:\n{got['traceback'] or got['err']}")
        if got["status"] != case.status:
            problems.append(f"exit {got['status']}, not {case.status}")
        if len(said) != 1:
            problems.append(f"{len(said)} lines, not one: {said[:8]}")
        elif case.says not in said[0]:
            problems.append(f"the line does not say {case.says!r}: {said[0]}")
        if problems:
            wrong.append(f"baccarat {' '.join(case.argv)[:160]}: " + "; ".join(problems))
    assert not wrong, "\n".join(wrong)


def _store_cases(p: Paths) -> list[Case]:
    """The commands that read the database, against every kind of database that is not one."""
    report = ("--platform", str(p.tmp / "pf.toml"), "--report", str(p.tmp / "report.json"))
    readers: list[tuple[str, ...]] = [
        ("admin", "users"),
        ("admin", "log"),
        ("admin", "grant", "mei", "100", "--reason", "welcome"),
        ("admin", "create-user", "mei", "--password-stdin"),
        ("audit",),
        ("audit", "--json"),
        ("history", "mei"),
        ("reconcile", *report),
    ]
    bad = [
        (DOWN_PG, "cannot be opened"),
        (p.directory, "is a directory"),
        (p.not_db, "not a baccarat database"),
        (p.missing, str(p.tmp / "no" / "such.db")),
    ]
    cases = [Case((*argv, "--db", db), says=says) for argv in readers for db, says in bad]
    keys = ("keys", "--keys", str(p.tmp / "k.keys"))
    cases += [Case((*keys, "--db", db, "show"), says=says) for db, says in bad]
    # Without --db each reads the default file, which does not exist: named, not made.
    cases += [Case(argv, says=str(p.default_db)) for argv in [*readers, (*keys, "show")]]
    cases += [
        Case(("admin", "users", "--db", "mysql://x/y"), says="not a database URL"),
        Case(("reconcile", "--platform", str(p.tmp / "none.toml")), says="none.toml"),
        Case(
            ("reconcile", "--platform", str(p.tmp / "pf.toml"), "--report", "no.json"),
            says="no.json",
        ),
        Case(
            (
                "reconcile",
                "--platform",
                str(p.tmp / "pf.toml"),
                "--report",
                str(p.tmp / "deep.json"),
            ),
            says="too deeply",
        ),
        Case(("keys", "--keys", str(p.tmp / "no.keys"), "show"), says="no.keys"),
        Case(("admin", "grant", "mei", "lots", "--reason", "x"), says="not a whole number"),
        Case(("history", "mei", "--limit", "x")),
        Case(("loadtest", "--url", "127.0.0.1:8000", "--db", p.missing), says="scheme"),
        Case(("loadtest", "--url", "http://127.0.0.1:1", "--db", DOWN_PG), says="cannot be"),
        Case(("loadtest", "--url", "http://127.0.0.1:1", "--db", p.missing), says="no/such.db"),
        Case(("loadtest", "--tables", "x")),
        Case(("loadtest", "--squeeze-rate", "0"), says="squeeze-rate"),
    ]
    return cases


def _engine_cases(p: Paths) -> list[Case]:
    """The commands of the game's numbers and of fairness, fed what is not their input."""
    stdin_bad = [("not json", "not valid JSON"), (DEEP, "too deeply"), ("", "not valid JSON")]
    cases = [
        Case((cmd, *flags), says=says, stdin=text)
        for cmd, flags in (("settle", ()), ("roads", ()), ("roads", ("--json",)))
        for text, says in stdin_bad
    ]
    cases += [
        Case(("settle",), stdin="\xff\xfe{", says="UTF-8"),
        Case(("roads",), stdin='[{"winner": "nobody"}]'),
        Case(("roads", "--seed", "xyz"), says="hexadecimal"),
        Case(("odds", "--decks", "0"), says="1 or more"),
        Case(("odds", "--decks", "x")),
        Case(("simulate", "--rounds", "0"), says="1 or more"),
        Case(("simulate", "--rounds", "10", "--seed", "x")),
        Case(("verify-shoe", "--seed", "zz"), says="hexadecimal"),
        Case(("verify-shoe", "--seed", "ab" * 32, "--commitment", "x"), says="64 hex"),
        Case(("verify-log", "--url", "127.0.0.1:8000"), says="http://"),
        Case(("verify-log", "--url", "http://127.0.0.1:1"), says="cannot be reached"),
        Case(("verify-log", "--db", p.missing, "--public-key", "AA=="), says="no/such.db"),
        Case(("verify-log", "--db", p.directory, "--public-key", "AA=="), says="directory"),
        Case(("verify-log", "--db", p.not_db, "--public-key", "AA=="), says="cannot be read"),
        Case(("verify-log", "--db", DOWN_PG, "--public-key", "AA=="), says="cannot be read"),
    ]
    witness = ("witness", "--name", "example.org/w1", "--key", str(p.tmp / "w.key"))
    cases += [
        Case(("witness", "--name", "w1"), says="required"),
        Case((*witness, "--db", str(p.tmp / "w.db"), "--port", "70000"), says="0-65535"),
        Case((*witness, "--db", str(p.tmp / "w.db"), "--log", "not a key")),
        Case((*witness, "--db", str(p.tmp), "--evidence")),
    ]
    return cases


def _network_cases(p: Paths, server: Serve, busy: int) -> list[Case]:
    """Serving and the clients of a server: ports, hosts, stores, files, tables."""
    own = ("--db", f"sqlite:///{p.tmp / 'served.db'}", "--log-level", "warning")
    cases = [
        Case(("serve", "--port", "-1"), says="0-65535"),
        Case(("serve", "--port", "70000"), says="0-65535"),
        Case(("serve", "--port", "http")),
        Case(("serve", "--host", "no-such-host.invalid", "--port", "0", *own), says="--host"),
        Case(("serve", "--port", "0", "--db", DOWN_PG), says="cannot be opened"),
        Case(("serve", "--port", "0", "--db", p.directory), says="directory"),
        Case(("serve", "--port", "0", "--db", p.not_db), says="not a baccarat database"),
        Case(("serve", "--port", "0", "--rooms", "no-rooms.toml", *own), says="no-rooms.toml"),
        Case(("serve", "--port", "0", "--platform", "no-pf.toml", *own), says="no-pf.toml"),
        Case(("serve", "--port", str(busy), *own), says="another program listens there"),
        Case(("bots", "--url", server.url, "--table", "nosuch"), says="no table 'nosuch'"),
        Case(("bots", "--url", "127.0.0.1:8000"), says="http://"),
        Case(("bots", "--url", "http://127.0.0.1:1", "--table", "t1"), says="cannot be read"),
        Case(("bots", "--url", server.url, "--accounts", "no-accounts.txt"), 1, "no-accounts"),
        Case(("bots", "--count", "0"), says="at least 1"),
        Case(("bots", "--count", "x")),
    ]
    return cases


@pytest.fixture(scope="module")
def server(paths: Paths) -> Iterator[Serve]:
    with start_serve("--db", f"sqlite:///{paths.tmp / 'lobby.db'}", env=_env(paths)) as served:
        yield served


def test_every_command_is_tried() -> None:
    p = Paths(Path("/nonexistent"))
    tried = {c.argv[0] for c in _store_cases(p) + _engine_cases(p)}
    tried |= {c.argv[0] for c in _network_cases(p, Serve(None, "", p.tmp), 0)}  # type: ignore[arg-type]
    assert tried == {name.replace("_", "-") for name in COMMANDS}


def test_the_store_commands_refuse_what_is_not_their_database_in_one_line(paths: Paths) -> None:
    cases = _store_cases(paths)
    _check(cases, _run_batch(cases, paths))
    # No command made a database, a directory or a file for the paths it was given.
    assert not (paths.tmp / "no").exists() and not paths.default_db.parent.exists()


def test_the_number_and_fairness_commands_refuse_bad_input_in_one_line(paths: Paths) -> None:
    cases = _engine_cases(paths)
    _check(cases, _run_batch(cases, paths))
    assert not (paths.tmp / "no").exists()


def test_serve_and_the_clients_refuse_bad_input_in_one_line(paths: Paths, server: Serve) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        cases = _network_cases(paths, server, holder.getsockname()[1])
        _check(cases, _run_batch(cases, paths))

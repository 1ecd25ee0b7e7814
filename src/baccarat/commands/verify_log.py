"""``baccarat verify-log``: check the commitment log of a running system or of a database.

Reads the newest signed head, every entry and the public keys (``--url``: over HTTP, the keys
from ``/.well-known/baccarat-log-key``; ``--db``: from the database, the keys from the keys
file or ``--public-key``), then checks them (``baccarat.logcheck``). ``--head FILE`` checks a
head kept from an earlier run (and its consistency proof from the server); ``--save-head
FILE`` keeps today's for the next run. The cosigned checkpoint (``--url``: the served one;
``--db``: the one kept beside the keys file; ``--checkpoint FILE``: one kept or got elsewhere) is
checked against the witnesses' keys (``--witness VKEY``, pinned by the reader; else those the
key document lists, which only the operator vouches for) and ``--witness-quorum`` (``baccarat.
witnesscheck``). Exit status 0: all good; 1: a problem; 2: bad input or the log could not be read.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy.exc

from baccarat import merkle
from baccarat.commands import options, verify_witnesses
from baccarat.errors import BaccaratError, InvalidInput
from baccarat.logbook import Entry, SignedHead
from baccarat.logcheck import LoggedShoe, Report, check_age, check_indexes, check_log

HELP = "check the commitment log: every link, the head's signature, every revealed seed"
ABOUT = """\
--url reads a running server's log and its public keys (/.well-known/baccarat-log-key);
--db reads a database (writing nothing), with the keys from --keys or --public-key.
--head FILE checks a head kept from an earlier run; --save-head FILE keeps today's for the
next one (docs/fairness.md). The cosigned checkpoint is checked against the witnesses' keys:
pin them with --witness VKEY (as each witness prints it); without, those the operator's key
document lists are used, with a warning, since an operator can list witnesses it runs itself.
Fewer than --witness-quorum (default: the published policy's) vouching is a problem.
Exit status 0: all good; 1: a problem; 2: bad input or the log could not be read."""

_PAGE = 1000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's options."""
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a running server's address, e.g. http://127.0.0.1:8000")
    where.add_argument("--db", help="a database URL (reads it; writes nothing)")
    parser.add_argument("--keys", help="with --db: the keys file whose log keys are published")
    parser.add_argument("--public-key", help="the log's Ed25519 public key in base64 (pinned)")
    parser.add_argument("--head", help="a head kept from before (JSON): the log must extend it")
    parser.add_argument("--save-head", help="write the newest head, checked, to this file")
    parser.add_argument(
        "--witness", action="append", default=[], metavar="VKEY",
        help="a witness's verifier key, as `baccarat witness` prints it, pinned: whose "
        "cosignatures count (repeatable; default: the witnesses the key document lists)",
    )  # fmt: skip
    parser.add_argument(
        "--witness-quorum", type=int, metavar="K",
        help="how many witnesses must vouch (default: the published policy's, else all)",
    )  # fmt: skip
    parser.add_argument(
        "--checkpoint", metavar="FILE",
        help="a cosigned checkpoint kept from before or got elsewhere: the log must extend it",
    )  # fmt: skip
    parser.add_argument("--save-checkpoint", metavar="FILE", help="write the checkpoint checked")
    parser.add_argument("--json", action="store_true", help="print JSON")


class _Http:
    """The log of a running server."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self._document: Any = None

    def get(self, path: str, **query: object) -> Any:
        return json.loads(self.read(path, query) or "null")

    def read(self, path: str, query: Mapping[str, object], missing: bool = False) -> str | None:
        """The answer's text; None for a 404 when it may be ``missing``."""
        qs = f"?{urllib.parse.urlencode(query)}" if query else ""
        try:
            with urllib.request.urlopen(self.url + path + qs, timeout=30) as answer:
                return str(answer.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            if missing and exc.code == 404:
                return None
            body = exc.read().decode(errors="replace")[:300]
            raise InvalidInput("unreadable_log", f"{path} answered {exc.code}: {body}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise InvalidInput("unreadable_log", f"{self.url} cannot be reached: {exc}") from None

    def head(self) -> SignedHead:
        return SignedHead.from_json(self.get("/api/log/head"))

    def document(self) -> Any:
        """The key document (``/.well-known/baccarat-log-key``), read once."""
        if self._document is None:
            self._document = self.get("/.well-known/baccarat-log-key")
        return self._document

    def keys(self) -> dict[str, bytes]:
        found = self.document()
        return {k["key_id"]: base64.b64decode(k["public_key"]) for k in found["keys"]}

    def checkpoint(self) -> str | None:
        """The served cosigned checkpoint (None: the server has none)."""
        return self.read("/.well-known/baccarat-checkpoint", {}, missing=True)

    def entries(self, size: int) -> list[LoggedShoe]:
        out: list[LoggedShoe] = []
        for start in range(0, size, _PAGE):
            page = self.get("/api/log/entries", start=start, end=min(size, start + _PAGE))
            out.extend(_logged(e) for e in page["entries"])
        return out

    def consistency(self, first: int, second: int) -> list[bytes]:
        found = self.get("/api/log/consistency", first=first, second=second)
        return [bytes.fromhex(h) for h in found["proof"]]


class _Database:
    """The log as a database holds it (read only: no migration, no write)."""

    def __init__(self, url: str) -> None:
        import sqlalchemy as sa

        from baccarat.store.engine import make_engine

        self.url = url
        self.engine: sa.Engine = make_engine(url)

    def checkpoint(self, keys_file: str | None) -> str | None:
        """The cosigned checkpoint the nodes kept beside the keys file for this database."""
        if keys_file is None:
            return None
        from baccarat.server.kepthead import KeptHead, path_beside
        from baccarat.store import shoelog
        from baccarat.store.engine import reading

        kept = KeptHead(path_beside(Path(keys_file)), self.url)
        with reading(self.engine) as conn:
            first = shoelog.leaf_hashes(conn, 1)
        if first:
            # (kept under the log's first entry too: a copy restored under another URL)
            kept.identify(first[0].hex())
        return None if kept.witnessed is None else kept.witnessed.note

    def head(self) -> SignedHead:
        from baccarat.store import shoelog
        from baccarat.store.engine import reading

        with reading(self.engine) as conn:
            head = shoelog.latest_head(conn)
        if head is None:
            raise InvalidInput("unreadable_log", "The database's log has no signed head.")
        return head

    def indexes(self) -> dict[str, int]:
        """Each logged shoe's log index, as the shoes table names it."""
        import sqlalchemy as sa

        from baccarat.store import schema as s
        from baccarat.store.engine import reading

        c = s.shoes.c
        with reading(self.engine) as conn:
            rows = conn.execute(sa.select(c.id, c.log_index).where(c.log_index.is_not(None)))
            return {str(r.id): int(r.log_index) for r in rows}

    def entries(self, size: int) -> list[LoggedShoe]:
        from baccarat.store import shoelog
        from baccarat.store.engine import reading

        out: list[LoggedShoe] = []
        with reading(self.engine, snapshot=True) as conn:
            for start in range(0, size, _PAGE):
                for e in shoelog.entries(conn, start, min(size, start + _PAGE)):
                    out.append(LoggedShoe(e.entry, e.leaf_hash, e.seed))
        return out


def _logged(data: Mapping[str, Any]) -> LoggedShoe:
    try:
        entry = Entry(
            int(data["index"]),
            str(data["shoe_id"]),
            str(data["table_id"]),
            str(data["commitment"]),
            int(data["logged_at"]),
        )
        seed = data.get("seed")
        return LoggedShoe(entry, str(data["leaf_hash"]), None if seed is None else str(seed))
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidInput("unreadable_log", f"An entry cannot be read: {exc}.") from None


def _public_keys(args: argparse.Namespace, source: _Http | _Database) -> dict[str, bytes]:
    from baccarat.logbook import key_id

    if args.public_key:
        try:
            raw = base64.b64decode(args.public_key, validate=True)
        except ValueError:
            raise InvalidInput("bad_key", "--public-key is base64 of 32 bytes.") from None
        return {key_id(raw): raw}
    if isinstance(source, _Http):
        return source.keys()
    if not args.keys:
        raise InvalidInput("bad_key", "With --db, name the keys: --keys FILE or --public-key.")
    from baccarat.server.keyfile import load

    return load(Path(args.keys)).log_public_keys


def _kept(path: str | None) -> SignedHead | None:
    if path is None:
        return None
    try:
        return SignedHead.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise InvalidInput("bad_head", f"{path} cannot be read as a head: {exc}") from None


def _check_proof(source: _Http | _Database, kept: SignedHead, head: SignedHead, r: Report) -> None:
    """The server's own consistency proof must take the kept head to today's."""
    if not isinstance(source, _Http) or not 0 < kept.tree_size < head.tree_size:
        return
    proof = source.consistency(kept.tree_size, head.tree_size)
    if not merkle.verify_consistency(
        kept.tree_size,
        head.tree_size,
        bytes.fromhex(kept.root_hash),
        bytes.fromhex(head.root_hash),
        proof,
    ):
        r.problems.append("The server's consistency proof from the kept head does not hold.")


@dataclass(slots=True)
class _Checked:
    """What the check read and found."""

    report: Report
    head: SignedHead
    kept: SignedHead | None
    witnessing: verify_witnesses.Witnessing


def _check(args: argparse.Namespace, source: _Http | _Database) -> _Checked:
    """Read the log and check it: the report, the head checked, the kept head, the witnesses."""
    keys = _public_keys(args, source)
    kept = _kept(args.head)
    http = isinstance(source, _Http)
    document = source.document() if isinstance(source, _Http) else None
    witnessing = verify_witnesses.Witnessing(verify_witnesses.policy(args, document))
    # Read before the head: a shoe logged after it names an index the head does not hold, and
    # a checkpoint cosigned after it a size the head does not reach.
    indexes = source.indexes() if isinstance(source, _Database) else None
    served = source.checkpoint() if isinstance(source, _Http) else source.checkpoint(args.keys)
    head = source.head()
    logged = source.entries(head.tree_size)
    report = check_log(head, logged, keys, kept)
    if indexes is not None:
        check_indexes(logged, indexes, report)
    check_age(head, time.time_ns() // 1_000_000, report)
    if kept is not None:
        _check_proof(source, kept, head, report)
    what = "the served checkpoint" if http else "the checkpoint kept beside the keys file"
    verify_witnesses.check(args, (what, served), logged, list(keys.values()), witnessing, report)
    return _Checked(report, head, kept, witnessing)


def run(args: argparse.Namespace) -> int:
    """Check the log; print what held and every problem."""
    source: _Http | _Database | None = None
    try:
        if args.url:
            options.verify_http_url("--url", args.url)
        source = _Http(args.url) if args.url else _Database(args.db)
        checked = _check(args, source)
    except BaccaratError as exc:
        _say_error(exc, as_json=args.json)
        return 2
    except sqlalchemy.exc.SQLAlchemyError as exc:
        # A database that is not a baccarat database, or not reachable.
        why = str(exc).splitlines()[0]
        unreadable = InvalidInput("unreadable_log", f"The database's log cannot be read: {why}.")
        _say_error(unreadable, as_json=args.json)
        return 2
    finally:
        if isinstance(source, _Database):
            source.engine.dispose()
    if checked.report.ok:
        _save(args, checked)
    _say(checked, as_json=args.json)
    return 0 if checked.report.ok else 1


def _save(args: argparse.Namespace, checked: _Checked) -> None:
    """Keep the head (``--save-head``) and the checkpoint (``--save-checkpoint``) checked."""
    if args.save_head:
        Path(args.save_head).write_text(json.dumps(checked.head.json()) + "\n", encoding="utf-8")
    served = checked.witnessing.served
    if args.save_checkpoint and served is not None:
        Path(args.save_checkpoint).write_text(served, encoding="utf-8")


def _say_error(exc: BaccaratError, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"error": exc.to_dict()}))
    else:
        print(f"error: {exc.message}", file=sys.stderr)


def _say(checked: _Checked, *, as_json: bool) -> None:
    report, head, kept = checked.report, checked.head, checked.kept
    if as_json:
        out = {
            "ok": report.ok,
            "head": head.json(),
            "entries": report.entries,
            "seeds_checked": report.seeds,
            "shoes_checked": report.shoes,
            "witnesses": checked.witnessing.json(),
            "problems": report.problems,
            "warnings": report.warnings,
        }
        print(json.dumps(out))
        return
    print(f"head:    {head.tree_size} entries, root {head.root_hash}, key {head.key_id}")
    print(f"entries: {report.entries} read, each leaf rebuilt from its fields")
    print(f"seeds:   {report.seeds} revealed seeds checked against their logged commitments")
    if report.shoes:
        print(f"shoes:   {report.shoes} logged shoes' log_index checked against the entries")
    if kept is not None:
        print(f"kept:    the head of {kept.tree_size} entries checked against today's log")
    for line in checked.witnessing.lines():
        print(line)
    for warning in report.warnings:
        print(f"WARNING: {warning}", file=sys.stderr)
    for problem in report.problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    if report.ok:
        print("ok: the log is whole, signed, and every revealed seed matches its commitment")

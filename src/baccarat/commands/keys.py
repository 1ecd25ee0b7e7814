"""``baccarat keys``: the keys file that seals shoe seeds and signs the commitment log.

``show`` lists the keys by id (never the secrets) and, with the database, how many shoes
still being dealt each sealing key holds; ``rotate seal`` puts a new sealing key first (new
shoes are sealed with it, the old ones still open); ``rotate log`` puts a new signing key
first (the old public key stays published, so old heads still check); ``retire ID`` drops a
sealing key once no shoe still being dealt needs it; ``lost ID`` ends unrevealed the shoes in
play sealed with a key lost for good, which no keys file opens any more (a node refuses to
start while a shoe in play does not open with its file). Nodes read the file when they start:
after a change, copy it to every node and restart them one at a time.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

from baccarat.errors import BaccaratError, InvalidInput
from baccarat.seal import sealed_key_id
from baccarat.server import keyfile
from baccarat.server.tables import keycheck
from baccarat.store import open_store
from baccarat.store.shoelog import SHOE_KEY_MISSING
from baccarat.store.url import default_db_url

HELP = "show, rotate and retire the keys that seal shoe seeds and sign the commitment log"
ABOUT = """\
--keys and --db come before the action (baccarat keys --db URL show). rotate seal puts a
new sealing key first (new shoes are sealed with it, the old ones still open); rotate log
a new signing key (the old public key stays published); retire ID drops a sealing key once
no shoe in play needs it; lost ID ends unrevealed the shoes in play sealed with a key lost
for good (docs/fairness.md, "Keys"). Nodes read the file when they start: after a change,
copy it to every node and restart them one at a time."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's options."""
    parser.add_argument("--keys", help="the keys file (default: as baccarat serve finds it)")
    parser.add_argument("--db", help="the database (default: the embedded SQLite file)")
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("show", help="the keys by id, and the shoes each sealing key holds")
    rotate = sub.add_parser("rotate", help="put a new key first")
    rotate.add_argument(
        "kind", choices=("seal", "log"), help="seal: shoe seeds; log: the commitment log's heads"
    )
    retire = sub.add_parser("retire", help="drop a sealing key no shoe in play needs")
    retire.add_argument("key_id", metavar="ID", help="the sealing key's id, as show lists it")
    lost = sub.add_parser(
        "lost", help="end unrevealed the shoes in play sealed with a key lost for good"
    )
    lost.add_argument("key_id", metavar="ID", help="the lost sealing key's id")


def _in_play(db: str) -> Counter[str]:
    """How many shoes still being dealt each sealing key holds."""
    store = open_store(db, create=False)
    try:
        return Counter(sealed_key_id(s.sealed_seed) for s in store.unended_shoes() if s.sealed_seed)
    finally:
        store.close()


def run(args: argparse.Namespace) -> int:
    """Carry out the action; 2 on a refusal."""
    db = args.db or default_db_url()
    path = Path(args.keys) if args.keys else keyfile.default_path(db)
    try:
        keys = keyfile.load(path)
        if args.action == "show":
            _show(path, keys, _in_play(db))
        elif args.action == "rotate":
            keys = _rotated(keys, args.kind)
            keyfile.save(path, keys)
            print(f"{path}: a new {args.kind} key is first; restart every node to use it")
        elif args.action == "retire":
            keyfile.save(path, _retired(keys, args.key_id, _in_play(db)))
            print(f"{path}: sealing key {args.key_id} retired")
        else:
            ended = _lost(db, keys, args.key_id)
            shoes = "1 shoe" if ended == 1 else f"{ended} shoes"
            print(f"{shoes} sealed with {args.key_id} ended unrevealed ({SHOE_KEY_MISSING})")
    except FileNotFoundError as exc:
        print(
            f"baccarat keys: there is no file {exc.filename}: name the keys file with --keys "
            "FILE (baccarat serve makes it at its first start)",
            file=sys.stderr,
        )
        return 2
    except (BaccaratError, OSError) as exc:
        print(f"baccarat keys: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 2
    return 0


def _show(path: Path, keys: keyfile.Keys, in_play: Counter[str]) -> None:
    print(f"keys file: {path}")
    for n, key in enumerate(keys.seal):
        role = "seals and opens" if n == 0 else "opens"
        print(
            f"seal {key.key_id}: {role}; fingerprint {key.fingerprint}; "
            f"shoes in play sealed with it: {in_play[key.key_id]}"
        )
    for n, (kid, _raw) in enumerate(keys.log_public_keys.items()):
        print(f"log  {kid}: {'signs new heads' if n == 0 else 'published for old heads'}")


def _rotated(keys: keyfile.Keys, kind: str) -> keyfile.Keys:
    if kind == "seal":
        return replace(keys, seal=(keyfile.new_seal_key(), *keys.seal))
    return replace(keys, log=(keyfile.new_keys().log[0], *keys.log))


def _retired(keys: keyfile.Keys, key_id: str, in_play: Counter[str]) -> keyfile.Keys:
    ids = [k.key_id for k in keys.seal]
    if key_id not in ids:
        raise InvalidInput("unknown_key", f"There is no sealing key {key_id!r} ({', '.join(ids)}).")
    if key_id == ids[0]:
        raise InvalidInput(
            "key_in_use", "The first key seals new shoes: rotate before retiring it."
        )
    if in_play[key_id]:
        raise InvalidInput(
            "key_in_use",
            f"{in_play[key_id]} shoes in play are sealed with {key_id}: retire it once they end.",
        )
    return replace(keys, seal=tuple(k for k in keys.seal if k.key_id != key_id))


def _lost(db: str, keys: keyfile.Keys, key_id: str) -> int:
    """End unrevealed the shoes in play sealed with ``key_id`` that ``keys`` do not open (its
    key is not held, or another is under its id); how many."""
    store = open_store(db, create=False)
    try:
        unopened = keycheck.unopened(keys.sealer, store.unended_shoes())
        lost = [u for u in unopened if u.configuration and u.key_id == key_id]
        if not lost:
            raise InvalidInput(
                "key_not_lost",
                f"No shoe in play sealed with {key_id!r} fails to open with this keys file.",
            )
        for u in lost:
            store.end_shoe_unrevealed(u.shoe_id, SHOE_KEY_MISSING)
        return len(lost)
    finally:
        store.close()

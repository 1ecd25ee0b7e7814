"""The long fuzz: hostile frames and requests against a real ``baccarat serve``.

    python bench/fuzz_protocol.py --frames 1000000 [--sockets 4] [--batch 200] [--seed 1]

The same checks as ``tests/server/test_server_fuzz.py``, for as long as asked: every frame
gets exactly one answer (an ack, or an error with a code), every socket keeps answering, no
HTTP request gets a 5xx, the server logs nothing at ERROR (its JSON log lines are read
back), no balance moves and ``baccarat audit`` is clean. Frames come from the corpus of
``tests/server/hostile.py``, random mutations of it, and random commands with hostile
values; batches are sent back to back and counted against the answers before a ping. A
squeeze move is sent on its own (its answer comes when it reaches the table). One socket's
user may sit (even as the dealer), the others cannot (no coins): a round, which needs a
dealer and a bettor, can never start, so no coin may move. Prints a JSON summary; exit
status 1 if any check failed.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import aiohttp
from yarl import URL

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "server"))

from hostile import (
    BAD_PATHS,
    BAD_QUERIES,
    BAD_RAW_REQUESTS,
    CORPUS,
    HOSTILE_BITS,
    Probe,
    mutate,
    nested,
    oversized_frame_close_code,
    raw_status,
)
from served import served

from baccarat.bets import AREAS, CHIPS
from baccarat.errors import InvalidInput
from baccarat.protocol.ids import UserId
from baccarat.protocol.parse import parse
from baccarat.protocol.registry import BY_TYPE
from baccarat.rules import HANDS
from baccarat.store import open_store
from baccarat.table.squeeze import CORNERS

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[1] / "docs/protocol/client.schema.json").read_text("utf-8")
)
REQUIRED: dict[str, list[str]] = {
    rule["if"]["properties"]["type"]["const"]: rule["then"].get("required", [])
    for rule in SCHEMA["allOf"]
    if "const" in rule["if"]["properties"]["type"]
}
"""Each command's required fields, as the schema the parser follows has them."""
FIELDS = ["table_id", "seat", "area", "chip", "hand", "progress", "corner", "user_id", "x", ""]
PLAUSIBLE: list[Any] = ["t1", "t2", "player", "banker", "tie", "tl", "br", "l", 0, 1, 5, 0.5]
SEEDS = [c for c in CORPUS if isinstance(c, str)] + [
    json.dumps({"type": "sit", "id": 1, "table_id": "t1", "seat": 2}),
    json.dumps({"type": "bet", "id": 2, "area": "player", "chip": 5}),
    json.dumps({"type": "stand", "id": 3}),
    json.dumps({"type": "table.watch", "id": 4, "table_id": "t1"}),
]


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if roll < 0.35:
        return rng.choice(PLAUSIBLE)
    if roll < 0.5:
        return rng.choice([0, -1, 1, 7, 8, 2**31, 2**53, 2**64, -(2**63), 10**30, 5.0, 1.5, -0.0])
    if roll < 0.6:
        return rng.choice([None, True, False, "", "x" * rng.randint(1, 80)])
    if roll < 0.75:
        # Lone and paired surrogates, controls, and text from all over Unicode.
        return "".join(
            chr(
                rng.choice(
                    [0xD800, 0xDFFF, 0x0, 0x202E, 0xFEFF, 0x1F600, rng.randrange(0x20, 0x30000)]
                )
            )
            for _ in range(rng.randint(1, 6))
        )
    if depth < 3 and roll < 0.87:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if depth < 3:
        return {rng.choice(FIELDS): _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return rng.random()


def _valid_field(rng: random.Random, name: str) -> Any:
    choices: dict[str, list[Any]] = {
        "table_id": ["t1", "t2", "t3"],
        "seat": list(range(8)),
        "area": list(AREAS),
        "chip": list(CHIPS),
        "hand": list(HANDS),
        "corner": list(CORNERS),
        "text": ["好", "hi"],
        "emote": ["clap"],
        "auto_open": [True, False],
    }
    return rng.random() if name == "progress" else rng.choice(choices[name])


def frame(rng: random.Random) -> str | bytes:
    """One hostile frame (or, one time in five, a well-formed command)."""
    roll = rng.random()
    if roll < 0.2:
        kind = rng.choice(sorted(BY_TYPE))
        fields = {name: _valid_field(rng, name) for name in REQUIRED.get(kind, [])}
        return json.dumps({"type": kind, "id": rng.randint(0, 999), **fields})
    roll = rng.random()
    if roll < 0.2:
        return rng.choice(CORPUS)
    if roll < 0.45:
        return mutate(rng, rng.choice(SEEDS))
    if roll < 0.9:
        kind = rng.choice([*BY_TYPE, "fly", "", "PING"]) if rng.random() < 0.95 else _value(rng)
        msg: dict[str, Any] = {
            "type": kind,
            "id": _value(rng) if rng.random() < 0.3 else rng.randint(0, 999),
        }
        for _ in range(rng.randint(0, 4)):
            msg[rng.choice(FIELDS)] = _value(rng)
        # ensure_ascii: a lone surrogate goes as a \\udXXX escape, as a hostile client sends it.
        text = json.dumps(msg)
        if rng.random() < 0.05:
            text = text.replace("1", rng.choice(HOSTILE_BITS), 1)
        return text[:12_000]
    if roll < 0.95:
        return rng.randbytes(rng.randint(0, 200))
    if roll < 0.98:
        return nested(rng.randint(1, 5000))
    return "".join(chr(rng.randrange(0x20, 0xD800)) for _ in range(rng.randint(0, 100)))


def _is_squeeze(text: str | bytes) -> bool:
    if not isinstance(text, str):
        return False
    try:
        return parse(text, UserId(1)).type == "squeeze"
    except InvalidInput:
        return False


class Tally:
    """What the run saw."""

    def __init__(self) -> None:
        self.frames = 0
        self.codes: collections.Counter[str] = collections.Counter()
        self.http: collections.Counter[int] = collections.Counter()
        self.failures: list[dict[str, Any]] = []
        self.oversized = 0

    def answers(self, answers: list[dict[str, Any]]) -> None:
        for a in answers:
            ok = a.get("type") == "ack" or (
                a.get("type") == "error" and isinstance(a.get("code"), str) and a.get("message")
            )
            if not ok:
                self.failures.append({"bad answer": a})
            self.codes[a.get("code", "ack")] += 1


async def _check_batch(probe: Probe, batch: list[str | bytes], tally: Tally) -> None:
    plain = [f for f in batch if not _is_squeeze(f)]
    for f in plain:
        await probe.send(f)
    answers = await probe.mark()
    tally.answers(answers)
    if len(answers) != len(plain):
        # Find the frame that broke the count, one at a time.
        for f in plain:
            got = await probe.ask(f)
            if len(got) != 1:
                tally.failures.append({"frame": repr(f[:300]), "answers": got[:3]})
                break
        else:
            tally.failures.append({"batch answers": len(answers), "frames": len(plain)})
    for f in batch:
        if f not in plain:
            got = await probe.ask(f)
            tally.answers(got)
            if len(got) != 1:
                tally.failures.append({"frame": repr(f[:300]), "answers": got[:3]})
    tally.frames += len(batch)


async def _http(base: str, token: str, rng: random.Random, tally: Tally) -> None:
    async with aiohttp.ClientSession() as http:
        path = rng.choice(BAD_PATHS) if rng.random() < 0.5 else "/" + mutate(rng, "js/main.js")
        quoted = "".join(
            c if 0x21 <= ord(c) < 0x7F else f"%{b:02X}"
            for c in path
            for b in ([ord(c)] if ord(c) < 0x80 else c.encode("utf-8", "surrogatepass"))
        )
        async with http.get(URL(base + quoted, encoded=True), allow_redirects=False) as resp:
            tally.http[resp.status] += 1
            if resp.status >= 500:
                tally.failures.append({"http": "GET", "path": quoted[:300], "status": resp.status})
        extra = urllib.parse.quote(mutate(rng, rng.choice(HOSTILE_BITS)), safe="")
        query = rng.choice(BAD_QUERIES).replace("=", "=" + extra, rng.random() < 0.5)
        headers = {"Authorization": f"Bearer {token}"}
        async with http.get(URL(base + query, encoded=True), headers=headers) as resp:
            tally.http[resp.status] += 1
            if resp.status >= 500:
                tally.failures.append({"http": "GET", "path": query[:300], "status": resp.status})
        raw = rng.choice(BAD_RAW_REQUESTS)
        status = await raw_status(base, raw)
        if status is not None:
            tally.http[status] += 1
            if status >= 500:
                tally.failures.append({"http": "raw", "request": repr(raw[:300]), "status": status})
        body = frame(rng)
        data = body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass")
        target = rng.choice(["/api/login", "/api/register"])
        async with http.post(
            base + target, data=data, headers={"Content-Type": "application/json"}
        ) as resp:
            tally.http[resp.status] += 1
            if resp.status >= 500:
                tally.failures.append(
                    {"http": target, "body": repr(data[:300]), "status": resp.status}
                )


async def _worker(
    base: str, token: str, quota: int, args: argparse.Namespace, seed: int, tally: Tally
) -> None:
    rng = random.Random(seed)
    probe = await Probe.open(base, token)
    try:
        sent = 0
        batches = 0
        while sent < quota:
            batch = [frame(rng) for _ in range(min(args.batch, quota - sent))]
            try:
                await _check_batch(probe, batch, tally)
            except ConnectionError as exc:
                tally.failures.append({"socket closed": str(exc)})
                await probe.close()
                probe = await Probe.open(base, token)
            sent += len(batch)
            batches += 1
            if batches % 10 == 0:
                await _http(base, token, rng, tally)
            if batches % 500 == 0:
                code = await oversized_frame_close_code(base, token)
                tally.oversized += 1
                if code != 1009:
                    tally.failures.append({"oversized frame close code": code})
        last = await probe.ask(json.dumps({"type": "ping", "id": "~last"}))
        if [a.get("type") for a in last] != ["ack"]:
            tally.failures.append({"last ping": last})
    finally:
        await probe.close()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    accounts = {"sitter": 100_000} | {f"watcher{i}": 0 for i in range(1, args.sockets)}
    tally = Tally()
    with served(accounts) as srv:
        store = open_store(srv.db)
        before = store.total_coins(), {u.username: u.coins for u in store.list_users()}
        store.close()
        rss_start = srv.rss_mb()
        started = time.perf_counter()
        quota = args.frames // args.sockets
        progress = asyncio.create_task(_progress(tally, args.frames, started))
        await asyncio.gather(
            *(
                _worker(srv.base, token, quota, args, args.seed * 1000 + i, tally)
                for i, token in enumerate(srv.tokens.values())
            )
        )
        progress.cancel()
        seconds = time.perf_counter() - started
        rss_end = srv.rss_mb()
        srv.stop()
        problems = srv.problems()
        audit = subprocess.run(
            [sys.executable, "-m", "baccarat", "audit", "--db", srv.db, "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        store = open_store(srv.db)
        after = (
            store.total_coins(),
            {u.username: u.coins for u in store.list_users() if u.username in before[1]},
        )
        store.close()
    audit_ok = audit.returncode == 0
    if after[0]["total"] != 0 or after[1] != before[1] or after[0]["house"] != before[0]["house"]:
        tally.failures.append({"ledger before": before, "ledger after": after})
    return {
        "frames": tally.frames,
        "seconds": round(seconds, 1),
        "frames_per_s": round(tally.frames / seconds),
        "sockets": args.sockets,
        "answers": dict(tally.codes.most_common()),
        "http_statuses": dict(sorted(tally.http.items())),
        "oversized_frames_closed_1009": tally.oversized,
        "server_log_problems": problems[:10],
        "server_log_problem_count": len(problems),
        "rss_mb_start": round(rss_start, 1),
        "rss_mb_end": round(rss_end, 1),
        "audit_ok": audit_ok,
        "failures": tally.failures[:20],
        "failure_count": len(tally.failures),
    }


async def _progress(tally: Tally, total: int, started: float) -> None:
    while True:
        await asyncio.sleep(30)
        rate = tally.frames / (time.perf_counter() - started)
        print(
            f"{tally.frames}/{total} frames, {rate:.0f}/s, {len(tally.failures)} failures",
            file=sys.stderr,
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--sockets", type=int, default=4)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = asyncio.run(run(args))
    print(json.dumps(result, indent=2, ensure_ascii=False, default=str))
    ok = (
        not result["failure_count"]
        and not result["server_log_problem_count"]
        and result["audit_ok"]
    )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

"""The reference platform's seamless wallet: it keeps the coins, the game asks it
(docs/integration.md, "Seamless wallet").

``POST /api/wallet/balance {user}``; ``/debit``, ``/credit``, ``/rollback``
``{transaction_id, user, amount, round_id}`` (a rollback names the debit it undoes in
``refers_to``); each signed by the game with the shared secret. Every transaction id is
answered once and then the same way again. A rollback of a debit never seen is recorded (it
gives back nothing), and that debit is refused if it comes later.

``GET /api/wallet/transactions?from=T&to=T`` (signed): the report ``baccarat reconcile``
compares. ``POST /admin/faults`` (a sandbox's, on this machine only) makes the next calls of
a kind (or of ``any`` kind) answer late, fail, or fail after they were applied, or the platform
be away for some seconds.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import sqlite3
import time
from typing import Any

from aiohttp import web

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS wallet_tx (id TEXT PRIMARY KEY, kind TEXT, user TEXT,"
    " round_id TEXT, amount INT, refers_to TEXT, status INT, answer TEXT, created_at REAL);"
)
"""Each transaction as the platform answered it: ``amount`` is the change it made to the
user's coins (0 when refused), ``status`` and ``answer`` what it said."""


class Wallet:
    """The platform's side of the seamless wallet, over its SQLite file."""

    def __init__(self, db: sqlite3.Connection, secret: str) -> None:
        self.db = db
        self.secret = secret
        db.executescript(SCHEMA)
        self.faults: dict[str, dict[str, Any]] = {}
        """By call kind, or ``any``: ``{mode, times, seconds, delay, user}``; mode ``slow``
        (apply, then answer ``delay`` seconds later), ``error`` (answer 500, change nothing),
        ``after`` (apply, then answer 500), ``down`` (answer 503 ``delay`` seconds later,
        change nothing); for ``times`` calls, or every call for ``seconds`` from now (of
        ``user`` only, when given)."""

    def signed(self, request: web.Request, body: bytes) -> bool:
        stamp = request.headers.get("X-Platform-Timestamp", "")
        given = request.headers.get("X-Platform-Signature", "")
        message = f"{stamp}\n{request.method}\n{request.path_qs}\n".encode() + body
        good = hmac.new(self.secret.encode(), message, "sha256").hexdigest()
        return (
            stamp.isdigit()
            and hmac.compare_digest(good, given)
            and abs(time.time() - int(stamp)) <= 300
        )

    def coins(self, user: str) -> int | None:
        row = self.db.execute("SELECT coins FROM users WHERE id = ?", (user,)).fetchone()
        return None if row is None else int(row["coins"])

    def _seen(self, tid: str) -> web.Response | None:
        row = self.db.execute(
            "SELECT status, answer FROM wallet_tx WHERE id = ?", (tid,)
        ).fetchone()
        if row is None:
            return None
        return web.json_response(json.loads(row["answer"]), status=row["status"])

    def _record(self, d: dict[str, Any], kind: str, change: int, status: int, answer: Any) -> None:
        self.db.execute(
            "INSERT INTO wallet_tx VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                d["transaction_id"], kind, d["user"], d.get("round_id", ""), change,
                d.get("refers_to"), status, json.dumps(answer), time.time(),
            ),
        )  # fmt: skip

    def apply(self, kind: str, d: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Carry out one new transaction in one SQLite transaction; its status and answer."""
        tid, user, amount = d["transaction_id"], d["user"], int(d["amount"])
        have = self.coins(user)
        if have is None:
            return 404, {"error": {"code": "unknown_user", "message": "No such user."}}
        change = 0
        if kind == "debit":
            undone = self.db.execute(
                "SELECT 1 FROM wallet_tx WHERE kind = 'rollback' AND refers_to = ?", (tid,)
            ).fetchone()
            if undone is not None:
                return 409, {"error": {"code": "rolled_back", "message": "Rolled back already."}}
            if have < amount:
                return 409, {"error": {"code": "insufficient_funds", "message": "Not enough."}}
            change = -amount
        elif kind == "credit":
            change = amount
        else:
            debit = self.db.execute(
                "SELECT amount FROM wallet_tx WHERE id = ? AND kind = 'debit'", (d["refers_to"],)
            ).fetchone()
            change = -int(debit["amount"]) if debit is not None else 0
        self.db.execute("UPDATE users SET coins = coins + ? WHERE id = ?", (change, user))
        return 200, {"transaction_id": tid, "balance": have + change, "change": change}

    async def call(self, request: web.Request) -> web.Response:
        kind = request.match_info["kind"]
        body = await request.read()
        if not self.signed(request, body):
            return web.json_response({"error": {"code": "bad_signature"}}, status=401)
        d = json.loads(body)
        fault, delay = self._fault(kind, str(d.get("user")))
        if fault in ("error", "down"):
            await asyncio.sleep(delay if fault == "down" else 0.0)
            status = 500 if fault == "error" else 503
            return web.json_response({"error": {"code": "unavailable"}}, status=status)
        if kind == "balance":
            have = self.coins(str(d.get("user")))
            if have is None:
                return web.json_response({"error": {"code": "unknown_user"}}, status=404)
            status, answer = 200, {"user": d["user"], "balance": have}
        else:
            done = self._transact(kind, d)
            if isinstance(done, web.Response):
                return done
            status, answer = done
        if fault == "slow":
            await asyncio.sleep(delay)
        elif fault == "after":
            return web.json_response({"error": {"code": "unavailable"}}, status=500)
        return web.json_response(answer, status=status)

    def _transact(self, kind: str, d: dict[str, Any]) -> tuple[int, dict[str, Any]] | web.Response:
        """Carry out a debit, credit or rollback, or the first answer to its id again."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            seen = self._seen(d["transaction_id"])
            if seen is not None:
                self.db.execute("ROLLBACK")
                return seen
            status, answer = self.apply(kind, d)
            self._record(d, kind, answer.get("change", 0), status, answer)
            self.db.execute("COMMIT")
        except Exception:
            self.db.execute("ROLLBACK")
            raise
        return status, answer

    def _fault(self, kind: str, user: str) -> tuple[str | None, float]:
        """The fault this call meets, and its delay."""
        for fault in (self.faults.get(kind), self.faults.get("any")):
            if not fault or fault.get("user", user) != user:
                continue
            delay = float(fault.get("delay", 10.0 if fault["mode"] == "slow" else 0.0))
            if "until" in fault:
                if time.time() < fault["until"]:
                    return str(fault["mode"]), delay
            elif fault.get("times", 0) > 0:
                fault["times"] -= 1
                return str(fault["mode"]), delay
        return None, 0.0

    async def report(self, request: web.Request) -> web.Response:
        """GET /api/wallet/transactions?from=T&to=T, signed: every change made."""
        if not self.signed(request, b""):
            return web.json_response({"error": {"code": "bad_signature"}}, status=401)
        try:  # whole Unix seconds, as docs/integration.md says the game sends them
            start, end = int(request.query["from"]), int(request.query["to"])
        except (KeyError, ValueError):
            refusal = {"code": "bad_period", "message": "'from' and 'to' are whole seconds."}
            return web.json_response({"error": refusal}, status=400)
        rows = self.db.execute(
            "SELECT * FROM wallet_tx WHERE created_at >= ? AND created_at < ? ORDER BY created_at",
            (start, end),
        )
        found = [
            {
                "transaction_id": r["id"],
                "kind": r["kind"],
                "round_id": r["round_id"],
                "user": r["user"],
                "amount": r["amount"],
                "created_at": r["created_at"],
            }
            for r in rows
        ]
        return web.json_response({"transactions": found})

    async def set_faults(self, request: web.Request) -> web.Response:
        """POST {kind: {mode, times, seconds, delay}}: the next calls' faults (``{}`` clears
        them)."""
        self.faults = await request.json()
        for fault in self.faults.values():
            if "seconds" in fault:
                fault["until"] = time.time() + float(fault["seconds"])
        return web.json_response({"faults": self.faults})

    def transactions(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.execute("SELECT * FROM wallet_tx ORDER BY created_at")]


def add_routes(app: web.Application, wallet: Wallet) -> None:
    app.router.add_post("/api/wallet/{kind:balance|debit|credit|rollback}", wallet.call)
    app.router.add_get("/api/wallet/transactions", wallet.report)
    app.router.add_post("/admin/faults", wallet.set_faults)

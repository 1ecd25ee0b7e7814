"""The seamless wallet: the platform keeps its players' coins, and the game asks it.

Four calls, each a signed ``POST`` (``signing``) of a JSON object to the platform's
``wallet_url``: ``/balance {user}``, ``/debit``, ``/credit`` and ``/rollback``
``{transaction_id, user, amount, round_id}`` (a rollback also names the debit it undoes,
``refers_to``). The platform answers ``200 {transaction_id, balance}``, the same again for an
id it has seen. Anything else, or no answer within ``wallet_timeout`` seconds, is not a yes:

- a debit not taken is failed at once: the bettor's stakes go back (or, for the dealer's
  cover, the round is called off), and its rollback is sent until the platform answers, in
  case the platform took it after all;
- a credit or rollback is sent again with the same id, every ``RETRY_FIRST`` seconds and
  doubling to ``RETRY_CAP``, until the platform answers: never lost, never paid twice. Any
  answer of the platform's sends them at once (it is back);
- a balance not given is left out: the table keeps the last one it knew, and takes no stake
  on it until the platform gives one with nothing owed to it (``owing``).

Every call is recorded before it is sent and every answer when it comes
(``baccarat.store.wallet``); a record that meets the database away is retried until it is
back (each is idempotent: found or inserted once, or guarded by the call's state), so a
round's stakes wait out an outage as its ledger writes do. A node sweeps every ``SWEEP_EVERY`` seconds for calls still
owed, whichever node made them: rounds that landed without their coins given back (the node
that dealt them stopped), debits that never had an answer, credits and rollbacks pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

import aiohttp
from yarl import URL

from baccarat.cluster.outage import Outage, part_down
from baccarat.numbers import whole
from baccarat.platform import signing
from baccarat.platform.config import PlatformConfig
from baccarat.protocol import codec
from baccarat.store import Store
from baccarat.store.wallet import DEBIT, DONE, UNFINISHED_AFTER, WalletCall

log = logging.getLogger("baccarat.platform")

T = TypeVar("T")

RETRY_FIRST = 1.0
RETRY_CAP = 30.0
SWEEP_EVERY = 5.0
RESEND_AFTER = 30.0
"""Seconds a pending credit or rollback waits before a sweep sends it (the node that made
it sends it meanwhile)."""


class WalletClient:
    """Signed calls to the platform's wallet."""

    def __init__(self, config: PlatformConfig) -> None:
        assert config.wallet_url is not None, "the seamless wallet needs its wallet_url"
        self.base = config.wallet_url
        self.secret = config.secret
        self.timeout = config.wallet_timeout
        self._session: aiohttp.ClientSession | None = None

    async def post(self, name: str, body: Mapping[str, Any]) -> tuple[int, str, Any]:
        """Status, text and parsed JSON of one call; status 0 when no answer came in time."""
        if self._session is None:
            self._session = aiohttp.ClientSession()
        url = URL(f"{self.base}/{name}")
        data = codec.dumps(dict(body)).encode()
        headers = {
            "Content-Type": "application/json",
            **signing.sign(self.secret, time.time(), "POST", url.raw_path_qs, data),
        }
        try:
            async with self._session.post(
                url,
                data=data,
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=self.timeout),
            ) as resp:
                text = await resp.text()
                status = resp.status
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            return 0, f"no answer: {type(exc).__name__} {exc}", None
        try:
            parsed = codec.loads(text)
        except ValueError:
            parsed = None
        return status, text, parsed

    async def close(self) -> None:
        """Close the HTTP session."""
        if self._session is not None:
            await self._session.close()


def _body(call: WalletCall) -> dict[str, Any]:
    body: dict[str, Any] = {
        "transaction_id": call.call_id,
        "user": call.platform_user,
        "amount": call.amount,
        "round_id": call.round_id,
    }
    if call.refers_to is not None and call.kind != DEBIT:
        body["refers_to"] = call.refers_to
    return body


class SeamlessWallet:
    """The platform's wallet, as the tables use it (``server.tables.wallet.Wallet``)."""

    def __init__(self, store: Store, client: WalletClient) -> None:
        self.store = store
        self.client = client
        self._linked: dict[int, str | None] = {}
        self._sending: set[str] = set()
        """Calls being sent by this node now (a sweep leaves them alone)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing = False
        self._known: dict[int, int] = {}
        """The last balance the platform gave of each user."""
        self._back = asyncio.Event()
        """Set (and replaced) when the platform answers: what waits to be sent again goes."""
        self._outage = Outage("recording a wallet call", log)

    async def _stored(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """A store call, tried again while the database is away (until the node stops)."""
        pause = 0.1
        while True:
            try:
                found = await asyncio.to_thread(fn, *args, **kwargs)
            except Exception as exc:
                if part_down(exc) != "database" or self._closing:
                    raise
                self._outage.failed(exc)
                await asyncio.sleep(pause)
                pause = min(2.0, pause * 2)
                continue
            self._outage.passed()
            return found

    async def keeps(self, user_id: int) -> bool:
        """Whether the platform launched this user (it keeps their coins)."""
        return await self._platform_user(user_id) is not None

    async def _platform_user(self, user_id: int) -> str | None:
        if user_id not in self._linked:
            self._linked[user_id] = await self._stored(self.store.platform_user_of, user_id)
        return self._linked[user_id]

    async def balances(self, user_ids: Collection[int]) -> dict[int, int]:
        """The platform's balance of each user it keeps that answered in time."""
        kept = [(u, p) for u in user_ids if (p := await self._platform_user(u)) is not None]
        answers = await asyncio.gather(*(self.client.post("balance", {"user": p}) for _, p in kept))
        found: dict[int, int] = {}
        for (uid, _), (status, _text, data) in zip(kept, answers, strict=True):
            balance = data.get("balance") if isinstance(data, dict) else None
            if status == 200 and whole(balance):
                found[uid] = self._known[uid] = balance
            else:
                log.warning("wallet balance not told", extra={"user_id": uid, "status": status})
        if found:
            self._heard()
        return found

    async def owing(self, user_ids: Collection[int]) -> set[int]:
        """The users of ``user_ids`` with a call still waiting for the platform's answer."""
        wanted = set(user_ids)
        pending = await self._stored(self.store.wallet_pending)
        return {c.user_id for c in pending if c.user_id in wanted}

    def known(self, user_id: int) -> int | None:
        """The last balance the platform gave of the user on this node."""
        return self._known.get(user_id)

    def _heard(self) -> None:
        """The platform answers again: the calls waiting to be sent again go now."""
        back, self._back = self._back, asyncio.Event()
        back.set()

    async def take(self, round_id: str, stakes: Mapping[int, int]) -> set[int]:
        """Debit each kept user's stakes at once; the kept users whose debit was not taken."""
        kept = [u for u, amount in stakes.items() if amount > 0 and await self.keeps(u)]
        calls = [
            await self._stored(self.store.wallet_debit, round_id, uid, stakes[uid]) for uid in kept
        ]
        answered = await asyncio.gather(*(self._send(c) for c in calls))
        refused = {c.user_id for c in answered if c.state != DONE}
        if refused:
            log.info(
                "wallet debit not taken", extra={"round_id": round_id, "users": sorted(refused)}
            )
            self._deliver_owed(await self._stored(self.store.wallet_pending))
        return refused

    async def give_back(self, round_id: str) -> None:
        """Record the round's credits or rollbacks and send them in the background."""
        owed = await self._stored(self.store.wallet_close, round_id)
        self._deliver_owed(owed)

    async def _send(self, call: WalletCall) -> WalletCall:
        """One attempt of ``call``, its answer recorded."""
        self._sending.add(call.call_id)
        try:
            status, text, data = await self.client.post(call.kind, _body(call))
            ok = (
                status == 200
                and isinstance(data, dict)
                and data.get("transaction_id") == call.call_id
            )
            if ok:
                self._heard()
            return await self._stored(self.store.wallet_answer, call.call_id, status, text, ok=ok)
        finally:
            self._sending.discard(call.call_id)

    def _deliver_owed(self, calls: list[WalletCall]) -> None:
        for call in calls:
            if call.kind != DEBIT and call.call_id not in self._sending:
                self._sending.add(call.call_id)
                task = asyncio.create_task(self._deliver(call))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _deliver(self, call: WalletCall) -> None:
        """Send a credit or rollback until the platform has taken it (or the node stops: a
        sweep of any node sends it on)."""
        pause = RETRY_FIRST
        try:
            while not self._closing:
                answered = await self._send(call)
                self._sending.add(call.call_id)
                if answered.state != "pending":
                    return
                if answered.attempts in (1, 5) or answered.attempts % 20 == 0:
                    log.warning(
                        "wallet call not taken yet; sending it again",
                        extra={"call_id": call.call_id, "attempts": answered.attempts},
                    )
                with contextlib.suppress(TimeoutError):
                    # Sent again after ``pause``, or as soon as the platform answers a call.
                    await asyncio.wait_for(self._back.wait(), pause)
                pause = min(RETRY_CAP, pause * 2)
        except Exception as exc:
            log.warning(
                "wallet call left to the sweep", extra={"call_id": call.call_id, "error": str(exc)}
            )
        finally:
            self._sending.discard(call.call_id)

    async def sweep(self) -> None:
        """Once: give back rounds that landed (or were lost) with coins of the platform's,
        fail debits that never had an answer, and send what is pending."""
        for round_id in await asyncio.to_thread(self.store.wallet_unfinished, UNFINISHED_AFTER):
            self._deliver_owed(await asyncio.to_thread(self.store.wallet_give_back, round_id))
        for call in await asyncio.to_thread(self.store.wallet_pending, RESEND_AFTER):
            if call.kind == DEBIT and time.time() - call.created_at > UNFINISHED_AFTER:
                # Its node stopped before the answer: not taken, and its rollback is owed.
                await asyncio.to_thread(
                    self.store.wallet_answer, call.call_id, 0, "no answer recorded", ok=False
                )
        self._deliver_owed(await asyncio.to_thread(self.store.wallet_pending, RESEND_AFTER))

    async def run(self) -> None:
        """Sweep every ``SWEEP_EVERY`` seconds until cancelled."""
        while True:
            try:
                await self.sweep()
            except Exception as exc:
                log.warning("wallet sweep failed", extra={"error": str(exc)})
            await asyncio.sleep(SWEEP_EVERY)

    async def close(self) -> None:
        """Stop sending (what is pending stays recorded for the next sweep)."""
        self._closing = True
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.client.close()

"""The log's witnesses as a node asks them: each new head, as a checkpoint, to each witness.

The node signs the newest head as a C2SP checkpoint (``baccarat.checkpoint``) and offers it to
every witness (``POST <url>/add-checkpoint``) with the consistency proof from the size that
witness last cosigned. A 409 names the witness's size: the node offers again from there; a
witness that cosigned a larger log than the database holds means the database was restored
from a copy (the rollback guard ends its shoes in play). The newest checkpoint with cosignatures
from at least ``quorum`` witnesses is served at ``/.well-known/baccarat-checkpoint`` and kept
beside the keys file. A head is offered when the log grew, and again every ``REFRESH`` seconds
(the witnesses' timestamps say the log is live).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import time
from dataclasses import dataclass, field

import aiohttp

from baccarat import checkpoint
from baccarat.checkpoint import Verifier
from baccarat.errors import InvalidInput
from baccarat.logbook import SignedHead
from baccarat.server.kepthead import KeptHead, Witnessed
from baccarat.server.keyfile import Keys
from baccarat.server.tables.rollback import Rollback
from baccarat.store import Store

log = logging.getLogger("baccarat.server")

POLL = 1.0
"""Seconds between looks at the newest head."""
REFRESH = 600.0
"""Seconds after which an unchanged head is offered again, for fresh cosignatures."""
TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class WitnessAt:
    """A witness as the operator names it: where it listens and its verifier key."""

    url: str
    verifier: Verifier


def parse_witness(text: str) -> WitnessAt:
    """Read ``URL=VKEY`` (``bad_witness`` when it is not that)."""
    url, sep, vkey = text.partition("=")
    if not sep or not url.startswith(("http://", "https://")):
        raise InvalidInput("bad_witness", f"A witness is URL=VKEY, not {text!r}.")
    verifier = checkpoint.parse_vkey(vkey)
    if verifier.kind != checkpoint.COSIGNATURE:
        raise InvalidInput("bad_witness", f"{vkey!r} is not a witness's (cosignature) key.")
    return WitnessAt(url.rstrip("/"), verifier)


def check_quorum(quorum: int | None, count: int) -> int | None:
    """The quorum asked for (None: all of the ``count`` witnesses); ``bad_quorum`` when it is
    not between 1 and ``count``."""
    if quorum is not None and not 1 <= quorum <= count:
        raise InvalidInput(
            "bad_quorum", f"--witness-quorum is between 1 and the {count} witnesses named."
        )
    return quorum


class Behind(Exception):
    """A witness cosigned a larger log than the database holds."""


@dataclass
class Witnesses:
    """This node's witnesses, its policy, and the newest cosigned checkpoint."""

    store: Store
    keys: Keys
    witnesses: list[WitnessAt]
    quorum: int
    kept: KeptHead | None = None
    rollback: Rollback | None = None
    note: str | None = None
    """The newest checkpoint that ``quorum`` witnesses cosigned, with every signature."""
    sizes: dict[str, int] = field(default_factory=dict)
    """The size each witness last answered it holds (by name)."""
    forked: bool = False
    """The witnesses hold a larger log than the database: they refuse this log from now on."""
    _offered: tuple[int, str, float] = (-1, "", 0.0)

    def __post_init__(self) -> None:
        check_quorum(self.quorum, len(self.witnesses))
        if self.kept is not None and self.kept.witnessed is not None:
            self.note = self.kept.witnessed.note

    async def keep(self) -> None:
        """Offer each new head to the witnesses, for as long as the node runs."""
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT)) as web:
            while True:
                try:
                    await self.offer_newest(web)
                except Exception as exc:
                    log.warning("witnesses not asked", extra={"error": str(exc)})
                await asyncio.sleep(POLL)

    async def offer_newest(self, web: aiohttp.ClientSession) -> bool:
        """Offer the newest head if it is new or stale; whether it was offered."""
        head = await asyncio.to_thread(self.store.log_head)
        size, root, at = self._offered
        if head is None or (
            (head.tree_size, head.root_hash) == (size, root) and time.time() - at < REFRESH
        ):
            return False
        self._offered = (head.tree_size, head.root_hash, time.time())
        await self.offer(web, head)
        return True

    async def offer(self, web: aiohttp.ClientSession, head: SignedHead) -> list[str]:
        """Offer ``head`` to every witness; the cosignature lines it got."""
        text = checkpoint.body(self.keys.log_origin, head.tree_size, bytes.fromhex(head.root_hash))
        note = f"{text}\n{checkpoint.sign(text, self.keys.log_origin, self.keys.log[0])}\n"
        answers = await asyncio.gather(
            *(self._ask(web, w, head, note) for w in self.witnesses), return_exceptions=True
        )
        if any(isinstance(a, Behind) for a in answers):
            await self._behind(head)
            return []
        lines = [line for a in answers if isinstance(a, str) for line in [a]]
        if len(lines) >= self.quorum:
            self.note = note + "".join(f"{line}\n" for line in lines)
            if self.kept is not None:
                seen = Witnessed(head.tree_size, head.root_hash, self.note)
                await asyncio.to_thread(self.kept.keep_witnessed, seen)
        else:
            log.error("too few witnesses cosigned", extra={"cosigned": len(lines)})
        return lines

    async def _ask(
        self, web: aiohttp.ClientSession, w: WitnessAt, head: SignedHead, note: str
    ) -> str | None:
        """One witness's cosignature line (None: it refused), asking again from its size."""
        for _ in range(2):
            old = self.sizes.get(w.verifier.name, 0)
            if old > head.tree_size:
                raise Behind()
            proof = await self._proof(old, head.tree_size)
            lines = [f"old {old}", *(base64.b64encode(p).decode() for p in proof)]
            body = "\n".join(lines) + "\n\n" + note
            async with web.post(f"{w.url}/add-checkpoint", data=body.encode()) as answer:
                text = await answer.text()
                if answer.status == 200:
                    self.sizes[w.verifier.name] = head.tree_size
                    return self._cosignature(w, note, text)
                if answer.status != 409 or not text.strip().isdigit():
                    log.error("witness refused", extra={"witness": w.url, "status": answer.status})
                    return None
                self.sizes[w.verifier.name] = int(text.strip())
        return None

    async def _proof(self, old: int, size: int) -> list[bytes]:
        if not 0 < old < size:
            return []
        return await asyncio.to_thread(self.store.log_consistency, old, size)

    def _cosignature(self, w: WitnessAt, note: str, answer: str) -> str | None:
        text, _ = checkpoint.split_note(note)
        for line in answer.splitlines():
            if checkpoint.verify_line(text, line, w.verifier) is not None:
                return line
        log.error("witness answered no good cosignature", extra={"witness": w.url})
        return None

    async def _behind(self, head: SignedHead) -> None:
        if self.forked:
            return
        self.forked = True
        sizes = ", ".join(f"{n}: {s}" for n, s in self.sizes.items())
        why = f"a witness cosigned a larger log than the database's {head.tree_size} ({sizes})"
        if self.rollback is not None:
            await asyncio.to_thread(self.rollback.found_behind, why)
        else:
            log.critical("DATABASE BEHIND ITS WITNESSES", extra={"why": why})

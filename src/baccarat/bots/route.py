"""A bot's route to its table: the node that runs it, and finding that node after a failover.

When the bot's node stops answering or no longer runs its table, every node the bot knows is
asked where the table runs now; the table keeps the bot's seat there for the reconnect grace.
"""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import Iterable

import aiohttp

from baccarat.api import lobby
from baccarat.client import CommandError
from baccarat.errors import BaccaratError
from baccarat.protocol.frames import LobbyTable

FOLLOW_LIMIT = 60.0
"""Seconds a bot that lost sight of its table keeps looking for it before sitting anew."""
FOLLOW_EVERY = 0.5
"""Seconds between two rounds of asking the nodes where the table went."""
ASK_TIMEOUT = 1.5
"""Seconds one node's lobby may take to answer a bot looking for its table."""


class Route:
    """Where one bot's table runs, as far as the bot knows, and the nodes it may ask."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        """The node the bot connects to: the one that runs its table, as far as it knows."""
        self.known = [url]
        """Every node seen in a lobby, to ask when the bot's own node stops answering."""
        self.lost_since: float | None = None
        """The loop's time the bot lost sight of its table, None while it plays there."""
        self.token = token

    def remember(self, urls: Iterable[str]) -> None:
        """Add nodes to ask where the table runs (each is kept once)."""
        self.known = list(dict.fromkeys([*self.known, *urls]))

    async def learn(self) -> None:
        """Remember every node the bot's own node's lobby names (a bot that came through one
        public address learns each node's own, to go to when its node stops answering)."""
        tables = await self._ask(self.url)
        if tables is not None:
            self.remember(str(t["url"]) for t in tables if t.get("url"))

    def found(self) -> None:
        """The bot plays on its table's node again."""
        self.lost_since = None

    def still_looking(self) -> bool:
        """Whether the bot has looked for its table for less than ``FOLLOW_LIMIT`` so far."""
        lost_for = asyncio.get_running_loop().time() - (self.lost_since or 0.0)
        return self.lost_since is None or lost_for < FOLLOW_LIMIT

    def sent_elsewhere(self, exc: CommandError) -> bool:
        """Take the node a ``table_elsewhere`` refusal names; True if it named one."""
        url = exc.details.get("url") if exc.code == "table_elsewhere" else None
        if isinstance(url, str) and url:
            self.url = url
            return True
        return False

    async def follow(self, table_id: str | None) -> bool:
        """Find the node that runs ``table_id`` now; True if the bot should connect again
        (to that node, or later because no node shows the table yet).

        Every node it knows is asked at once, each for at most ``ASK_TIMEOUT``. Its own node
        answering means it is alive. Otherwise, while the other nodes still show the table
        on the silent node (its lease has not run out yet), they are asked again every
        ``FOLLOW_EVERY`` seconds, so that the bot follows the table as soon as another node
        takes it, and does not wait on the silent one."""
        loop = asyncio.get_running_loop()
        if self.lost_since is None:
            self.lost_since = loop.time()
        while loop.time() - self.lost_since < FOLLOW_LIMIT:
            bases = self._bases()
            answers = await asyncio.gather(*(self._ask(base) for base in bases))
            verdict = self._weigh(table_id, bases, answers)
            if verdict is not None:
                return verdict
            await asyncio.sleep(FOLLOW_EVERY)
        return True

    def _bases(self) -> list[str]:
        """Every address to ask where the table runs, the bot's own node first."""
        # Behind one public address each node has a path; the address alone reaches any
        # node that is up (the proxy's default), which knows where the table runs.
        known = [self.url, *self.known]
        return list(dict.fromkeys([*known, *(_root(u) for u in known)]))

    def _weigh(
        self, table_id: str | None, bases: list[str], answers: list[list[LobbyTable] | None]
    ) -> bool | None:
        """What the lobbies' answers mean: True to connect again, False to back off, None to
        ask again shortly."""
        line, alive = self._read_lobbies(table_id, bases, answers)
        if line is not None and line["url"] != self.url:
            self.url = str(line["url"])
            return True
        if alive:
            # Its node answers: the table is there, or nowhere yet.
            return True
        if not any(a is not None for a in answers):
            # No node answers at all (the network, or every node, is down): try again
            # later, backing off.
            return False
        return None

    def _read_lobbies(
        self, table_id: str | None, bases: list[str], answers: list[list[LobbyTable] | None]
    ) -> tuple[LobbyTable | None, bool]:
        """The table's line (another node's word over the bot's own node's), and whether its
        own node answered; every node named is remembered."""
        alive = False
        line: LobbyTable | None = None
        for base, tables in zip(bases, answers, strict=True):
            if tables is None:
                continue
            alive = alive or base == self.url
            self.remember(str(t["url"]) for t in tables if t.get("url"))
            mine = _routed_line(tables, table_id)
            if mine is not None and (line is None or base != self.url):
                line = mine
        return line, alive

    async def _ask(self, base: str) -> list[LobbyTable] | None:
        # One node's table lines, or None if it does not answer in time.
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                tables = (await lobby(base, self.token))["tables"]
        except (TimeoutError, OSError, aiohttp.ClientError, BaccaratError, KeyError):
            return None
        return list(tables) if isinstance(tables, list) else None


def _routed_line(tables: list[LobbyTable], table_id: str | None) -> LobbyTable | None:
    """The table's line in one lobby, if it names the node that runs the table."""
    mine = next((t for t in tables if t.get("table_id") == table_id), None)
    return mine if mine is not None and mine.get("url") else None


def _root(url: str) -> str:
    """The address of ``url`` without its path (``http://host:port``)."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"

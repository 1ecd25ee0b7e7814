"""The recheck: a table's seated users whose balance the platform's wallet left unconfirmed,
asked of it again every ``RECHECK_EVERY`` seconds until it confirms each.

The platform is asked outside the table's task, so a platform that does not answer never
holds the table up; what it confirmed reaches the table as a job, which takes a balance only
for a user still seated and still waiting for it. An unconfirmed user has no stake in play
and no call being made for them (the table refuses their stakes), so what the platform says
of them is final when it says it.
"""

from __future__ import annotations

import asyncio
import logging

from baccarat.errors import BaccaratError
from baccarat.server.tables import balances
from baccarat.server.tables.driver import TableDriver
from baccarat.table import Event

log = logging.getLogger("baccarat.server")

RECHECK_EVERY = 1.0


class Recheck:
    """Asks the platform again for one table's unconfirmed balances, while there are any."""

    def __init__(self, driver: TableDriver, every: float = RECHECK_EVERY) -> None:
        self.driver = driver
        self.every = every
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Ask again from now on (nothing new if already asking)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name=f"recheck-{self.driver.table_id}")

    def _away(self) -> list[int]:
        return [o.user_id for o in self.driver.table.seats if o is not None and o.wallet_away]

    async def _run(self) -> None:
        while self.driver.running and self.driver.accepting and self._away():
            await asyncio.sleep(self.every)
            try:
                await self.once()
            except BaccaratError:
                return  # the table is closing
            except Exception as exc:
                log.warning(
                    "wallet recheck failed",
                    extra={"table_id": self.driver.table_id, "error": str(exc)},
                )

    async def once(self) -> None:
        """Ask once for the unconfirmed balances; the table takes those confirmed."""
        wallet = self.driver.ledger.wallet
        away = self._away()
        if wallet is None or not away:
            return
        told = await balances.confirmed(wallet, away)
        if not told.balances:
            return
        table, table_id = self.driver.table, self.driver.table_id

        def take(now: float) -> list[Event]:
            return balances.confirm(table, table_id, told.balances, now)

        await self.driver.submit(take)

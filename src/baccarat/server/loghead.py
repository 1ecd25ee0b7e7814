"""The commitment log's daily head: a node signs a fresh head when the newest is a day old.

Every new shoe signs a head as it is logged; this keeps a log that did not grow (a quiet
night) publishing a head at least daily, as Certificate Transparency logs do, so that a head
older than a day is itself a sign that something is wrong.
"""

from __future__ import annotations

import asyncio
import logging
import time

from baccarat.server.keyfile import Keys
from baccarat.store import Store

log = logging.getLogger("baccarat.server")

DAY = 24 * 3600.0
CHECK_EVERY = 600.0
"""How often a node looks at the newest head's age (seconds)."""


def refresh(store: Store, keys: Keys, max_age: float = DAY) -> bool:
    """Sign a new head if there is none or the newest is ``max_age`` seconds old; whether it
    signed one."""
    head = store.log_head()
    if head is not None and time.time() - head.timestamp / 1000 < max_age:
        return False
    store.sign_log_head(keys.signer)
    return True


async def keep(store: Store, keys: Keys, every: float = CHECK_EVERY) -> None:
    """Keep the log's head at most a day old, for as long as the node runs."""
    while True:
        try:
            if await asyncio.to_thread(refresh, store, keys):
                log.info("commitment log head signed")
        except Exception as exc:
            log.warning("commitment log head not signed", extra={"error": str(exc)})
        await asyncio.sleep(every)

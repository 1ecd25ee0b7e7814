"""The rollback guard: a database restored from a copy deals no card a screen has shown.

A copy of the database keeps each shoe's dealt mark as it was when the copy was made; a node
that dealt on from there would deal again the cards dealt since. So a node compares its
database with what it knows outside it (``kepthead``): the newest head it signed, which it
signs again each time a round's betting closes (so the head is newer than every card shown),
and the newest checkpoint its witnesses cosigned. A database that does not hold that head, or
whose log does not extend that checkpoint, is behind. Then no shoe that was in play in it is
dealt on: each is ended, its seed revealed, with the reason ``restored`` in the archive, as
the node takes its table (a node alone, which runs every table, ends them all at start), and
the node says so in a critical log line. The head signed then is kept, so the check holds
again from there.
"""

from __future__ import annotations

import asyncio
import logging
import threading

from baccarat.server.kepthead import KeptHead
from baccarat.server.keyfile import Keys
from baccarat.server.tables.shoes import reveal
from baccarat.store import Store
from baccarat.store.shoelog import SHOE_RESTORED
from baccarat.table import Event
from baccarat.table.events import BettingClosed

log = logging.getLogger("baccarat.server")


class Rollback:
    """A node's guard against dealing on from a restored database."""

    def __init__(self, store: Store, keys: Keys, kept: KeptHead) -> None:
        self.store = store
        self.keys = keys
        self.kept = kept
        self.suspects: set[str] = set()
        """Shoes that were in play when the database was found behind: none is dealt on."""
        self._lock = threading.Lock()
        self._asked = 0
        """How many ``dealing`` calls have begun (counted under ``_counting``)."""
        self._covered = 0
        """The calls that began before the last head ``dealing`` signed started: covered."""
        self._counting = threading.Lock()

    def behind(self) -> str | None:
        """Why the database is behind what this node knows outside it, or None when it is not."""
        # (with --workers, another worker may have kept a newer head since this one read it)
        self._identify()
        self.kept.refresh()
        head, seen = self.kept.head, self.kept.witnessed
        if head is not None and not self.store.holds_log_head(head):
            return (
                f"the database does not hold the log head of {head.tree_size} entries this node "
                f"signed at {head.timestamp} (ms): it is a copy made before that head"
            )
        if seen is not None:
            root = self.store.log_root_at(seen.tree_size)
            if root is None:
                return (
                    f"the database's log is shorter than the {seen.tree_size} entries the "
                    "witnesses cosigned"
                )
            if root.hex() != seen.root_hash:
                return (
                    f"the database's first {seen.tree_size} log entries are not the ones the "
                    "witnesses cosigned"
                )
        return None

    def _identify(self) -> None:
        """Name the kept record by the log's first entry too, once the log has one."""
        if self.kept.log_id is None:
            first = self.store.log_root_at(1)
            if first is not None:
                self.kept.identify(first.hex())

    def found_behind(self, why: str) -> None:
        """Note a database found behind: every shoe in play in it is a suspect, said loudly;
        the head signed now is kept, so the check holds again from here."""
        in_play = self.store.unended_shoes()
        self.suspects.update(s.shoe_id for s in in_play)
        log.critical(
            "DATABASE RESTORED FROM A COPY: no shoe in play is dealt on; each ends with its "
            "seed revealed (reason 'restored')",
            extra={"why": why, "shoes": len(in_play)},
        )
        with self._lock:
            self.kept.forget_witnessed()
            self.kept.keep_head(self.store.sign_log_head(self.keys.signer))

    def check(self) -> bool:
        """Compare the database with the kept head; whether it was behind."""
        why = self.behind()
        if why is None:
            return False
        self.found_behind(why)
        return True

    def end_suspects(self, table_id: str | None = None) -> list[str]:
        """End the suspect shoes (of one table, or all) with their seeds revealed; their ids."""
        ended: list[str] = []
        for shoe in self.store.unended_shoes(table_id):
            if shoe.shoe_id in self.suspects:
                reveal(self.store, self.keys, shoe, SHOE_RESTORED)
                self.suspects.discard(shoe.shoe_id)
                ended.append(shoe.shoe_id)
        if ended:
            log.critical("shoes ended: restored database", extra={"shoes": ended})
        return ended

    def at_start(self, *, alone: bool) -> list[str]:
        """The check at a node's start: alone, the node runs every table, so every suspect
        ends now; one of many ends a table's suspects as it takes the table."""
        self.check()
        return self.end_suspects() if alone else []

    def before_take(self, table_id: str) -> list[str]:
        """The check as the node takes ``table_id``, before its shoe is dealt on."""
        self.check()
        return self.end_suspects(table_id)

    async def recorded(self, events: list[Event]) -> None:
        """A table's events are written: once a round's betting closed (its shoe's mark moved),
        a head is signed and kept before its cards go out."""
        if not any(type(e) is BettingClosed for e in events):
            return
        try:
            await asyncio.to_thread(self.dealing)
        except Exception as exc:
            # The round goes on; only the check of a restore is weaker until the next head.
            log.error("log head not kept", extra={"error": str(exc)})

    def dealing(self) -> None:
        """A round's betting closed (its shoe's mark moved): sign a head and keep it, so that
        a copy made before now is told from the live database."""
        self._identify()
        with self._counting:
            self._asked += 1
            mine = self._asked
        with self._lock:
            # Tables close together: a head signed after this call began holds its mark too,
            # so one signature and one kept file serve every close that waited for it.
            if self._covered >= mine:
                return
            with self._counting:
                upto = self._asked
            self.kept.keep_head(self.store.sign_log_head(self.keys.signer))
            self._covered = upto

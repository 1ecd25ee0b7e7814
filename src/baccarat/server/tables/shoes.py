"""The shoe a table deals on when a node takes it: the one it was dealing before a restart or
a takeover, from where it stopped, or none (a new shoe then), every other shoe ended.

A shoe is dealt on from the position its last round left it at (``shoes.next_card``: the card
after a settled round's last, or six cards past a round that was voided or lost, so that no
card anyone may have seen is dealt again). A shoe that has no round left to deal, or that
cannot be dealt on (its table runs no more), is ended and its seed revealed; a shoe whose seed
is lost (altered, or begun before seeds were sealed) is ended with the reason, unrevealed, so
that nothing stays in play forever. A shoe sealed with a key this node does not hold
(``keycheck``) is left in play untouched, and its table starts a new shoe: a node with the
right keys file deals it on or reveals it.

A shoe dealt on numbers its rounds after the highest number its record holds, a voided
round's included, so that no two rounds of a shoe share a number. The table's view keeps its
last ended shoe (``last_shoe``) through the restart, read back from the archive.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from baccarat.cards import parse_cards
from baccarat.roads.marks import RoundMark
from baccarat.rules import Outcome
from baccarat.seal import SealError
from baccarat.server.keyfile import Keys
from baccarat.server.tables import keycheck
from baccarat.shoe import DECKS, Shoe, commitment
from baccarat.store import ShoeRecord, Store
from baccarat.store.shoelog import SHOE_BROKEN, SHOE_CLOSED, SHOE_DEALT, SHOE_UNSEALED
from baccarat.table import Table, TableConfig
from baccarat.table.events import ShoeEnded

log = logging.getLogger("baccarat.server")

SHOE_CARDS = 52 * DECKS


@dataclass(frozen=True, slots=True)
class Opened:
    """A shoe whose seed was opened: its record, its seed, its settled rounds' marks."""

    record: ShoeRecord
    seed: bytes
    history: list[RoundMark]


def mark_of(outcome: Mapping[str, Any]) -> RoundMark:
    """A settled round's road mark from its recorded outcome (``store.dealt.StoredOutcome``)."""
    player, banker = (parse_cards(list(outcome[h]["cards"])) for h in ("player", "banker"))
    return RoundMark.from_outcome(Outcome(tuple(player), tuple(banker)))


def _seed_or_loss(store: Store, keys: Keys | None, shoe: ShoeRecord) -> bytes | str | None:
    """The shoe's seed; or why it is lost (``SHOE_BROKEN``, ``SHOE_UNSEALED``); or None when
    this node's keys are not the ones that sealed it."""
    if shoe.sealed_seed is None:
        return SHOE_UNSEALED
    if keys is None:
        return None
    try:
        seed = keys.sealer.open(shoe.sealed_seed, shoe.shoe_id)
    except SealError:
        unopened = keycheck.why(keys.sealer, shoe, store.unended_shoes())
        return None if unopened is not None and unopened.configuration else SHOE_BROKEN
    return seed if commitment(seed) == shoe.commitment else SHOE_BROKEN


def _open(store: Store, keys: Keys | None, shoe: ShoeRecord) -> bytes | None:
    """The shoe's seed; or None after ending it unrevealed (saying why), or after leaving it
    in play untouched when this node's keys are not the ones that sealed it."""
    found = _seed_or_loss(store, keys, shoe)
    if isinstance(found, bytes):
        return found
    ids = {"table_id": shoe.table_id, "shoe_id": shoe.shoe_id}
    if found is None:
        # Its seed is whole: ending it here would lose it for good because of this node's
        # keys file. A node with the right file deals it on or reveals it.
        log.error("shoe left in play: this node's keys do not open its seed", extra=ids)
    else:
        log.error("shoe ended without its seed", extra={**ids, "reason": found})
        store.end_shoe_unrevealed(shoe.shoe_id, found)
    return None


def reveal(store: Store, keys: Keys | None, shoe: ShoeRecord, reason: str) -> Opened | None:
    """End ``shoe`` and reveal its seed (or end it unrevealed when it cannot be opened)."""
    seed = _open(store, keys, shoe)
    if seed is None:
        return None
    store.record_shoe_end(shoe.shoe_id, seed.hex(), reason)
    log.info("shoe ended", extra={"table_id": shoe.table_id, "shoe_id": shoe.shoe_id})
    return Opened(shoe, seed, [mark_of(o) for o in store.shoe_outcomes(shoe.shoe_id)])


@dataclass(frozen=True, slots=True)
class Start:
    """What a table just taken starts from: the shoe it deals on (None: a new one), the
    highest round number that shoe recorded, and the table's last ended shoe."""

    opened: Opened | None
    last_round_no: int
    last_shoe: ShoeEnded | None


def ended(store: Store, shoe: ShoeRecord) -> ShoeEnded:
    """An ended shoe as the table keeps it for its view (上一靴): seed, marks of its rounds."""
    marks = tuple(mark_of(o) for o in store.shoe_outcomes(shoe.shoe_id))
    return ShoeEnded(shoe.shoe_id, shoe.commitment, shoe.seed, marks)


def last_ended(store: Store, table_id: str) -> ShoeEnded | None:
    """The table's newest ended shoe, the one its view shows until the next shoe ends."""
    # (the newest shoe may be the one still dealt; the one before it then ended)
    for shoe, _settled in store.list_shoes(table_id, 2):
        if shoe.ended_at is not None:
            return ended(store, shoe)
    return None


def _open_last(store: Store, keys: Keys | None, table_id: str) -> Opened | None:
    """The table's newest shoe in play, opened, every older one ended; None when there is
    none or it cannot be opened here."""
    shoes = store.unended_shoes(table_id)
    for older in shoes[:-1]:
        reveal(store, keys, older, SHOE_DEALT)
    if not shoes:
        return None
    last = shoes[-1]
    seed = _open(store, keys, last)
    if seed is None:
        return None
    return Opened(last, seed, [mark_of(o) for o in store.shoe_outcomes(last.shoe_id)])


def _deal_on(store: Store, keys: Keys | None, table_id: str, cfg: TableConfig) -> Start:
    opened = _open_last(store, keys, table_id)
    if opened is None:
        return Start(None, 0, last_ended(store, table_id))
    shoe = opened.record
    # A round a crash voided counts: the shoe has numbered it.
    last_no = max(len(opened.history), store.last_round_no(shoe.shoe_id))
    cards_left = SHOE_CARDS - min(shoe.next_card or 0, SHOE_CARDS)
    if last_no < cfg.rounds_per_shoe and cards_left >= cfg.min_cards:
        return Start(opened, last_no, last_ended(store, table_id))
    # No round left to deal: the shoe ends now, and is the table's last (上一靴).
    store.record_shoe_end(shoe.shoe_id, opened.seed.hex(), SHOE_DEALT)
    marks = tuple(opened.history)
    return Start(None, 0, ShoeEnded(shoe.shoe_id, shoe.commitment, opened.seed.hex(), marks))


async def deal_on(
    store: Store, keys: Keys | None, table_id: str, cfg: TableConfig
) -> Callable[[Table], None]:
    """What to give a table just taken, before its first step: the shoe it was dealing, from
    where it stopped, its rounds numbered on after the highest its record holds (a voided
    round's number is not given again); and the table's last ended shoe (上一靴), which is
    the shoe just ended when that one had no round left."""
    start = await asyncio.to_thread(_deal_on, store, keys, table_id, cfg)

    def give(table: Table) -> None:
        table.last_shoe = start.last_shoe
        if start.opened is None:
            return
        shoe = start.opened.record
        dealt = min(shoe.next_card or 0, SHOE_CARDS)
        table.resume_shoe(
            shoe.shoe_id,
            Shoe.from_seed(start.opened.seed, dealt=dealt),
            start.opened.history,
            start.last_round_no,
        )
        log.info(
            "shoe dealt on",
            extra={"table_id": table_id, "shoe_id": shoe.shoe_id, "from_card": dealt},
        )

    return give


def close_gone_tables(store: Store, keys: Keys | None, table_ids: set[str]) -> int:
    """End the shoes of tables that are run no more (not in ``table_ids``); how many."""
    gone = [s for s in store.unended_shoes() if s.table_id not in table_ids]
    for shoe in gone:
        reveal(store, keys, shoe, SHOE_CLOSED)
    return len(gone)

"""Ended shoes written into a test server's archive, as the table that dealt them would have.

A real shoe takes 78 rounds to end; the fairness tests write a short one through the store
instead: its start, its rounds (a voided one's cards drawn and dropped, as when a server stops
mid-squeeze; a crashed one's too, the next round dealt six places past its first card), its end
and seed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from e2e_support import Server, create_account

from baccarat.protocol import values
from baccarat.shoe import commitment, new_seed, shuffled_cards

MAX_ROUND_CARDS = 6
"""A crashed round may have shown this many cards: the round after it starts this far on."""


@dataclass
class ArchivedShoe:
    """An ended shoe of the archive: its id and seed, and each round as the table dealt it."""

    shoe_id: str
    seed: bytes
    dealt: list[list[str]]
    """Each round's cards as the archive keeps them (none for a voided round)."""
    first_cards: list[int]
    """Where each round's cards started in the shoe, from 0 (a voided round's too)."""
    drawn: list[int]
    """How many cards each round drew (a voided round's were dropped)."""

    @property
    def commitment(self) -> str:
        return commitment(self.seed)

    @property
    def order(self) -> list[str]:
        return [str(c) for c in shuffled_cards(self.seed)]


def archived_shoe(
    server: Server,
    table: str,
    rounds: int,
    voided: tuple[int, ...] = (),
    signer: Any = None,
    crashed: tuple[int, ...] = (),
) -> ArchivedShoe:
    """An ended shoe of ``table`` with ``rounds`` rounds, written through the store into the
    server's database; the rounds numbered in ``voided`` were voided after their cards were
    drawn (their cards dropped), the others settled. With ``signer`` (the server's log key) its
    commitment is appended to the commitment log, as a table does; without, it is a shoe dealt
    before the log existed.

    The rounds counted in ``crashed`` were left in escrow by a crash after their cards were
    drawn, and voided: the round after each starts six places past its first card, under the
    same number (as a version that gave a crashed round's number again did) and with an id that
    sorts before the crashed round's. Such a shoe records every round's ``first_card``."""
    from baccarat.cards import parse_cards
    from baccarat.rules import deal
    from baccarat.settlement import settle
    from baccarat.store import BetRecord, open_store

    seed = new_seed()
    shoe = ArchivedShoe(f"archived-{seed.hex()[:12]}", seed, [], [], [])
    order = shoe.order
    at = 0
    store = open_store(server.db)
    try:
        dealer = store.get_user_by_name(create_account(server, f"arch{seed.hex()[:6]}d"))
        bettor = store.get_user_by_name(create_account(server, f"arch{seed.hex()[:6]}b"))
        store.record_shoe_start(shoe.shoe_id, table, shoe.commitment, signer=signer)
        # (written as the node that runs the table: the ledger takes that node's epoch only)
        epoch = store.epoch_of(table)
        for no in range(1, rounds + 1):
            bets = [BetRecord(bettor.user_id, "banker", 1, 1_000, time.time())]
            rid = f"{shoe.shoe_id}-{'x' if no in crashed else ''}{no}"
            number = no - sum(1 for c in crashed if c < no)
            first = at if crashed else None
            store.escrow_round(
                rid,
                table,
                shoe.shoe_id,
                number,
                dealer.user_id,
                bets,
                epoch=epoch,
                first_card=first,
            )
            outcome = deal(iter(parse_cards(order[at:])).__next__)
            cards = order[at : at + len(outcome.player) + len(outcome.banker)]
            shoe.first_cards.append(at)
            shoe.drawn.append(len(cards))
            at += MAX_ROUND_CARDS if no in crashed else len(cards)
            if no in voided or no in crashed:
                store.void_round(rid, epoch=epoch)
                shoe.dealt.append([])
                continue
            result = settle(outcome, dealer.user_id, {bettor.user_id: {"banker": 1_000}})
            store.settle_round(
                rid,
                cards,
                values.outcome(outcome),
                result.deltas,
                result.commission,
                result.house,
                epoch=epoch,
            )
            shoe.dealt.append(cards)
        store.record_shoe_end(shoe.shoe_id, seed.hex())
    finally:
        store.close()
    return shoe

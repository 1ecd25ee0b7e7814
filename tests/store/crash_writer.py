"""A process that plays rounds into a store until it is killed (used by the crash test).

Usage: python crash_writer.py URL SEED. It voids what a previous run left escrowed, prints
``ready``, then runs rounds from four threads forever: random bets, real cards from a
fresh shoe, escrow then settle (sometimes a void instead).
"""

from __future__ import annotations

import random
import sys
import threading
import time
import uuid

from argon2 import PasswordHasher, profiles

from baccarat.bets import AREAS
from baccarat.cards import Card
from baccarat.errors import BaccaratError, Conflict
from baccarat.protocol import values
from baccarat.rules import deal
from baccarat.settlement import settle
from baccarat.shoe import Shoe
from baccarat.store import BetRecord, Store, User, open_store

BETTORS = 7


def _account(store: Store, name: str, coins: int) -> User:
    try:
        return store.create_user(name, "pw", coins=coins)
    except Conflict:
        return store.get_user_by_name(name)


def _play(store: Store, rng: random.Random, dealer: User, bettors: list[User]) -> None:
    shoe = Shoe.fresh()
    while True:
        rid = uuid.uuid4().hex
        now = time.time()
        bets = [
            BetRecord(b.user_id, rng.choice(AREAS), n, n * 100, now)
            for b in rng.sample(bettors, rng.randint(0, len(bettors)))
            for n in [rng.choice((1, 2, 3, 5, 10))]
        ]
        try:
            store.escrow_round(rid, "crash", "shoe", 1, dealer.user_id, bets)
        except BaccaratError:
            store.grant(bettors[0].username, 10_000, "refill")
            continue
        if shoe.remaining < 6:
            shoe = Shoe.fresh()
        drawn: list[str] = []

        def draw(shoe: Shoe = shoe, drawn: list[str] = drawn) -> Card:
            card = shoe.draw()
            drawn.append(str(card))
            return card

        outcome = deal(draw)
        if rng.random() < 0.1:
            store.void_round(rid)
            continue
        stakes: dict[int, dict[str, int]] = {}
        for b in bets:
            stakes.setdefault(b.user_id, {})[b.area] = b.coins
        result = settle(outcome, dealer.user_id, stakes)  # type: ignore[arg-type]
        try:
            store.settle_round(
                rid, drawn, values.outcome(outcome), result.deltas, result.commission, result.house
            )
        except BaccaratError:
            store.void_round(rid)


def main() -> None:
    url, seed = sys.argv[1], int(sys.argv[2])
    store = open_store(url, hasher=PasswordHasher.from_parameters(profiles.CHEAPEST))
    store.void_unfinished()
    dealer = _account(store, "dealer", 10_000_000)
    bettors = [_account(store, f"bettor{i}", 50_000) for i in range(BETTORS)]
    print("ready", flush=True)
    threads = [
        threading.Thread(
            target=_play, args=(store, random.Random(seed * 10 + i), dealer, bettors), daemon=True
        )
        for i in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()

"""A whole table: a dealer and seven bettors over several shoes, on a fake clock."""

from __future__ import annotations

import itertools
import random

from table_model import AREAS, CHIPS, CORNERS, Model

from baccarat.shoe import Shoe, commitment, shuffled_cards
from baccarat.table import OpenCard, PlaceChip, SqueezeProgress, TableConfig, Urge
from baccarat.table.events import RoundSettled, ShoeEnded

DEALER = 1
BETTORS = list(range(2, 9))


def seat_everyone(m: Model) -> None:
    """Whoever is not seated sits in their own seat, if the rules let them."""
    if m.table.occupant(DEALER) is None:
        m.sit(DEALER, 0)
    for uid in BETTORS:
        if m.table.occupant(uid) is None:
            m.sit(uid, uid - 1)


def play_round(m: Model, rng: random.Random) -> None:
    """Bots bet, the dealer urges, controllers squeeze or let the countdown open the card."""
    table = m.table
    assert table.phase == "betting", table.phase
    if rng.random() < 0.3:
        m.do(Urge(DEALER))
    for uid in BETTORS:
        # Bettors 7 and 8 rarely bet, so the idle rule removes them now and then.
        if rng.random() < (0.15 if uid >= 7 else 0.85):
            for _ in range(rng.randint(1, 4)):
                m.do(PlaceChip(uid, rng.choice(AREAS), rng.choice(CHIPS)))
    m.advance(table.config.betting_seconds)
    while table.phase == "squeeze":
        rnd = table.round
        assert rnd is not None and rnd.squeeze is not None
        sq = rnd.squeeze
        choice = rng.random()
        if choice < 0.6:
            for step in (0.25, 0.5, 0.75):
                m.do(SqueezeProgress(sq.controller, sq.hand, step, rng.choice(CORNERS)))
            m.do(OpenCard(sq.controller, sq.hand))
        elif choice < 0.8:
            m.do(OpenCard(sq.controller, sq.hand))
        else:
            m.advance(table.config.squeeze_seconds)
    assert table.phase == "result"
    m.advance(table.config.result_seconds)
    if table.phase == "shuffling":
        m.advance(table.config.shuffle_seconds)
    seat_everyone(m)


def test_a_dealer_and_seven_bettors_over_several_short_shoes() -> None:
    rng = random.Random(2026)
    wallets = {DEALER: 1_000_000, **{uid: 60_000 for uid in BETTORS}}
    seeds = (bytes([n]) * 32 for n in itertools.count(1))
    m = Model(
        TableConfig("sim", rounds_per_shoe=3),
        wallets,
        shoe_factory=lambda: Shoe.from_seed(next(seeds)),
    )
    seat_everyone(m)
    for _ in range(30):
        play_round(m, rng)
    m.finish()
    assert m.kinds["round_settled"] == 30
    assert m.kinds["shoe_ended"] == 10
    assert m.freed()["idle"] > 0
    assert m.rejections["urge_cooling_down"] + m.kinds["urged"] > 0


def test_one_full_shoe_of_seventy_eight_rounds_replays_from_its_revealed_seed() -> None:
    rng = random.Random(78)
    wallets = {DEALER: 10_000_000, **{uid: 1_000_000 for uid in BETTORS}}
    seed = bytes(range(32))
    m = Model(TableConfig("full"), wallets, shoe_factory=lambda: Shoe.from_seed(seed))
    seat_everyone(m)
    cards: list[str] = []
    for round_no in range(1, 79):
        play_round(m, rng)
        settled = m.last(RoundSettled)
        assert settled.round_no == round_no
        cards += [str(c) for c in settled.cards]
        if round_no < 78:
            assert len(m.table.history) == round_no
    assert m.table.phase == "betting" and m.kinds["shoe_ended"] == 1
    ended = m.last(ShoeEnded)
    assert ended.commitment == commitment(seed) and ended.seed == seed.hex()
    # Anyone can recompute every card dealt from the revealed seed.
    replay = [str(c) for c in shuffled_cards(bytes.fromhex(ended.seed))]
    assert cards == replay[: len(cards)]
    assert m.table.history == []
    m.finish()

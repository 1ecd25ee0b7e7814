"""The vectorised simulator against the rules, shoe ends, determinism and sanity."""

import hashlib
import math

import numpy as np
import pytest

from baccarat.odds import ODDS_KEYS, exact_odds
from baccarat.rules import deal
from baccarat.shoe import MIN_CARDS_TO_DEAL, ROUNDS_PER_SHOE, Shoe, shuffled_cards
from baccarat.simulate import MIN_ROUNDS_PER_SHOE, describe, play_shoes, simulate, tally


def _table_rounds(seed: bytes) -> list[tuple[str, bool, bool]]:
    """Deal a shoe as a table does, through rules.deal, one round at a time."""
    shoe = Shoe.from_seed(seed)
    out = []
    for _ in range(ROUNDS_PER_SHOE):
        if shoe.remaining < MIN_CARDS_TO_DEAL:
            break
        outcome = deal(shoe.draw)
        out.append((outcome.winner, outcome.player_pair, outcome.banker_pair))
    return out


def test_vectorised_rounds_match_the_rules_round_by_round() -> None:
    seeds = [hashlib.sha256(bytes([i])).digest() for i in range(12)]
    ranks = np.array([[c.rank for c in shuffled_cards(s)] for s in seeds], dtype=np.int8)
    codes = play_shoes(ranks)
    expected = [r for s in seeds for r in _table_rounds(s)]
    assert [describe(int(c)) for c in codes] == expected


def test_shoe_of_six_card_rounds_ends_when_fewer_than_six_cards_remain() -> None:
    # Aces only: Player 2 draws, Banker 2 always draws: every round takes 6 cards,
    # so after 69 rounds 2 cards remain and the shoe ends early. Every round ties 3-3
    # with both pairs.
    codes = play_shoes(np.ones((1, 416), dtype=np.int8))
    assert len(codes) == MIN_ROUNDS_PER_SHOE == 69
    assert {describe(int(c)) for c in codes} == {("tie", True, True)}


def test_shoe_of_naturals_stops_after_78_rounds() -> None:
    # Fours only: Player 8 is a natural every round, 4 cards a round.
    codes = play_shoes(np.full((2, 416), 4, dtype=np.int8))
    assert len(codes) == 2 * ROUNDS_PER_SHOE


def test_same_seed_gives_the_same_counts_whatever_the_processes() -> None:
    one = simulate(200_000, seed=11, processes=1)
    two = simulate(200_000, seed=11, processes=2)
    assert one == two
    assert one.rounds == 200_000
    assert one != simulate(200_000, seed=12)


def test_rounds_are_a_prefix_of_the_run() -> None:
    short = simulate(1_000, seed=3)
    long = simulate(100_000, seed=3)
    assert short.rounds == 1_000
    assert all(short.counts[a] <= long.counts[a] for a in ODDS_KEYS)
    assert short.counts["banker"] + short.counts["player"] + short.counts["tie"] == 1_000


def test_observed_frequencies_are_close_to_the_exact_odds() -> None:
    # 400,000 rounds: each frequency within 6 standard errors of the fresh-shoe odds
    # (shoe depletion moves them far less than that).
    result = simulate(400_000, seed=2024)
    odds = exact_odds(8)
    for area in ODDS_KEYS:
        p = float(odds.probability(area))
        se = math.sqrt(p * (1 - p) / result.rounds)
        assert result.observed()[area] == pytest.approx(p, abs=6 * se)


def test_tally_counts_each_code() -> None:
    codes = np.array([0, 1, 2, 2 | 4, 0 | 8, 1 | 4 | 8], dtype=np.int8)
    t = tally(codes)
    assert t.rounds == 6
    assert t.counts == {"banker": 2, "player": 2, "tie": 2, "player_pair": 2, "banker_pair": 2}

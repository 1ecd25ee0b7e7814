"""Long random games on a fake clock: the table's invariants hold at every step, and the games
reach every rule.

The property over short random sequences, which shrinks a failure to a few commands, is the
state machine in ``test_table_reducer``: it checks the same invariants after every step.
"""

from __future__ import annotations

import random
from collections import Counter

from table_model import Model, random_step

from baccarat.table import TableConfig

WALLETS = {
    1: 36_000,
    2: 50_000,
    3: 100_000,
    4: 1_000,
    5: 1_500,
    6: 2_500,
    7: 5_000,
    8: 20_000,
    9: 100_000,
}
"""Some near the floors so that settlements push them out; user 9 is below the level."""


def config(**settings: object) -> TableConfig:
    base: dict[str, object] = {
        "rounds_per_shoe": 3,
        "reconnect_grace_seconds": 30.0,
        "dealer_floor": 3_000,
    }
    base.update(settings)
    return TableConfig("t", **base)  # type: ignore[arg-type]


def test_long_random_games_exercise_every_rule() -> None:
    kinds: Counter[str] = Counter()
    rejections: Counter[str] = Counter()
    for seed in (7, 8, 9):
        rng = random.Random(seed)
        m = Model(config(dealer_floor=35_000), WALLETS, shoe_seed=seed)
        for _ in range(3_000):
            random_step(m, rng, list(WALLETS))
        m.finish()
        kinds += m.kinds
        rejections += m.rejections
    for kind in (
        "round_settled",
        "dealer_leaving",
        "shoe_ended",
        "squeeze_started",
        "squeeze_progress",
        "urged",
        "bets_cleared",
        "bets_changed",
    ):
        assert kinds[kind] > 0, kind
    for code in (
        "level_too_low",
        "coins_below_floor",
        "seat_taken",
        "bad_seat",
        "over_limit",
        "not_controller",
        "betting_closed",
        "urge_cooling_down",
    ):
        assert rejections[code] > 0, code


def test_a_dealer_with_a_low_floor_is_never_booked_beyond_their_coins() -> None:
    rng = random.Random(11)
    small = {uid: 1_000 * (uid + 1) for uid in WALLETS}
    m = Model(config(dealer_floor=1_000), small, shoe_seed=11)
    for _ in range(4_000):
        random_step(m, rng, list(small), grants=(1_000, 2_000, 4_000))
    m.finish()
    assert m.kinds["round_settled"] > 20
    assert m.rejections["dealer_cannot_cover"] > 0

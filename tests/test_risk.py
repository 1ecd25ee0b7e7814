"""The risk scorer: 對打 and chip dumping are flagged on made-up play, honest play never, and
never an honest bystander at the made-up play's table."""

from __future__ import annotations

import pytest

from baccarat import risk
from baccarat.risk import DUMPING, HEDGE, RoundFacts, score_pairs
from baccarat.settlement import settle
from risk_play import Pattern, dumping_to, hedging, honest_play, made_up, outcomes

SAME = frozenset({"198.51.100.7"})
HONEST = range(1, 13)
"""The simulation's twelve honest accounts; the made-up patterns' accounts are apart."""
PATTERNS = (
    Pattern(70, hedging(101, 102)),
    Pattern(201, dumping_to(202)),
    Pattern(50, dumping_to(302, 301)),
    Pattern(60, dumping_to(None, 401)),
)
"""Each made-up pattern at a table of its own, honest bettors seated beside it: a hedging
pair; a bettor winning from the dealer; a bettor losing to another (each against the dealer
too); a bettor losing to the dealer round after round."""


@pytest.fixture(scope="module")
def play() -> list[RoundFacts]:
    return honest_play(10_000, patterns=PATTERNS)


@pytest.fixture(scope="module")
def scores(play: list[RoundFacts]) -> list[risk.PairScore]:
    return score_pairs(play, {1: SAME, 2: SAME})


def _score(scores: list[risk.PairScore], pattern: str, a: int, b: int) -> risk.PairScore:
    return next(s for s in scores if (s.pattern, s.a, s.b) == (pattern, a, b))


def _honest(play: list[RoundFacts]) -> list[RoundFacts]:
    return [r for r in play if r.table_id.startswith("t")]


def test_every_pattern_is_flagged_over_ten_thousand_rounds_and_no_honest_bystander(
    play: list[RoundFacts], scores: list[risk.PairScore]
) -> None:
    # 10,000 rounds at six tables: four of them each hold a pattern, with three to seven of
    # the twelve honest bettors seated beside it.
    assert len(play) == 10_000
    beside = [sum(u in HONEST for u in r.positions) for r in play if r.table_id[0] == "p"]
    assert len(beside) > 6000 and sum(beside) / len(beside) > 3
    got = {(s.pattern, s.a, s.b) for s in scores if s.flagged}
    assert got == {
        (HEDGE, 101, 102),
        (DUMPING, 201, 202),
        (DUMPING, 301, 302),
        (DUMPING, 50, 301),  # each of the two against their dealer, too
        (DUMPING, 50, 302),
        (HEDGE, 301, 302),  # opposite sides with matched stakes every round: 對打 as well
        (DUMPING, 60, 401),
    }
    # The honest bettors who faced the bettor who always loses won their share by chance.
    by = [s for s in scores if s.pattern == DUMPING and 401 in (s.a, s.b) and s.a in HONEST]
    assert len(by) == 12 and all(abs(s.z) > 5 and s.score < 4 for s in by)
    assert max(s.score for s in scores if s.a in HONEST or s.b in HONEST) < 4


def test_honest_pairs_look_like_fair_play(scores: list[risk.PairScore]) -> None:
    honest = [s for s in scores if s.a in HONEST and s.b in HONEST]
    assert not any(s.flagged for s in honest) and max(s.score for s in honest) < 4
    shares = [s.hits / s.rounds for s in honest if s.pattern == HEDGE and s.rounds >= 20]
    assert len(shares) >= 50 and max(shares) < 0.6
    # Under fair play the pairs' flow z-scores spread like a standard normal's.
    zs = [s.z for s in honest if s.pattern == DUMPING and s.rounds >= 100]
    assert len(zs) >= 50
    mean = sum(zs) / len(zs)
    spread = (sum((z - mean) ** 2 for z in zs) / len(zs)) ** 0.5
    assert abs(mean) < 0.5 and 0.6 < spread < 1.4


def test_hedged_rounds_among_honest_play_are_flagged(play: list[RoundFacts]) -> None:
    rounds = _honest(play)[:3000] + made_up(40, 1, 5, hedging(101, 102))
    scores = score_pairs(rounds, {101: SAME, 102: SAME})
    top = scores[0]
    assert (top.pattern, top.a, top.b, top.flagged) == (HEDGE, 101, 102, True)
    assert (top.rounds, top.hits) == (40, 40)
    assert top.score == pytest.approx(9.49, abs=0.01)
    assert len(top.evidence) == 40
    assert [s for s in scores if s.flagged] == [top]


def test_one_address_weighs_a_short_hedge_over_the_line() -> None:
    rounds = made_up(20, 4, 5, hedging(101, 102))
    apart = _score(score_pairs(rounds, {101: SAME}), HEDGE, 101, 102)
    together = _score(score_pairs(rounds, {101: SAME, 102: SAME}), HEDGE, 101, 102)
    assert (apart.score, apart.flagged) == (pytest.approx(4.47, abs=0.01), False)
    assert (together.score, together.flagged) == (pytest.approx(6.71, abs=0.01), True)


def test_a_hedge_needs_matched_stakes() -> None:
    assert risk.hedged(1000, -900) and risk.hedged(-500, 400)
    assert not risk.hedged(1000, -700) and not risk.hedged(500, 500) and not risk.hedged(0, -100)


def test_two_bettors_pass_coins_only_through_opposite_stakes_up_to_the_smaller() -> None:
    assert risk.between(-300, 500) == 300 and risk.between(500, -300) == -300
    assert risk.between(500, 700) == 0 and risk.between(-200, -900) == 0
    assert risk.between(0, 500) == 0


def test_a_bettor_winning_from_one_dealer_beyond_chance_is_flagged(
    play: list[RoundFacts],
) -> None:
    rounds = _honest(play)[:3000] + made_up(40, 2, 201, dumping_to(202))
    top = score_pairs(rounds)[0]
    assert (top.pattern, top.a, top.b, top.flagged) == (DUMPING, 201, 202, True)
    assert top.z == pytest.approx(5.48, abs=0.01) and top.flow > 0 and top.hits == 35
    assert (top.a_z, top.b_z) == (pytest.approx(-5.48, abs=0.01), pytest.approx(5.48, abs=0.01))
    assert top.evidence[0].flow > 0 and top.evidence[0].round_no >= 1


def test_coins_from_one_bettor_to_another_are_flagged() -> None:
    rounds = made_up(40, 3, 50, dumping_to(302, 301))
    dump = _score(score_pairs(rounds), DUMPING, 301, 302)
    assert dump.flagged and dump.z > 5 and dump.flow > 0
    assert dump.a_z < -5 and dump.b_z > 5


def test_a_bystander_facing_a_bettor_who_always_loses_is_not_flagged() -> None:
    # 7 always loses to the dealer 9; 8 bets the same 500 on Player every round, so faces 7
    # exactly when Player wins (or on a tie): every coin between them went 7 -> 8, and yet 8
    # won only as often as the cards say.
    rounds = made_up(200, 6, 9, lambda rng, o: dumping_to(None, 7)(rng, o) | {8: {"player": 500}})
    scores = score_pairs(rounds)
    assert _score(scores, DUMPING, 7, 9).flagged
    bystander = _score(scores, DUMPING, 7, 8)
    assert bystander.z > 5 and all(e.flow >= 0 for e in bystander.evidence)
    assert abs(bystander.b_z) < 3 and bystander.score < 3 and not bystander.flagged
    assert not _score(scores, DUMPING, 8, 9).flagged


def test_a_short_streak_is_not_enough() -> None:
    # Below the rounds a verdict needs, even a bettor who always wins is not flagged.
    dump = _score(score_pairs(made_up(25, 2, 201, dumping_to(202))), DUMPING, 201, 202)
    assert dump.z > 4 and not dump.flagged


def test_the_flow_model_is_the_settlement_of_player_and_banker() -> None:
    # A round's flow from the dealer to each bettor is what settlement books between them.
    for n, o in zip(range(200), outcomes(9), strict=False):
        result = settle(o, 0, {1: {"player": 300}, 2: {"banker": 500}})
        booked = {u: result.results[u]["player" if u == 1 else "banker"] for u in (1, 2)}
        facts = RoundFacts(f"r{n}", "t", n + 1, 0.0, 0, o.winner, {1: 300, 2: -500})
        scores = score_pairs([facts])
        flows = {b: _score(scores, DUMPING, 0, b).flow for b in (1, 2)}
        assert flows == booked
        # Between the two bettors: the 300 of each that met the other's.
        assert _score(scores, DUMPING, 1, 2).flow == 300 * risk.sign(o.winner) * -1

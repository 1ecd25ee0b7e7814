"""The risk scorer: 對打 and chip dumping are flagged on made-up play, honest play never."""

from __future__ import annotations

import pytest

from baccarat import risk
from baccarat.risk import DUMPING, HEDGE, RoundFacts, score_pairs
from baccarat.settlement import settle
from risk_play import dumping_to, hedging, honest_play, made_up, outcomes

SAME = frozenset({"198.51.100.7"})


@pytest.fixture(scope="module")
def honest() -> list[RoundFacts]:
    return honest_play(10_000)


def _score(scores: list[risk.PairScore], pattern: str, a: int, b: int) -> risk.PairScore:
    return next(s for s in scores if (s.pattern, s.a, s.b) == (pattern, a, b))


def test_no_pair_is_flagged_in_ten_thousand_honest_rounds(honest: list[RoundFacts]) -> None:
    # Twelve bettors with random strategies, two of them from one address, 10,000 rounds.
    scores = score_pairs(honest, {1: SAME, 2: SAME})
    assert len(honest) == 10_000
    assert risk.flagged(scores) == {HEDGE: 0, DUMPING: 0}
    assert max(s.score for s in scores) < 4.0
    shares = [s.hits / s.rounds for s in scores if s.pattern == HEDGE and s.rounds >= 20]
    assert len(shares) >= 50 and max(shares) < 0.6


def test_honest_flows_look_like_fair_play(honest: list[RoundFacts]) -> None:
    # Under fair play the pairs' z-scores spread like a standard normal's.
    zs = [s.z for s in score_pairs(honest) if s.pattern == DUMPING and s.rounds >= 100]
    assert len(zs) >= 50
    mean = sum(zs) / len(zs)
    spread = (sum((z - mean) ** 2 for z in zs) / len(zs)) ** 0.5
    assert abs(mean) < 0.5 and 0.6 < spread < 1.4


def test_hedged_rounds_among_honest_play_are_flagged(honest: list[RoundFacts]) -> None:
    rounds = honest[:3000] + made_up(40, 1, 5, hedging(101, 102))
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


def test_a_bettor_winning_from_one_dealer_beyond_chance_is_flagged(
    honest: list[RoundFacts],
) -> None:
    rounds = honest[:3000] + made_up(40, 2, 201, dumping_to(202))
    top = score_pairs(rounds)[0]
    assert (top.pattern, top.a, top.b, top.flagged) == (DUMPING, 201, 202, True)
    assert top.z == pytest.approx(5.48, abs=0.01) and top.flow > 0 and top.hits == 35
    assert top.evidence[0].flow > 0


def test_coins_from_one_bettor_to_another_are_flagged() -> None:
    rounds = made_up(40, 3, 50, dumping_to(302, 301))
    dump = _score(score_pairs(rounds), DUMPING, 301, 302)
    assert dump.flagged and dump.z > 5 and dump.flow > 0


def test_a_short_streak_is_not_enough() -> None:
    # Below the rounds a verdict needs, even a bettor who always wins is not flagged.
    dump = _score(score_pairs(made_up(25, 2, 201, dumping_to(202))), DUMPING, 201, 202)
    assert dump.z > 4 and not dump.flagged


def test_the_flow_model_is_the_settlement_of_player_and_banker() -> None:
    # A round's flow from the dealer to each bettor is what settlement books between them.
    for _, o in zip(range(200), outcomes(9), strict=False):
        result = settle(o, 0, {1: {"player": 300}, 2: {"banker": 500}})
        booked = {u: result.results[u]["player" if u == 1 else "banker"] for u in (1, 2)}
        facts = RoundFacts("r", "t", 0.0, 0, o.winner, {1: 300, 2: -500})
        flows = {b: c * risk.sign(o.winner) for a, b, c in risk._flows(facts) if a == 0}
        assert flows == booked

"""The risk scorer: pairs of accounts whose shared rounds look arranged (docs/deployment.md,
"Risks: 對打 and chip dumping").

Two patterns, each a test against fair play with its thresholds here:

- **對打 (hedge)**: two bettors of one round on opposite sides (one's Player against the
  other's Banker) with matched stakes, round after round: together they carry no risk and
  farm turnover. Two bettors who pick their sides without looking at each other land on
  opposite sides about half the time, and with matched stakes less often still; the score
  is the z-score of the hedged rounds against that half (a binomial test), weighed up when
  the two logged in from one address.
- **chip dumping**: coins flowing one way between two accounts (a dealer and a bettor, or
  two bettors) beyond what the cards explain. On a fair shoe a round's flow is a fixed
  coefficient (the stakes) times the result (+1 Player, -1 Banker, 0 Tie), whose mean and
  variance the exact 8-deck odds give; the score is the z-score of the summed flow over the
  pair's shared rounds.

Pure: it reads rounds as :class:`RoundFacts` and returns :class:`PairScore` values.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations

from baccarat.odds import exact_odds

HEDGE_CHANCE = 0.5
"""How often two bettors who choose sides independently at random are on opposite sides: the
reference the hedged rounds are tested against (matched stakes make it rarer still)."""
HEDGE_MATCH = 0.8
"""Stakes are matched when the smaller is at least this share of the larger."""
HEDGE_MIN_ROUNDS = 20
"""Shared rounds (both with a stake on Player or Banker) before a pair can be flagged."""
HEDGE_MIN_SHARE = 0.75
"""The share of those rounds that must be hedged: a large effect, not only a significant one."""
HEDGE_FLAG = 5.0
"""The score that flags a pair: the hedged rounds' z-score, times :data:`ADDRESS_WEIGHT`."""
ADDRESS_WEIGHT = 1.5
"""A hedging pair that logged in from one address weighs this much more."""
DUMP_MIN_ROUNDS = 30
"""Shared rounds with a flow between the two before a pair can be flagged for dumping."""
DUMP_FLAG = 5.0
"""The |z| of the flow that flags a pair (two-sided p < 6e-7 under fair play)."""

HEDGE = "hedge"
DUMPING = "dumping"


@dataclass(frozen=True, slots=True)
class RoundFacts:
    """What the scorer reads of a settled round: who dealt, the winner, and each bettor's
    position (coins on Player minus coins on Banker; Tie and the Pairs are the house's)."""

    round_id: str
    table_id: str
    at: float
    dealer_id: int
    winner: str
    """``player``, ``banker`` or ``tie``."""
    positions: Mapping[int, int]


@dataclass(frozen=True, slots=True)
class Evidence:
    """One shared round of a pair: each one's position, and the coins from ``a`` to ``b``."""

    round_id: str
    table_id: str
    at: float
    a_position: int
    b_position: int
    flow: int


@dataclass(frozen=True, slots=True)
class PairScore:
    """A pair's score for one pattern (``a`` < ``b``)."""

    pattern: str
    a: int
    b: int
    rounds: int
    hits: int
    """Hedge: the hedged rounds. Dumping: the rounds the flow went from a to b."""
    flow: int
    """Hedge: the turnover of the hedged rounds (both stakes). Dumping: coins from a to b."""
    z: float
    score: float
    flagged: bool
    shared_address: bool
    evidence: tuple[Evidence, ...] = field(default=())

    def json(self) -> dict[str, object]:
        """The score as JSON-ready data (evidence included)."""
        return {
            "pattern": self.pattern,
            "a": self.a,
            "b": self.b,
            "rounds": self.rounds,
            "hits": self.hits,
            "flow": self.flow,
            "z": round(self.z, 2),
            "score": round(self.score, 2),
            "flagged": self.flagged,
            "shared_address": self.shared_address,
            "evidence": [
                {
                    "round_id": e.round_id,
                    "table_id": e.table_id,
                    "at": e.at,
                    "a_position": e.a_position,
                    "b_position": e.b_position,
                    "flow": e.flow,
                }
                for e in self.evidence
            ],
        }


@cache
def result_moments() -> tuple[float, float]:
    """The mean and variance of a round's result (+1 Player, -1 Banker, 0 Tie), 8 decks."""
    odds = exact_odds(8)
    player, banker = float(odds.probability("player")), float(odds.probability("banker"))
    mean = player - banker
    return mean, player + banker - mean * mean


def sign(winner: str) -> int:
    """A round's result as the flow's sign: +1 Player, -1 Banker, 0 Tie."""
    return 1 if winner == "player" else -1 if winner == "banker" else 0


def hedged(x: int, y: int) -> bool:
    """Two positions on opposite sides with stakes matched within :data:`HEDGE_MATCH`."""
    if x * y >= 0:
        return False
    small, large = sorted((abs(x), abs(y)))
    return small >= HEDGE_MATCH * large


@dataclass(slots=True)
class _Tally:
    rounds: int = 0
    hits: int = 0
    flow: int = 0
    mean: float = 0.0
    variance: float = 0.0
    evidence: list[Evidence] = field(default_factory=list)


def _flows(r: RoundFacts) -> Iterable[tuple[int, int, int]]:
    """Each pair of the round with a flow between them, as (a, b, coefficient): the coins
    from a to b are the coefficient times the result's sign."""
    bettors = sorted(u for u, p in r.positions.items() if p and u != r.dealer_id)
    for u in bettors:
        # The dealer pays a bettor's Player and Banker results.
        c = r.positions[u]
        yield (r.dealer_id, u, c) if r.dealer_id < u else (u, r.dealer_id, -c)
    for a, b in combinations(bettors, 2):
        # Between two bettors, half the difference of their results: what one lost to the
        # dealer and the dealer paid the other.
        diff = r.positions[b] - r.positions[a]
        if diff:
            half = abs(diff) // 2
            yield a, b, half if diff > 0 else -half


def _tally_hedges(rounds: Iterable[RoundFacts]) -> dict[tuple[int, int], _Tally]:
    found: dict[tuple[int, int], _Tally] = {}
    for r in rounds:
        bettors = sorted(u for u, p in r.positions.items() if p and u != r.dealer_id)
        for a, b in combinations(bettors, 2):
            tally = found.setdefault((a, b), _Tally())
            tally.rounds += 1
            x, y = r.positions[a], r.positions[b]
            if hedged(x, y):
                tally.hits += 1
                tally.flow += abs(x) + abs(y)
                tally.evidence.append(Evidence(r.round_id, r.table_id, r.at, x, y, 0))
    return found


def _tally_flows(rounds: Iterable[RoundFacts]) -> dict[tuple[int, int], _Tally]:
    mean, variance = result_moments()
    found: dict[tuple[int, int], _Tally] = {}
    for r in rounds:
        s = sign(r.winner)
        for a, b, c in _flows(r):
            tally = found.setdefault((a, b), _Tally())
            tally.rounds += 1
            tally.flow += c * s
            tally.hits += c * s > 0
            tally.mean += c * mean
            tally.variance += c * c * variance
            pa = r.positions.get(a, 0) if a != r.dealer_id else 0
            pb = r.positions.get(b, 0) if b != r.dealer_id else 0
            tally.evidence.append(Evidence(r.round_id, r.table_id, r.at, pa, pb, c * s))
    return found


def _hedge_score(pair: tuple[int, int], t: _Tally, shared: bool) -> PairScore:
    n, k = t.rounds, t.hits
    z = (k - n * HEDGE_CHANCE) / math.sqrt(n * HEDGE_CHANCE * (1 - HEDGE_CHANCE))
    score = z * (ADDRESS_WEIGHT if shared and z > 0 else 1.0)
    flagged = n >= HEDGE_MIN_ROUNDS and k >= HEDGE_MIN_SHARE * n and score >= HEDGE_FLAG
    return PairScore(HEDGE, *pair, n, k, t.flow, z, score, flagged, shared, tuple(t.evidence))


def _dump_score(pair: tuple[int, int], t: _Tally, shared: bool) -> PairScore:
    z = (t.flow - t.mean) / math.sqrt(t.variance) if t.variance > 0 else 0.0
    flagged = t.rounds >= DUMP_MIN_ROUNDS and abs(z) >= DUMP_FLAG
    # The rounds that carried the most coins the pair's way come first.
    way = 1 if z >= 0 else -1
    evidence = sorted(t.evidence, key=lambda e: -e.flow * way)
    return PairScore(
        DUMPING, *pair, t.rounds, t.hits, t.flow, z, abs(z), flagged, shared, tuple(evidence)
    )


def score_pairs(
    rounds: Iterable[RoundFacts], addresses: Mapping[int, frozenset[str]] | None = None
) -> list[PairScore]:
    """Every pair's hedge and dumping scores over ``rounds``, highest score first;
    ``addresses`` names each account's login addresses (a shared one weighs a hedge up)."""
    rounds = list(rounds)
    known = addresses or {}

    def shared(pair: tuple[int, int]) -> bool:
        return bool(known.get(pair[0], frozenset()) & known.get(pair[1], frozenset()))

    scores = [_hedge_score(p, t, shared(p)) for p, t in _tally_hedges(rounds).items()]
    scores += [_dump_score(p, t, shared(p)) for p, t in _tally_flows(rounds).items()]
    scores.sort(key=lambda s: (not s.flagged, -s.score, s.pattern, s.a, s.b))
    return scores


def flagged(scores: Iterable[PairScore]) -> dict[str, int]:
    """How many pairs each pattern flags."""
    counts = {HEDGE: 0, DUMPING: 0}
    for s in scores:
        counts[s.pattern] += s.flagged
    return counts

"""The risk scorer: pairs of accounts whose shared rounds look arranged (docs/deployment.md,
"Risks: 對打 and chip dumping").

Two patterns, each a test against fair play with its thresholds here:

- **對打 (hedge)**: two bettors of one round on opposite sides (one's Player against the
  other's Banker) with matched stakes, round after round: together they carry no risk and
  farm turnover. Two bettors who pick their sides without looking at each other land on
  opposite sides about half the time, and with matched stakes less often still; the score
  is the z-score of the hedged rounds against that half (a binomial test), weighed up when
  the two logged in from one address.
- **chip dumping**: coins flowing one way between two accounts beyond what the cards explain,
  counted from their own stakes against each other only. A dealer and a bettor: the
  bettor's position times the result (+1 Player, -1 Banker, 0 Tie), what settlement books
  between them. Two bettors: only the rounds they were on opposite sides, the smaller stake
  times the result (the part of one's loss the dealer paid out to the other); bettors on one
  side move nothing between them. On a fair shoe each sum has a mean and variance the exact
  8-deck odds give, and its z-score is the flow's. Between two bettors the flow is flagged
  only when each one's own results over the rounds they shared carried it too (the sender
  lost, the receiver won, each beyond chance): a bystander who happened to face a bettor
  who always loses wins only as often as chance says, and is not flagged.

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
    """What the scorer reads of a settled round: where, who dealt, the winner, and each
    bettor's position (coins on Player minus coins on Banker; Tie and the Pairs are the
    house's)."""

    round_id: str
    table_id: str
    round_no: int
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
    round_no: int
    at: float
    a_position: int
    b_position: int
    flow: int

    def json(self) -> dict[str, object]:
        """The round as JSON-ready data."""
        return {
            "round_id": self.round_id,
            "table_id": self.table_id,
            "round_no": self.round_no,
            "at": self.at,
            "a_position": self.a_position,
            "b_position": self.b_position,
            "flow": self.flow,
        }


@dataclass(frozen=True, slots=True)
class PairScore:
    """A pair's score for one pattern (``a`` < ``b``)."""

    pattern: str
    a: int
    b: int
    rounds: int
    """Hedge: the rounds both had a position. Dumping: the rounds with a flow between them."""
    hits: int
    """Hedge: the hedged rounds. Dumping: the rounds the flow went from a to b."""
    flow: int
    """Hedge: the turnover of the hedged rounds (both stakes). Dumping: coins from a to b."""
    z: float
    score: float
    flagged: bool
    shared_address: bool
    evidence: tuple[Evidence, ...] = field(default=())
    a_z: float = 0.0
    """Dumping: the z-score of ``a``'s own results over the rounds counted (negative: lost)."""
    b_z: float = 0.0

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
            "a_z": round(self.a_z, 2),
            "b_z": round(self.b_z, 2),
            "score": round(self.score, 2),
            "flagged": self.flagged,
            "shared_address": self.shared_address,
            "evidence": [e.json() for e in self.evidence],
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


def between(x: int, y: int) -> int:
    """The coefficient of the coins from a bettor at ``x`` to one at ``y``: the coins are it
    times the result. Only opposite stakes meet, and only up to the smaller of the two."""
    if x * y >= 0:
        return 0
    return min(abs(x), abs(y)) * (1 if y > 0 else -1)


@dataclass(slots=True)
class _Sum:
    """Coefficients times results summed; with the coefficients' sum and sum of squares, the
    sum's mean and variance on a fair shoe."""

    coins: int = 0
    weight: int = 0
    square: int = 0

    def add(self, c: int, s: int) -> None:
        self.coins += c * s
        self.weight += c
        self.square += c * c

    def z(self) -> float:
        mean, variance = result_moments()
        spread = math.sqrt(self.square * variance)
        return (self.coins - self.weight * mean) / spread if spread > 0 else 0.0


@dataclass(slots=True)
class _Tally:
    rounds: int = 0
    hits: int = 0
    flow: _Sum = field(default_factory=_Sum)
    a_own: _Sum = field(default_factory=_Sum)
    """Bettors: each one's own results over the rounds both had a position."""
    b_own: _Sum = field(default_factory=_Sum)
    turnover: int = 0
    evidence: list[Evidence] = field(default_factory=list)


def _tally_of(found: dict[tuple[int, int], _Tally], pair: tuple[int, int]) -> _Tally:
    tally = found.get(pair)
    if tally is None:
        tally = found[pair] = _Tally()
    return tally


def _bettors(r: RoundFacts) -> list[int]:
    return sorted(u for u, p in r.positions.items() if p and u != r.dealer_id)


def _tally_hedges(rounds: Iterable[RoundFacts]) -> dict[tuple[int, int], _Tally]:
    found: dict[tuple[int, int], _Tally] = {}
    for r in rounds:
        for a, b in combinations(_bettors(r), 2):
            tally = _tally_of(found, (a, b))
            tally.rounds += 1
            x, y = r.positions[a], r.positions[b]
            if hedged(x, y):
                tally.hits += 1
                tally.turnover += abs(x) + abs(y)
                tally.evidence.append(Evidence(r.round_id, r.table_id, r.round_no, r.at, x, y, 0))
    return found


def _count(tally: _Tally, r: RoundFacts, c: int, a_position: int, b_position: int) -> None:
    """One round's flow of ``c`` times the result from ``a`` to ``b``."""
    s = sign(r.winner)
    tally.rounds += 1
    tally.hits += c * s > 0
    tally.flow.add(c, s)
    tally.evidence.append(
        Evidence(r.round_id, r.table_id, r.round_no, r.at, a_position, b_position, c * s)
    )


def _tally_round(r: RoundFacts, found: dict[tuple[int, int], _Tally]) -> None:
    s, d = sign(r.winner), r.dealer_id
    bettors = _bettors(r)
    for u in bettors:
        # The dealer pays a bettor's Player and Banker results: what each of the two won
        # is what the other lost.
        x = r.positions[u]
        pair, c = ((d, u), x) if d < u else ((u, d), -x)
        tally = _tally_of(found, pair)
        tally.a_own.add(-c, s)
        tally.b_own.add(c, s)
        _count(tally, r, c, 0 if pair[0] == d else x, 0 if pair[1] == d else x)
    for a, b in combinations(bettors, 2):
        # Two bettors: each one's own results while both bet, and what passed between them.
        x, y = r.positions[a], r.positions[b]
        tally = _tally_of(found, (a, b))
        tally.a_own.add(x, s)
        tally.b_own.add(y, s)
        c = between(x, y)
        if c:
            _count(tally, r, c, x, y)


def _tally_flows(rounds: Iterable[RoundFacts]) -> dict[tuple[int, int], _Tally]:
    found: dict[tuple[int, int], _Tally] = {}
    for r in rounds:
        _tally_round(r, found)
    return {pair: tally for pair, tally in found.items() if tally.rounds}


def _hedge_score(pair: tuple[int, int], t: _Tally, shared: bool) -> PairScore:
    n, k = t.rounds, t.hits
    z = (k - n * HEDGE_CHANCE) / math.sqrt(n * HEDGE_CHANCE * (1 - HEDGE_CHANCE))
    score = z * (ADDRESS_WEIGHT if shared and z > 0 else 1.0)
    flagged = n >= HEDGE_MIN_ROUNDS and k >= HEDGE_MIN_SHARE * n and score >= HEDGE_FLAG
    evidence = tuple(t.evidence)
    return PairScore(HEDGE, *pair, n, k, t.turnover, z, score, flagged, shared, evidence)


def _dump_score(pair: tuple[int, int], t: _Tally, shared: bool) -> PairScore:
    z = t.flow.z()
    way = 1 if z >= 0 else -1
    a_z, b_z = t.a_own.z(), t.b_own.z()
    # The sender lost and the receiver won beyond chance, or it is not their flow. (Between
    # a dealer and a bettor the two's results are the flow itself.)
    score = max(0.0, min(abs(z), -way * a_z, way * b_z))
    flagged = t.rounds >= DUMP_MIN_ROUNDS and score >= DUMP_FLAG
    # The rounds that carried the most coins the pair's way come first.
    evidence = tuple(sorted(t.evidence, key=lambda e: -e.flow * way))
    return PairScore(
        DUMPING, *pair, t.rounds, t.hits, t.flow.coins, z, score, flagged, shared, evidence,
        a_z, b_z,
    )  # fmt: skip


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

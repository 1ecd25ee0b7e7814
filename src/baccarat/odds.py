"""Exact odds of every bet area, by full enumeration of the shoe (no sampling).

Convention (the published one): every outcome is weighted by the number of ordered
6-card sequences from a fresh shoe of ``N = 52 * decks`` cards that begin with the cards it
uses, so the total is ``N (N-1) (N-2) (N-3) (N-4) (N-5)``. A round that uses ``k`` cards
weighs ``(ordered ways to deal its k cards) * (N-k) ... (N-5)``.

The tableau only reads card *values*, so the enumeration runs over 10 value classes with
multiplicities (16 zero-valued cards per deck, 4 of every other value) instead of 52 cards.
The two hands' first cards are enumerated as unordered pairs (an ordered pair of different
values counts twice). For each such start the Banker's possible final points are turned
into a running sum once, so every Player third card is settled in constant time instead of
looping over the Banker's third card. Pairs depend on ranks, not values, and only on the
first two cards of a hand, so they are counted apart by rank combinatorics.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from baccarat.bets import PAYOUT, Area
from baccarat.errors import InvalidInput
from baccarat.numbers import whole
from baccarat.rules import BANKER_DRAWS
from baccarat.settlement import COMMISSION

Result = Literal["banker", "player", "tie"]
ODDS_KEYS: tuple[Area, ...] = ("banker", "player", "tie", "player_pair", "banker_pair")
"""The order in which odds are reported."""

CARDS_PER_DECK = 52
RANKS_PER_DECK = 13
SEQUENCE_LENGTH = 6
"""A round uses at most 6 cards; every outcome is weighed as 6-card sequences."""

_BANKER, _PLAYER, _TIE = 0, 1, 2


def verify_decks(decks: object) -> int:
    """Check that a deck count is a whole number from 1 upwards."""
    if not whole(decks) or decks < 1:
        raise InvalidInput("bad_decks", f"The number of decks must be 1 or more, not {decks!r}.")
    return decks


def value_counts(decks: int) -> list[int]:
    """How many cards of each baccarat value (index 0 to 9) a fresh shoe holds."""
    return [4 * 4 * decks] + [4 * decks] * 9


def falling(n: int, k: int) -> int:
    """``n (n-1) ... (n-k+1)``: ordered ways to take ``k`` of ``n`` things."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


def sequence_total(decks: int) -> int:
    """Number of ordered 6-card sequences from a fresh shoe: the weight of certainty."""
    return falling(CARDS_PER_DECK * decks, SEQUENCE_LENGTH)


def _result_counts(decks: int) -> tuple[int, int, int]:
    """Weights of (Banker wins, Player wins, Tie) over all 6-card sequences."""
    base = value_counts(decks)
    n = sum(base)
    starts = [(a, b, 1 if a == b else 2) for a in range(10) for b in range(a, 10)]
    # Per number of cards a round uses (4, 5 or 6), the summed weights of its first cards,
    # by result; each is multiplied by the ways to fill the rest of the 6 positions at the end.
    four = [0, 0, 0]
    five = [0, 0, 0]
    six = [0, 0, 0]
    r = list(base)
    for a, b, mult_p in starts:
        w_a = r[a]
        r[a] -= 1
        w_b = r[b]
        r[b] -= 1
        w_player = w_a * w_b * mult_p
        pt = (a + b) % 10
        for c, e, mult_b in starts:
            w_c = r[c]
            r[c] -= 1
            w_e = r[e]
            r[e] -= 1
            w4 = w_player * w_c * w_e * mult_b
            if w4:
                bt = (c + e) % 10
                _settle_start(pt, bt, w4, r, n - 4, four, five, six)
            r[e] += 1
            r[c] += 1
        r[b] += 1
        r[a] += 1
    tail4, tail5 = falling(n - 4, 2), n - 5
    banker, player, tie = (four[k] * tail4 + five[k] * tail5 + six[k] for k in range(3))
    return banker, player, tie


def _compare(pf: int, bf: int) -> int:
    return _BANKER if bf > pf else _PLAYER if pf > bf else _TIE


def _settle_start(
    pt: int,
    bt: int,
    w4: int,
    r: list[int],
    left: int,
    four: list[int],
    five: list[int],
    six: list[int],
) -> None:
    """Add the weights of every round starting with totals ``pt``/``bt`` (remaining ``r``)."""
    if pt >= 8 or bt >= 8:
        four[_compare(pt, bt)] += w4
        return
    # Banker final points if it draws one more card: count[x] cards give the Banker x points;
    # below[x] of them give fewer than x.
    count = [r[(x - bt) % 10] for x in range(10)]
    below = [0] * 11
    for x in range(10):
        below[x + 1] = below[x] + count[x]
    if pt >= 6:
        if bt >= 6:
            four[_compare(pt, bt)] += w4
        else:
            five[_PLAYER] += w4 * below[pt]
            five[_TIE] += w4 * count[pt]
            five[_BANKER] += w4 * (left - below[pt + 1])
        return
    draws = BANKER_DRAWS[bt]
    for v in range(10):
        w5 = w4 * r[v]
        if not w5:
            continue
        pf = (pt + v) % 10
        if not draws[v]:
            five[_compare(pf, bt)] += w5
            continue
        # The Player's third card is gone from the shoe: take it out of the Banker's counts.
        bv = (bt + v) % 10
        lower = below[pf] - (bv < pf)
        tie = count[pf] - (bv == pf)
        six[_PLAYER] += w5 * lower
        six[_TIE] += w5 * tie
        six[_BANKER] += w5 * (left - 1 - lower - tie)


def pair_count(decks: int) -> int:
    """Weight of a hand's first two cards sharing a rank, over all 6-card sequences.

    Either hand's two cards sit at two fixed positions of the sequence; the other four
    positions are free.
    """
    n = CARDS_PER_DECK * decks
    per_rank = 4 * decks
    return RANKS_PER_DECK * falling(per_rank, 2) * falling(n - 2, SEQUENCE_LENGTH - 2)


@dataclass(frozen=True, slots=True)
class Odds:
    """Exact counts of every bet area's winning outcomes, over ``total`` equal sequences."""

    decks: int
    total: int
    counts: dict[Area, int]

    def probability(self, area: Area) -> Fraction:
        """Exact probability that a bet on ``area`` wins."""
        return Fraction(self.counts[area], self.total)

    def expected_value(self, area: Area) -> Fraction:
        """Exact expected result per unit staked on ``area`` alone, after commission.

        A lone winning bet is a positive net, so the house keeps 1% of its profit; a Tie
        pushes ``player`` and ``banker`` bets (result 0).
        """
        win = self.probability(area)
        profit = PAYOUT[area] * (1 - COMMISSION)
        if area == "player":
            lose = self.probability("banker")
        elif area == "banker":
            lose = self.probability("player")
        else:
            lose = 1 - win
        return win * profit - lose

    def house_edge(self, area: Area) -> Fraction:
        """What the bettor's side loses per unit staked, on average (negative: the bettor gains)."""
        return -self.expected_value(area)

    def to_dict(self) -> dict[str, object]:
        """The odds as JSON-ready data."""
        ev = {a: self.expected_value(a) for a in ODDS_KEYS}
        return {
            "decks": self.decks,
            "total": self.total,
            "counts": {a: self.counts[a] for a in ODDS_KEYS},
            "probabilities": {a: float(self.probability(a)) for a in ODDS_KEYS},
            "expected_value": {a: float(ev[a]) for a in ODDS_KEYS},
            "expected_value_exact": {
                a: f"{ev[a].numerator}/{ev[a].denominator}" for a in ODDS_KEYS
            },
        }


def exact_odds(decks: int = 8) -> Odds:
    """The exact odds of a fresh shoe of ``decks`` decks."""
    verify_decks(decks)
    banker, player, tie = _result_counts(decks)
    pairs = pair_count(decks)
    counts: dict[Area, int] = {
        "banker": banker,
        "player": player,
        "tie": tie,
        "player_pair": pairs,
        "banker_pair": pairs,
    }
    total = sequence_total(decks)
    assert banker + player + tie == total, "the three results must cover every sequence"
    return Odds(decks, total, counts)

"""Play for the risk scorer's tests: honest bettors with random strategies on the real engine
(shoes, the tableau, settlement), and made-up rounds of 對打 and chip dumping."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from baccarat.bets import Area
from baccarat.risk import RoundFacts
from baccarat.rules import Outcome, deal
from baccarat.settlement import settle
from baccarat.shoe import MIN_CARDS_TO_DEAL, ROUNDS_PER_SHOE, Shoe

CHIP = 100
SIDES = ("player", "banker")


@dataclass
class Bettor:
    """An honest bettor: a side rule and a stake rule, each with chance in it."""

    user_id: int
    side_rule: str
    stake_rule: str
    rng: random.Random
    last_lost: bool = False
    last_stake: int = 1
    history: list[str] = field(default_factory=list)

    def side(self, last_winner: str | None) -> str:
        r = self.rng.random()
        rule = self.side_rule
        if rule == "banker_lean":
            return "banker" if r < 0.7 else "player"
        if rule == "player_lean":
            return "player" if r < 0.65 else "banker"
        if rule in ("follow", "against") and last_winner in SIDES and r < 0.8:
            other = "banker" if last_winner == "player" else "player"
            return last_winner if rule == "follow" else other
        return self.rng.choice(SIDES)

    def stake(self) -> int:
        rule = self.stake_rule
        if rule == "flat":
            chips = 1 + (self.user_id % 3)
        elif rule == "martingale":
            chips = min(self.last_stake * 2, 16) if self.last_lost else 1
        else:
            chips = self.rng.choice((1, 1, 2, 3, 5, 10))
        self.last_stake = chips
        return chips * CHIP


def _seat_bettors(rng: random.Random, pool: list[Bettor], dealer: int) -> list[Bettor]:
    free = [b for b in pool if b.user_id != dealer]
    return rng.sample(free, rng.randint(3, min(7, len(free))))


Slips = Callable[[random.Random, Outcome], dict[int, dict[Area, int]]]
"""A made-up pattern: the bets some accounts place on a round, seeing its cards."""


@dataclass(frozen=True)
class Pattern:
    """Made-up play at a table of its own: its dealer (not one of the honest accounts), and
    the bets of the pattern's accounts each round, beside the honest bettors seated there."""

    dealer: int
    slips: Slips


def honest_play(
    rounds: int, seed: int = 47, accounts: int = 12, patterns: tuple[Pattern, ...] = ()
) -> list[RoundFacts]:
    """``rounds`` rounds at two tables dealt from real shoes; the dealer changes each shoe,
    bettors come and go, and each bets (or sits out) by their own random strategy. Each of
    ``patterns`` adds a table where honest bettors sit beside the made-up play."""
    rng = random.Random(seed)
    sides = ("random", "banker_lean", "player_lean", "follow", "against")
    stakes = ("flat", "random", "martingale")
    pool = [
        Bettor(u, rng.choice(sides), rng.choice(stakes), random.Random(rng.random()))
        for u in range(1, accounts + 1)
    ]
    tables = [_TablePlay(f"t{i}", rng, pool) for i in range(2)]
    tables += [_TablePlay(f"p{i}", rng, pool, p) for i, p in enumerate(patterns)]
    out = []
    for n in range(rounds):
        out.append(tables[n % len(tables)].next_round(n))
    return out


class _TablePlay:
    def __init__(
        self, table_id: str, rng: random.Random, pool: list[Bettor], pattern: Pattern | None = None
    ) -> None:
        self.table_id, self.rng, self.pool, self.pattern = table_id, rng, pool, pattern
        self.shoe: Shoe | None = None
        self.dealt = 0
        self.last: str | None = None
        self.dealer = 0
        self.seated: list[Bettor] = []

    def _new_shoe(self) -> None:
        self.shoe = Shoe.from_seed(self.rng.randbytes(32))
        self.dealt = 0
        if self.pattern is None:
            self.dealer = self.rng.choice(self.pool).user_id
        else:
            self.dealer = self.pattern.dealer
        self.seated = _seat_bettors(self.rng, self.pool, self.dealer)

    def next_round(self, n: int) -> RoundFacts:
        if (
            self.shoe is None
            or self.dealt >= ROUNDS_PER_SHOE
            or self.shoe.remaining < MIN_CARDS_TO_DEAL
        ):
            self._new_shoe()
        assert self.shoe is not None
        if self.rng.random() < 0.1:  # someone leaves, someone sits
            self.seated = _seat_bettors(self.rng, self.pool, self.dealer)
        slips: dict[int, dict[Area, int]] = {}
        for b in self.seated:
            if self.rng.random() < 0.9:
                slip: dict[Area, int] = {b.side(self.last): b.stake()}  # type: ignore[dict-item]
                if self.rng.random() < 0.1:
                    slip["tie"] = CHIP
                slips[b.user_id] = slip
        # The cards do not depend on the bets: only the made-up bets look at them.
        outcome = deal(self.shoe.draw)
        self.dealt += 1
        if self.pattern is not None:
            slips |= self.pattern.slips(self.rng, outcome)
        result = settle(outcome, self.dealer, slips)
        for b in self.seated:
            if b.user_id in result.deltas:
                b.last_lost = result.deltas[b.user_id] < 0
        if outcome.winner != "tie":
            self.last = outcome.winner
        return facts(
            f"{self.table_id}-{n}", self.table_id, self.dealt, float(n), self.dealer, outcome,
            slips,
        )  # fmt: skip


def facts(
    round_id: str, table_id: str, round_no: int, at: float, dealer: int, outcome: Outcome,
    slips: dict[int, dict[Area, int]],
) -> RoundFacts:  # fmt: skip
    """A settled round as the scorer reads it."""
    positions = {u: s.get("player", 0) - s.get("banker", 0) for u, s in slips.items()}
    return RoundFacts(round_id, table_id, round_no, at, dealer, outcome.winner, positions)


def outcomes(seed: int) -> Iterator[Outcome]:
    """Rounds dealt from real shoes, one after another."""
    rng = random.Random(seed)
    while True:
        shoe = Shoe.from_seed(rng.randbytes(32))
        for _ in range(ROUNDS_PER_SHOE):
            if shoe.remaining < MIN_CARDS_TO_DEAL:
                break
            yield deal(shoe.draw)


def made_up(
    count: int, seed: int, dealer: int, slips_of: Slips,
    *, table_id: str = "t9",
) -> list[RoundFacts]:  # fmt: skip
    """``count`` real deals with the bets ``slips_of`` makes up for each (seeing the cards)."""
    rng = random.Random(seed)
    out = []
    for n, outcome in zip(range(count), outcomes(seed), strict=False):
        out.append(
            facts(
                f"{table_id}-x{n}",
                table_id,
                n + 1,
                1e6 + n,
                dealer,
                outcome,
                slips_of(rng, outcome),
            )
        )
    return out


def hedging(a: int, b: int) -> Slips:
    """對打: a and b on opposite sides, sides swapped at random, stakes within 10%."""

    def slips(rng: random.Random, _: Outcome) -> dict[int, dict[Area, int]]:
        first, second = rng.sample(SIDES, 2)
        chips = rng.choice((5, 10, 20))
        return {
            a: {first: chips * CHIP},
            b: {second: (chips + rng.choice((0, 0, 1 if chips >= 10 else 0))) * CHIP},
        }  # type: ignore[dict-item]

    return slips


def dumping_to(winner_id: int | None, loser_id: int | None = None) -> Slips:
    """Chip dumping: ``winner_id`` stakes on the side that wins (and ``loser_id``, when given,
    on the side that loses), as if the cards were known; a tie takes a random side. With
    ``winner_id`` None, ``loser_id`` alone loses to the dealer round after round."""

    def slips(rng: random.Random, outcome: Outcome) -> dict[int, dict[Area, int]]:
        win = outcome.winner if outcome.winner in SIDES else rng.choice(SIDES)
        lose = "banker" if win == "player" else "player"
        chips = rng.choice((2, 3, 5))
        made: dict[int, dict[Area, int]] = {}
        if winner_id is not None:
            made[winner_id] = {win: chips * CHIP}  # type: ignore[dict-item]
        if loser_id is not None:
            made[loser_id] = {lose: chips * CHIP}  # type: ignore[dict-item]
        return made

    return slips

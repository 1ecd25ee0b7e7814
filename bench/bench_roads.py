"""How long the roads of a full shoe take to recompute (after every round, at every table).

Run: python bench/bench_roads.py
"""

from __future__ import annotations

import json
import timeit

from baccarat.roads import RoundMark, roads
from baccarat.rules import deal
from baccarat.shoe import MIN_CARDS_TO_DEAL, ROUNDS_PER_SHOE, Shoe


def full_shoe(seed: bytes) -> list[RoundMark]:
    """The 78 rounds of the shoe shuffled from ``seed``."""
    shoe = Shoe.from_seed(seed)
    marks = []
    while len(marks) < ROUNDS_PER_SHOE and shoe.remaining >= MIN_CARDS_TO_DEAL:
        marks.append(RoundMark.from_outcome(deal(shoe.draw)))
    return marks


def per_call(stmt: str, env: dict[str, object], number: int) -> float:
    """Best of 5 runs, in microseconds per call."""
    return min(timeit.repeat(stmt, globals=env, number=number, repeat=5)) / number * 1e6


def main() -> None:
    """Print microseconds per call for a full shoe and for one round in."""
    shoes = [full_shoe(bytes([i]) * 32) for i in range(20)]
    env: dict[str, object] = {"roads": roads, "shoes": shoes, "json": json}
    n = 200
    full = per_call("for s in shoes: roads(s)", env, n) / len(shoes)
    with_dict = per_call("for s in shoes: roads(s).to_dict()", env, n) / len(shoes)
    with_json = per_call("for s in shoes: json.dumps(roads(s).to_dict())", env, n) / len(shoes)
    print(f"roads(78 rounds)                   {full:8.1f} us")
    print(f"roads(78 rounds).to_dict()         {with_dict:8.1f} us")
    print(f"json.dumps(roads(...).to_dict())   {with_json:8.1f} us")
    whole = per_call("for s in shoes:\n for i in range(1, len(s) + 1): roads(s[:i])", env, 5)
    print(f"every round of a shoe, recomputed  {whole / len(shoes) / 1000:8.2f} ms per shoe")


if __name__ == "__main__":
    main()

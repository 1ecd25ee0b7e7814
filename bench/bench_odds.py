"""Time the exact enumeration of `baccarat odds`, fast against a naive reference.

The reference deals every sequence of card values one card at a time through
``baccarat.rules.next_draw``, the straightforward way; the fast one is
``baccarat.odds.exact_odds``. Both must give the same counts.

    python bench/bench_odds.py [--decks 8] [--repeat 5]
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

from baccarat.cards import Card
from baccarat.odds import exact_odds, falling
from baccarat.rules import next_draw, points


def naive_results(decks: int) -> dict[str, int]:
    """Banker, Player and Tie weights by plain recursive enumeration of card values."""
    by_value = [Card(10, "S")] + [Card(v, "S") for v in range(1, 10)]
    left = [16 * decks] + [4 * decks] * 9
    n = 52 * decks
    out = {"banker": 0, "player": 0, "tie": 0}

    def walk(player: list[Card], banker: list[Card], weight: int) -> None:
        hand = next_draw(player, banker)
        if hand is None:
            used = len(player) + len(banker)
            p, b = points(player), points(banker)
            key = "player" if p > b else "banker" if b > p else "tie"
            out[key] += weight * falling(n - used, 6 - used)
            return
        for v, card in enumerate(by_value):
            ways = left[v]
            if ways:
                left[v] -= 1
                if hand == "player":
                    walk([*player, card], banker, weight * ways)
                else:
                    walk(player, [*banker, card], weight * ways)
                left[v] += 1

    walk([], [], 1)
    return out


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """Best wall time of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Run the benchmark and print one Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    fast = exact_odds(args.decks)
    naive = naive_results(args.decks)
    assert all(fast.counts[k] == naive[k] for k in naive), "fast and naive counts differ"  # type: ignore[index]
    t_fast = best_of(args.repeat, lambda: exact_odds(args.decks))
    t_naive = best_of(max(1, args.repeat // 2), lambda: naive_results(args.decks))
    print(f"Python {platform.python_version()}, {args.decks} decks, best of {args.repeat}")
    print()
    print("| enumeration | time | ratio |")
    print("|---|---|---|")
    print(f"| naive (card by card through rules.next_draw) | {t_naive * 1000:.0f} ms | 1 |")
    print(f"| fast (`exact_odds`) | {t_fast * 1000:.1f} ms | {t_naive / t_fast:.0f}x faster |")


if __name__ == "__main__":
    main()

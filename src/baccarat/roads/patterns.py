"""Good roads (好路): the patterns players look for on the Big Road; a shoe's statistics.

Pure. Every pattern reads the Big Road's columns: each column is a run of Banker or Player
wins (ties do not break a run and are not counted); the last column is the current one and
may still grow. A pattern holds *now*, after the latest result:

- ``long_banker`` 長莊: the current column is Banker and at least 4 long.
- ``long_player`` 長閒: the current column is Player and at least 4 long.
- ``ping_pong`` 單跳: the last 4 columns (the current one included) are each 1 long.
- ``double_jump`` 雙跳: the last 3 columns (the current one included) are each 2 long.
- ``one_room_two_halls`` 一房兩廳: the last 4 columns are 1, 2, 1, 2 long or 2, 1, 2, 1 long
  (one hand wins once, the other twice, in turn).
- ``banker_jumps`` 逢莊跳: the last 3 Banker columns (the current one included) are each 1
  long, and a Player column after the first of them is at least 2 long (so it is not plain
  單跳).
- ``player_jumps`` 逢閒跳: the same with Player and Banker swapped.
- ``banker_streaks`` 逢莊連: the last 3 finished Banker columns (a column is finished once
  the other hand has won after it) are each at least 2 long.
- ``player_streaks`` 逢閒連: the same with Player and Banker swapped.

A found pattern's ``length`` is the current column's length for 長莊 / 長閒, and otherwise
how many columns (or, for 逢莊/逢閒, how many of that hand's columns) keep it going back
from the latest, so a screen can say "長莊 7" or "單跳 6".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from baccarat.roads.marks import RoundMark
from baccarat.rules import Hand

Pattern = Literal[
    "long_banker",
    "long_player",
    "ping_pong",
    "double_jump",
    "one_room_two_halls",
    "banker_jumps",
    "player_jumps",
    "banker_streaks",
    "player_streaks",
]
PATTERNS: tuple[Pattern, ...] = get_args(Pattern)

NAMES: dict[Pattern, str] = {
    "long_banker": "長莊",
    "long_player": "長閒",
    "ping_pong": "單跳",
    "double_jump": "雙跳",
    "one_room_two_halls": "一房兩廳",
    "banker_jumps": "逢莊跳",
    "player_jumps": "逢閒跳",
    "banker_streaks": "逢莊連",
    "player_streaks": "逢閒連",
}
"""Each pattern's name as players say it."""

LONG = 4
"""A current run at least this long is 長莊 or 長閒."""

Column = tuple[Hand, int]
"""A Big Road column: the hand and how many wins in a row."""


@dataclass(frozen=True, slots=True)
class GoodRoad:
    """A pattern that holds after the latest result, and how far it goes."""

    pattern: Pattern
    length: int


def columns(marks: Sequence[RoundMark]) -> list[Column]:
    """The Big Road's columns, oldest first (ties skipped)."""
    out: list[Column] = []
    for m in marks:
        if m.winner == "tie":
            continue
        side: Hand = "banker" if m.winner == "banker" else "player"
        if out and out[-1][0] == side:
            out[-1] = (side, out[-1][1] + 1)
        else:
            out.append((side, 1))
    return out


def _run_back(cols: Sequence[object], fits: Callable[[int], bool]) -> int:
    """How many items, back from the last one, satisfy ``fits(index)``."""
    n = 0
    for i in range(len(cols) - 1, -1, -1):
        if not fits(i):
            break
        n += 1
    return n


def _long(cols: Sequence[Column], side: Hand) -> int:
    if cols and cols[-1][0] == side and cols[-1][1] >= LONG:
        return cols[-1][1]
    return 0


def _ping_pong(cols: Sequence[Column]) -> int:
    n = _run_back(cols, lambda i: cols[i][1] == 1)
    return n if n >= 4 else 0


def _double_jump(cols: Sequence[Column]) -> int:
    n = _run_back(cols, lambda i: cols[i][1] == 2)
    return n if n >= 3 else 0


def _one_room_two_halls(cols: Sequence[Column]) -> int:
    if not cols or cols[-1][1] not in (1, 2):
        return 0
    last = cols[-1][1]
    # Columns alternate hands, so lengths alternating 1 and 2 give one hand all 1s.
    n = _run_back(
        cols, lambda i: cols[i][1] == (last if (len(cols) - 1 - i) % 2 == 0 else 3 - last)
    )
    return n if n >= 4 else 0


def _jumps(cols: Sequence[Column], side: Hand) -> int:
    mine = [i for i, (hand, _) in enumerate(cols) if hand == side]
    n = _run_back(mine, lambda k: cols[mine[k]][1] == 1)
    if n < 3:
        return 0
    first = mine[len(mine) - n]
    # Without a longer column of the other hand this is plain 單跳, not 逢跳.
    return n if _other_hand_repeats(cols[first:], side) else 0


def _other_hand_repeats(cols: Sequence[Column], side: Hand) -> bool:
    """Some column of the hand other than ``side`` is at least 2 long."""
    return any(length >= 2 for hand, length in cols if hand != side)


def _streaks(cols: Sequence[Column], side: Hand) -> int:
    finished = [length for hand, length in cols[:-1] if hand == side]
    n = 0
    for length in reversed(finished):
        if length < 2:
            break
        n += 1
    return n if n >= 3 else 0


def good_roads(marks: Sequence[RoundMark]) -> tuple[GoodRoad, ...]:
    """Every pattern that holds after the last of ``marks``, in :data:`PATTERNS` order."""
    cols = columns(marks)
    found = {
        "long_banker": _long(cols, "banker"),
        "long_player": _long(cols, "player"),
        "ping_pong": _ping_pong(cols),
        "double_jump": _double_jump(cols),
        "one_room_two_halls": _one_room_two_halls(cols),
        "banker_jumps": _jumps(cols, "banker"),
        "player_jumps": _jumps(cols, "player"),
        "banker_streaks": _streaks(cols, "banker"),
        "player_streaks": _streaks(cols, "player"),
    }
    return tuple(GoodRoad(p, found[p]) for p in PATTERNS if found[p])


@dataclass(frozen=True, slots=True)
class ShoeStats:
    """A shoe's statistics (統計): results, pairs, naturals and the longest runs so far."""

    rounds: int
    banker: int
    player: int
    tie: int
    banker_pair: int
    player_pair: int
    natural: int
    longest_banker: int
    longest_player: int

    def to_dict(self) -> dict[str, int]:
        """As JSON-ready data (counts; a screen shows shares of ``rounds``)."""
        return {
            "rounds": self.rounds,
            "banker": self.banker,
            "player": self.player,
            "tie": self.tie,
            "banker_pair": self.banker_pair,
            "player_pair": self.player_pair,
            "natural": self.natural,
            "longest_banker": self.longest_banker,
            "longest_player": self.longest_player,
        }


def stats(marks: Sequence[RoundMark]) -> ShoeStats:
    """Counts of each result, pairs and naturals, and the longest Banker and Player runs."""
    cols = columns(marks)
    wins = Counter(m.winner for m in marks)
    return ShoeStats(
        rounds=len(marks),
        banker=wins["banker"],
        player=wins["player"],
        tie=wins["tie"],
        banker_pair=sum(m.banker_pair for m in marks),
        player_pair=sum(m.player_pair for m in marks),
        natural=sum(m.natural for m in marks),
        longest_banker=_longest(cols, "banker"),
        longest_player=_longest(cols, "player"),
    )


def _longest(cols: Sequence[Column], side: Hand) -> int:
    """The longest column of ``side`` so far, 0 before its first win."""
    return max((n for hand, n in cols if hand == side), default=0)

"""Good roads (好路): each pattern pinned by the Big Road shapes that make it and break it."""

from __future__ import annotations

import pytest

from baccarat.roads import RoundMark
from baccarat.roads.patterns import NAMES, PATTERNS, columns, good_roads, stats


def marks(text: str) -> list[RoundMark]:
    """``"BBPT"``: Banker, Banker, Player, Tie (points do not matter here)."""
    winner = {"B": "banker", "P": "player", "T": "tie"}
    return [RoundMark(winner[c], 5) for c in text.replace(" ", "")]  # type: ignore[arg-type]


def found(text: str) -> dict[str, int]:
    return {g.pattern: g.length for g in good_roads(marks(text))}


def test_columns_are_runs_and_ties_do_not_break_them() -> None:
    assert columns(marks("TBBTBPPTB")) == [("banker", 3), ("player", 2), ("banker", 1)]
    assert columns(marks("")) == [] and columns(marks("TT")) == []


@pytest.mark.parametrize(
    ("road", "pattern", "length"),
    [
        ("P BBBB", "long_banker", 4),
        ("BBBTBBB", "long_banker", 6),
        ("B PPPPP", "long_player", 5),
        ("BPBP", "ping_pong", 4),
        ("BBB PBPBP", "ping_pong", 5),
        ("BB PP BB", "double_jump", 3),
        ("P BB PP BB PP", "double_jump", 4),
        ("B PP B PP", "one_room_two_halls", 4),
        ("PP B PP B", "one_room_two_halls", 4),
        ("B PP B PPP B", "banker_jumps", 3),
        ("P BB P BBB P", "player_jumps", 3),
        ("BB P BBB P BB P", "banker_streaks", 3),
        ("PP B PPPP B PP B", "player_streaks", 3),
    ],
)
def test_each_pattern_is_found_with_its_length(road: str, pattern: str, length: int) -> None:
    assert found(road).get(pattern) == length


@pytest.mark.parametrize(
    ("road", "pattern"),
    [
        ("P BBB", "long_banker"),  # 3 is not long yet
        ("BBBB P", "long_banker"),  # the run has ended
        ("BPB", "ping_pong"),  # only 3 columns
        ("BPBPP", "ping_pong"),  # the current column grew
        ("BB PP B", "double_jump"),
        ("B PP BB PP", "one_room_two_halls"),
        ("B P B P B", "banker_jumps"),  # every column 1 long: that is 單跳
        ("B PP BB PP B", "banker_jumps"),
        ("BB P BB P B", "banker_streaks"),  # a finished Banker column of 1
        ("BB P BB", "banker_streaks"),  # the current column is not finished
    ],
)
def test_shapes_that_break_a_pattern(road: str, pattern: str) -> None:
    assert pattern not in found(road)


def test_a_shoe_without_results_has_no_good_road_and_patterns_combine() -> None:
    assert good_roads([]) == ()
    assert set(found("B PP B PP B PP B")) == {
        "one_room_two_halls",
        "banker_jumps",
        "player_streaks",
    }


def test_every_pattern_has_its_players_name() -> None:
    assert set(NAMES) == set(PATTERNS)
    assert NAMES["one_room_two_halls"] == "一房兩廳" and NAMES["ping_pong"] == "單跳"


def test_shoe_statistics_count_results_pairs_naturals_and_the_longest_runs() -> None:
    shoe = marks("BBTBPPPPTB")
    shoe[0] = RoundMark("banker", 8, banker_pair=True, natural=True)
    shoe[4] = RoundMark("player", 9, player_pair=True, natural=True)
    assert stats(shoe).to_dict() == {
        "rounds": 10,
        "banker": 4,
        "player": 4,
        "tie": 2,
        "banker_pair": 1,
        "player_pair": 1,
        "natural": 2,
        "longest_banker": 3,
        "longest_player": 4,
    }
    assert stats([]).longest_banker == 0

"""The roads: bead plate, Big Road, derived roads, ask previews and counts, by their rules."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat.cards import parse_cards
from baccarat.errors import InvalidInput
from baccarat.protocol import values
from baccarat.roads import (
    BEAD_CELLS,
    DERIVED,
    ROWS,
    RoundMark,
    derived_color,
    parse_marks,
    roads,
)
from baccarat.rules import Hand, Winner, deal

LETTER: dict[str, Winner] = {"B": "banker", "P": "player", "T": "tie"}
SIDES: tuple[Hand, ...] = ("banker", "player")


def marks(letters: str) -> list[RoundMark]:
    """Rounds from letters: B = Banker, P = Player, T = Tie (spaces ignored)."""
    return [RoundMark(LETTER[c], 5) for c in letters.replace(" ", "")]


def big_road_cells(letters: str) -> list[tuple[int, int, str, int]]:
    return [(c.col, c.row, c.winner, c.ties) for c in roads(marks(letters)).big_road]


def positions(letters: str) -> list[tuple[int, int]]:
    return [(c.col, c.row) for c in roads(marks(letters)).big_road]


def derived_cells(letters: str, name: str) -> list[tuple[int, int, str]]:
    return [(c.col, c.row, c.color) for c in getattr(roads(marks(letters)), name)]


# --- Big Road ---------------------------------------------------------------------------


def test_big_road_repeat_goes_down_and_new_winner_starts_a_column() -> None:
    assert big_road_cells("BBPB") == [
        (0, 0, "banker", 0),
        (0, 1, "banker", 0),
        (1, 0, "player", 0),
        (2, 0, "banker", 0),
    ]


def test_big_road_tie_adds_no_cell_and_counts_on_the_last_cell() -> None:
    assert big_road_cells("BTTPT") == [(0, 0, "banker", 2), (1, 0, "player", 1)]


def test_big_road_ties_before_the_first_result_count_on_the_first_cell() -> None:
    assert big_road_cells("TTBTP") == [(0, 0, "banker", 3), (1, 0, "player", 0)]


def test_big_road_only_ties_draws_nothing() -> None:
    result = roads(marks("TTT"))
    assert result.big_road == ()
    assert result.counts.tie == 3
    assert result.ask_banker.to_dict() == {
        "big_eye_boy": None,
        "small_road": None,
        "cockroach_pig": None,
    }


def test_big_road_seventh_repeat_turns_right_into_a_dragon_tail() -> None:
    assert positions("B" * 8) == [(0, r) for r in range(6)] + [(1, 5), (2, 5)]


def test_big_road_double_dragon_tail() -> None:
    # 9 Banker: down column 0, then right along row 5 to column 3.
    # 10 Player: a new column right of the rightmost row-0 cell (0, 0), so column 1. Down to
    # row 4, as (1, 5) is the Banker tail's; right to (2, 4) and (3, 4), both above the
    # Banker tail; (4, 5) is free, so the tail goes back down to (4, 5); row 5 is the last,
    # so right again to (5, 5).
    banker = [(0, r) for r in range(6)] + [(1, 5), (2, 5), (3, 5)]
    player = [(1, r) for r in range(5)] + [(2, 4), (3, 4), (4, 4), (4, 5), (5, 5)]
    assert positions("B" * 9 + "P" * 10) == banker + player


def test_big_road_tail_goes_back_down_when_the_cell_below_frees() -> None:
    # The Banker tail ends at (2, 5); the Player tail runs (2, 4) then (3, 4), and (3, 5) is
    # free, so the next Player goes down to it.
    assert positions("B" * 8 + "P" * 8)[8:] == [(1, r) for r in range(5)] + [
        (2, 4),
        (3, 4),
        (3, 5),
    ]


def test_big_road_new_column_after_a_tail_starts_right_of_the_last_row_0_cell() -> None:
    # The Banker tail reaches column 2, yet the next Player column starts at column 1:
    # the new column goes right of the rightmost used row-0 cell, not of the tail.
    assert positions("B" * 8 + "P")[-1] == (1, 0)


def test_big_road_column_goes_down_until_blocked_by_an_earlier_tail() -> None:
    # B x8 leaves a tail on row 5 to column 2; P at column 1 is short; the next Banker
    # column (2) goes down to row 4, then right along row 4 above the tail, then down.
    cells = positions("B" * 8 + "P" + "B" * 7)
    assert cells[9:] == [(2, r) for r in range(5)] + [(3, 4), (3, 5)]


# --- derived roads ----------------------------------------------------------------------

# Hand-worked example: B B P P B P B B B P.
# Big Road logical columns (streak lengths): c0 = BB (2), c1 = PP (2), c2 = B (1),
# c3 = P (1), c4 = BBB (3), c5 = P (1). Entries (col, row): (0,0) (0,1) (1,0) (1,1) (2,0)
# (3,0) (4,0) (4,1) (4,2) (5,0).
#
# Big Eye Boy (k = 1), from (1,1) since column 1 has a row 1:
#   (1,1) r=1, column 0 has 2 > 1       -> red
#   (2,0) len c1 = 2 == len c0 = 2       -> red
#   (3,0) len c2 = 1 != len c1 = 2       -> blue
#   (4,0) len c3 = 1 == len c2 = 1       -> red
#   (4,1) r=1 == len c3 = 1              -> blue
#   (4,2) r=2 > len c3 = 1 (ended above) -> red
#   (5,0) len c4 = 3 != len c3 = 1       -> blue
# Small Road (k = 2), column 2 has no row 1, so from (3,0):
#   (3,0) len c2 = 1 != len c0 = 2 -> blue; (4,0) len c3 = 1 != len c1 = 2 -> blue;
#   (4,1) r=1 == len c2 = 1 -> blue; (4,2) r=2 > 1 -> red; (5,0) 3 != 1 -> blue
# Cockroach Pig (k = 3), column 3 has no row 1, so from (4,0):
#   (4,0) len c3 = 1 != len c0 = 2 -> blue; (4,1) r=1 < len c1 = 2 -> red;
#   (4,2) r=2 == len c1 = 2 -> blue; (5,0) len c4 = 3 != len c1 = 2 -> blue
# Drawn with the Big Road's placement (a colour change starts a new column).
EXAMPLE = "BBPPBPBBBP"


def test_big_road_of_the_worked_example() -> None:
    assert positions(EXAMPLE) == [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (2, 0),
        (3, 0),
        (4, 0),
        (4, 1),
        (4, 2),
        (5, 0),
    ]


def test_big_eye_boy_of_the_worked_example() -> None:
    assert derived_cells(EXAMPLE, "big_eye_boy") == [
        (0, 0, "red"),
        (0, 1, "red"),
        (1, 0, "blue"),
        (2, 0, "red"),
        (3, 0, "blue"),
        (4, 0, "red"),
        (5, 0, "blue"),
    ]


def test_small_road_of_the_worked_example() -> None:
    assert derived_cells(EXAMPLE, "small_road") == [
        (0, 0, "blue"),
        (0, 1, "blue"),
        (0, 2, "blue"),
        (1, 0, "red"),
        (2, 0, "blue"),
    ]


def test_cockroach_pig_of_the_worked_example() -> None:
    assert derived_cells(EXAMPLE, "cockroach_pig") == [
        (0, 0, "blue"),
        (1, 0, "red"),
        (2, 0, "blue"),
        (2, 1, "blue"),
    ]


def test_ask_road_of_the_worked_example() -> None:
    # Next Banker starts column 6: c5 (1) vs c4 (3) blue; vs c3 (1) red; vs c2 (1) red.
    # Next Player is (5,1): c4 has 3 > 1 red; c3 has 1 == 1 blue; c2 has 1 == 1 blue.
    result = roads(marks(EXAMPLE))
    assert result.to_dict()["ask"] == {
        "banker": {"big_eye_boy": "blue", "small_road": "red", "cockroach_pig": "red"},
        "player": {"big_eye_boy": "red", "small_road": "blue", "cockroach_pig": "blue"},
    }


@pytest.mark.parametrize(("name", "k"), DERIVED)
def test_derived_road_starts_at_column_k_row_1(name: str, k: int) -> None:
    # Columns 0..k of one result each: nothing yet. A repeat makes entry (k, 1): the first
    # mark; column 0 is 1 long and the entry is at row 1, so blue.
    alternating = "BP" * 3
    assert derived_cells(alternating[: k + 1], name) == []
    assert derived_cells(alternating[: k + 1] + alternating[k], name) == [(0, 0, "blue")]


@pytest.mark.parametrize(("name", "k"), DERIVED)
def test_derived_road_starts_at_column_k_plus_1_row_0_without_column_k_row_1(
    name: str, k: int
) -> None:
    # Entry (k+1, 0) is the first mark: columns k and 0 are both 1 long, so red.
    alternating = "BP" * 3
    assert derived_cells(alternating[: k + 2], name) == [(0, 0, "red")]


def test_derived_road_skips_ties() -> None:
    assert derived_cells("BTBPTTPB", "big_eye_boy") == derived_cells("BBPPB", "big_eye_boy")


def test_derived_road_draws_its_streaks_with_dragon_tails() -> None:
    # Alternating results: every column is 1 long, so every Big Eye Boy mark is red; 8 reds
    # go down column 0 and tail right along row 5.
    assert derived_cells("BP" * 5, "big_eye_boy") == [(0, r, "red") for r in range(6)] + [
        (1, 5, "red"),
        (2, 5, "red"),
    ]


@pytest.mark.parametrize(
    ("row", "length", "color"),
    [(1, 3, "red"), (2, 2, "blue"), (3, 1, "red")],
)
def test_derived_color_below_row_0_is_blue_only_where_the_compared_column_ended(
    row: int, length: int, color: str
) -> None:
    # Big Eye Boy entry at column 1; column 0 is ``length`` long.
    assert derived_color([length, row + 1], 1, row, 1) == color


def test_derived_color_at_row_0_compares_the_two_columns_before() -> None:
    assert derived_color([2, 3, 2, 1], 3, 0, 1) == "blue"  # c2 (2) vs c1 (3)
    assert derived_color([2, 3, 2, 1], 3, 0, 2) == "red"  # c2 (2) vs c0 (2)


# --- bead plate and counts --------------------------------------------------------------


def test_bead_plate_fills_top_to_bottom_then_left_to_right() -> None:
    rounds = [RoundMark("banker", i % 10, i % 3 == 0, i % 4 == 0) for i in range(8)]
    plate = roads(rounds).bead_plate
    assert [(c.col, c.row) for c in plate] == [(i // 6, i % 6) for i in range(8)]
    assert [(c.points, c.banker_pair, c.player_pair) for c in plate] == [
        (m.points, m.banker_pair, m.player_pair) for m in rounds
    ]


def test_bead_plate_keeps_the_last_78_rounds_and_other_roads_keep_all() -> None:
    rounds = [RoundMark("tie" if i < 2 else "player", i % 10) for i in range(80)]
    result = roads(rounds)
    assert len(result.bead_plate) == BEAD_CELLS
    first, last = result.bead_plate[0], result.bead_plate[-1]
    assert (first.col, first.row, first.winner, first.points) == (0, 0, "player", 2)
    assert (last.col, last.row, last.points) == (12, 5, 79 % 10)
    assert result.big_road[0].ties == 2
    assert result.counts.rounds == 80


def test_counts_of_wins_pairs_and_rounds() -> None:
    rounds = [
        RoundMark("banker", 7, banker_pair=True),
        RoundMark("player", 9, player_pair=True),
        RoundMark("tie", 4, banker_pair=True, player_pair=True),
        RoundMark("banker", 6),
    ]
    assert roads(rounds).counts.to_dict() == {
        "banker": 2,
        "player": 1,
        "tie": 1,
        "banker_pair": 2,
        "player_pair": 2,
        "rounds": 4,
    }


# --- marks ------------------------------------------------------------------------------


def test_mark_from_a_dealt_outcome() -> None:
    natural = deal(iter(parse_cards(["9S", "2H", "KH", "3C"])).__next__)
    assert RoundMark.from_outcome(natural) == RoundMark("player", 9, False, False, natural=True)
    pairs = deal(iter(parse_cards(["4S", "4H", "4D", "4C"])).__next__)
    assert RoundMark.from_outcome(pairs) == RoundMark("tie", 8, True, True, natural=True)
    drawn = deal(iter(parse_cards(["2S", "3H", "4D", "4C", "5S"])).__next__)
    assert RoundMark.from_outcome(drawn).natural is False


def test_parse_marks_reads_rounds_and_defaults_pairs_to_false() -> None:
    data = [{"winner": "tie", "points": 0}, values.mark(RoundMark("banker", 9, True, False))]
    assert parse_marks(data) == [RoundMark("tie", 0), RoundMark("banker", 9, True, False)]


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"rounds": []}, "bad_rounds"),
        (["banker"], "bad_round"),
        ([{"winner": "dealer", "points": 1}], "unknown_winner"),
        ([{"winner": "banker", "points": 10}], "bad_points"),
        ([{"winner": "banker", "points": -1}], "bad_points"),
        ([{"winner": "banker", "points": True}], "bad_points"),
        ([{"winner": "banker", "points": 1.0}], "bad_points"),
        ([{"winner": "banker", "points": 1, "banker_pair": 1}], "bad_pair"),
        ([{"winner": "banker", "points": 1, "pair": True}], "unknown_field"),
        ([{"points": 1}], "missing_field"),
    ],
)
def test_parse_marks_rejects_bad_rounds(data: object, code: str) -> None:
    with pytest.raises(InvalidInput) as info:
        parse_marks(data)
    assert info.value.code == code


# --- properties -------------------------------------------------------------------------

results = st.lists(st.sampled_from("BPT"), max_size=120).map("".join)
streaky = st.lists(st.tuples(st.sampled_from("BP"), st.integers(1, 12)), max_size=16).map(
    lambda runs: "".join(c * n for c, n in runs)
)


@settings(max_examples=300)
@given(st.one_of(results, streaky), st.sampled_from(SIDES))
def test_ask_road_agrees_with_appending_the_result(letters: str, side: Hand) -> None:
    before = roads(marks(letters))
    after = roads(marks(letters + side[0].upper()))
    ask = before.ask(side)
    for name, _ in DERIVED:
        old, new = getattr(before, name), getattr(after, name)
        assert new[: len(old)] == old
        added = new[len(old) :]
        assert len(added) <= 1
        assert getattr(ask, name) == (added[0].color if added else None)


@settings(max_examples=300)
@given(st.one_of(results, streaky))
def test_every_road_places_each_cell_once_down_or_right_of_its_streak(letters: str) -> None:
    result = roads(marks(letters))
    for cells, label in (
        (result.big_road, "winner"),
        (result.big_eye_boy, "color"),
        (result.small_road, "color"),
        (result.cockroach_pig, "color"),
    ):
        coords = [(c.col, c.row) for c in cells]
        assert len(set(coords)) == len(coords)
        assert all(0 <= row < ROWS for _, row in coords)
        for prev, cell in pairwise(cells):
            if getattr(prev, label) == getattr(cell, label):
                step = (cell.col - prev.col, cell.row - prev.row)
                assert step in ((0, 1), (1, 0))
            else:
                assert cell.row == 0
    assert sum(c.ties for c in result.big_road) == letters.count("T") * bool(result.big_road)


def test_a_new_shoe_has_empty_roads() -> None:
    assert roads([]).to_dict() == {
        "bead_plate": [],
        "big_road": [],
        "big_eye_boy": [],
        "small_road": [],
        "cockroach_pig": [],
        "ask": {
            side: {"big_eye_boy": None, "small_road": None, "cockroach_pig": None}
            for side in ("banker", "player")
        },
        "counts": {
            "banker": 0,
            "player": 0,
            "tie": 0,
            "banker_pair": 0,
            "player_pair": 0,
            "rounds": 0,
        },
    }

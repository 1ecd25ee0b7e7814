"""The rules of a deal, one test per clause of docs/rules.md, "Card values and hands"."""

import pytest

from baccarat.cards import Card, parse_card, parse_cards
from baccarat.protocol import values
from baccarat.rules import Outcome, deal, is_natural, is_pair, next_draw, points

# The tableau of docs/rules.md, copied as printed: Banker total (rows) against the Player's
# third card.
SPEC_TABLEAU = """
0 H H H H H H H H H H
1 H H H H H H H H H H
2 H H H H H H H H H H
3 H H H H H H H H S H
4 S S H H H H H H S S
5 S S S S H H H H S S
6 S S S S S S H H S S
7 S S S S S S S S S S
"""
TABLEAU = {
    int(row.split()[0]): [mark == "H" for mark in row.split()[1:]]
    for row in SPEC_TABLEAU.strip().splitlines()
}


def _card(value: int, suit: str = "S") -> str:
    """A card of the given baccarat value (0 is a ten)."""
    return ("T" if value == 0 else "A" if value == 1 else str(value)) + suit


def _two(total: int, suits: str) -> tuple[str, str]:
    """Two cards making ``total`` that are not a pair."""
    return _card(total, suits[0]), "J" + suits[1]


def _deal(player: tuple[str, str], banker: tuple[str, str], *more: str) -> tuple[Outcome, int]:
    """Deal Player 1, Banker 1, Player 2, Banker 2, then ``more``; return the cards used."""
    cards = parse_cards([player[0], banker[0], player[1], banker[1], *more])
    source = iter(cards)
    used = 0

    def draw() -> Card:
        nonlocal used
        used += 1
        return next(source)

    return deal(draw), used


def test_dealing_order_player_banker_player_banker() -> None:
    outcome, _ = _deal(("9S", "KH"), ("2H", "3C"))
    assert [str(c) for c in outcome.player] == ["9S", "KH"]
    assert [str(c) for c in outcome.banker] == ["2H", "3C"]


def test_points_are_the_last_digit_of_the_sum() -> None:
    assert points(parse_cards(["9S", "8H"])) == 7
    assert points(parse_cards(["KS", "QH", "TD"])) == 0
    assert points(parse_cards(["5S", "5H", "9D"])) == 9


@pytest.mark.parametrize("natural", [8, 9])
@pytest.mark.parametrize("hand", ["player", "banker"])
def test_naturals_stop_drawing(natural: int, hand: str) -> None:
    low = _two(0, "SH")
    high = _two(natural, "DC")
    player, banker = (high, low) if hand == "player" else (low, high)
    outcome, used = _deal(player, banker, "5S", "5H")
    assert used == 4
    assert len(outcome.player) == len(outcome.banker) == 2
    assert is_natural(outcome.player) or is_natural(outcome.banker)


@pytest.mark.parametrize("total", range(6))
def test_player_draws_on_0_to_5(total: int) -> None:
    outcome, _ = _deal(_two(total, "SH"), _two(7, "DC"), "AS")
    assert len(outcome.player) == 3


@pytest.mark.parametrize("total", [6, 7])
def test_player_stands_on_6_and_7(total: int) -> None:
    outcome, _ = _deal(_two(total, "SH"), _two(7, "DC"), "AS")
    assert len(outcome.player) == 2


@pytest.mark.parametrize("banker_total", range(8))
def test_banker_with_player_standing_draws_on_0_to_5_and_stands_on_6_7(banker_total: int) -> None:
    outcome, used = _deal(_two(6, "SH"), _two(banker_total, "DC"), "AS", "2S")
    assert len(outcome.player) == 2
    assert len(outcome.banker) == (3 if banker_total <= 5 else 2)
    if banker_total <= 5:
        # The Banker takes the next card: the one a Player third card would have been.
        assert str(outcome.banker[2]) == "AS"
        assert used == 5


def _banker_draws_after_player_third(banker_total: int, third_value: int) -> bool:
    outcome, _ = _deal(_two(0, "SH"), _two(banker_total, "DC"), _card(third_value, "H"), "2C")
    assert outcome.player[2].value == third_value
    return len(outcome.banker) == 3


@pytest.mark.parametrize("third", range(10))
@pytest.mark.parametrize("banker_total", [0, 1, 2])
def test_banker_0_to_2_always_draws(banker_total: int, third: int) -> None:
    assert _banker_draws_after_player_third(banker_total, third)


@pytest.mark.parametrize("third", range(10))
def test_banker_3_draws_unless_player_third_card_is_8(third: int) -> None:
    assert _banker_draws_after_player_third(3, third) == TABLEAU[3][third] == (third != 8)


@pytest.mark.parametrize("third", range(10))
def test_banker_4_draws_on_player_third_card_2_to_7(third: int) -> None:
    assert _banker_draws_after_player_third(4, third) == TABLEAU[4][third] == (2 <= third <= 7)


@pytest.mark.parametrize("third", range(10))
def test_banker_5_draws_on_player_third_card_4_to_7(third: int) -> None:
    assert _banker_draws_after_player_third(5, third) == TABLEAU[5][third] == (4 <= third <= 7)


@pytest.mark.parametrize("third", range(10))
def test_banker_6_draws_on_player_third_card_6_or_7(third: int) -> None:
    assert _banker_draws_after_player_third(6, third) == TABLEAU[6][third] == (third in (6, 7))


@pytest.mark.parametrize("third", range(10))
def test_banker_7_stands(third: int) -> None:
    assert not _banker_draws_after_player_third(7, third)


def test_banker_reads_the_third_card_value_not_the_player_total() -> None:
    # Player 3 draws a 5: its total is 8 but its third card is 5. Banker 4 draws on a
    # third card of 5 and would stand on an 8.
    outcome, _ = _deal(_two(3, "SH"), _two(4, "DC"), "5H", "2C")
    assert outcome.player_points == 8
    assert len(outcome.banker) == 3


def test_next_draw_ends_each_hand_with_two_or_three_cards() -> None:
    p = parse_cards(["2S", "3S", "4S"])
    b = parse_cards(["2H", "3H", "4H"])
    assert next_draw(p, b) is None
    assert next_draw(p[:2], b[:2]) == "player"
    assert next_draw(p[:1], b[:1]) == "player"
    assert next_draw(p[:2], b[:1]) == "banker"


@pytest.mark.parametrize(
    ("player", "banker", "winner", "points_shown"),
    [
        (("9S", "KH"), ("2H", "3C"), "player", 9),
        (("2S", "KH"), ("9H", "KC"), "banker", 9),
        (("8S", "KH"), ("8H", "KC"), "tie", 8),
    ],
)
def test_hand_closer_to_nine_wins_and_equal_points_tie(
    player: tuple[str, str], banker: tuple[str, str], winner: str, points_shown: int
) -> None:
    outcome, _ = _deal(player, banker)
    assert outcome.winner == winner
    assert outcome.winner_points == points_shown


def test_king_king_is_a_pair() -> None:
    assert is_pair(parse_cards(["KS", "KH"]))


def test_king_queen_is_not_a_pair_though_both_count_zero() -> None:
    cards = parse_cards(["KS", "QH"])
    assert cards[0].value == cards[1].value == 0
    assert not is_pair(cards)


def test_pair_is_decided_by_the_first_two_cards_only() -> None:
    outcome, _ = _deal(("2S", "KH"), ("3D", "3C"), "2H", "9C")
    assert len(outcome.player) == 3  # the third card matches the first, but does not count
    assert not outcome.player_pair
    assert outcome.banker_pair


def test_outcome_to_dict_prints_cards_points_pairs_and_winner() -> None:
    outcome, _ = _deal(("9S", "10H"), ("2H", "3C"))
    assert values.outcome(outcome) == {
        "player": {"cards": ["9S", "TH"], "points": 9, "pair": False},
        "banker": {"cards": ["2H", "3C"], "points": 5, "pair": False},
        "winner": "player",
    }
    assert parse_card("10H") in outcome.player

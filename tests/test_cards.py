"""Cards: notation, canonical deck order, baccarat values."""

import pytest

from baccarat.cards import RANKS, SUITS, Card, deck, parse_card, parse_cards
from baccarat.errors import InvalidInput


def test_ten_written_10_is_accepted_and_printed_as_t() -> None:
    card = parse_card("10H")
    assert card == Card(10, "H")
    assert str(card) == "TH"


def test_notation_is_case_insensitive_and_round_trips() -> None:
    for card in deck():
        assert parse_card(str(card)) == card
        assert parse_card(str(card).lower()) == card


@pytest.mark.parametrize("text", ["", "1H", "11H", "ZS", "TX", "AH7", "10", "H", "S A"])
def test_unknown_card_is_rejected(text: str) -> None:
    with pytest.raises(InvalidInput) as err:
        parse_card(text)
    assert err.value.code == "unknown_card"


def test_non_text_card_is_rejected() -> None:
    with pytest.raises(InvalidInput) as err:
        parse_cards(["AS", 7])  # type: ignore[list-item]
    assert err.value.code == "unknown_card"


@pytest.mark.parametrize(
    ("rank", "suit"),
    [(0, "S"), (14, "S"), (1, "X"), (1, "SH"), (1, ""), (1, 5), (True, "S"), ("1", "S")],
)
def test_card_outside_the_deck_cannot_be_built(rank: object, suit: object) -> None:
    with pytest.raises(InvalidInput) as err:
        Card(rank, suit)  # type: ignore[arg-type]
    assert err.value.code == "unknown_card"


def test_values_ace_one_faces_and_tens_zero() -> None:
    values = {RANKS[c.rank - 1]: c.value for c in deck() if c.suit == "S"}
    assert values == {
        "A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
        "T": 0, "J": 0, "Q": 0, "K": 0,
    }  # fmt: skip


def test_canonical_deck_is_suits_s_h_d_c_then_ace_to_king() -> None:
    cards = deck()
    assert len(set(cards)) == 52
    assert [str(c) for c in cards[:14]] == [r + "S" for r in RANKS] + ["AH"]
    assert [c.suit for c in cards[::13]] == list(SUITS)
    assert str(cards[-1]) == "KC"

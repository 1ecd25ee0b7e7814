"""Exact integer settlement (docs/rules.md, "Settlement")."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.bets import AREAS, DEALER_AREAS, Area
from baccarat.cards import Card, deck, parse_cards
from baccarat.errors import InvalidInput
from baccarat.rules import Outcome, deal
from baccarat.settlement import commission_on, settle, verify_chip_unit


def _outcome(*cards: str) -> Outcome:
    source = iter(parse_cards(list(cards)))
    return deal(lambda: next(source))


PLAYER_WINS = _outcome("9S", "2H", "KH", "3C", "4D", "5S")
BANKER_WINS_WITH_PAIRS = _outcome("2S", "9H", "2D", "9C", "KD")
TIE = _outcome("8S", "8H", "KH", "KC")


def test_worked_example_of_the_spec() -> None:
    result = settle(PLAYER_WINS, "A", {"B": {"banker": 200}, "C": {"player": 100}})
    assert PLAYER_WINS.winner == "player"
    assert result.deltas == {"A": 99, "B": -200, "C": 99}
    assert result.house == 2
    assert result.commission == {"A": 1, "C": 1}


def test_player_and_banker_push_on_a_tie() -> None:
    result = settle(TIE, "A", {"B": {"banker": 500}, "C": {"player": 300}})
    assert TIE.winner == "tie"
    assert result.deltas == {"A": 0, "B": 0, "C": 0}
    assert result.house == 0


def test_tie_pays_eight_from_the_house_less_commission() -> None:
    result = settle(TIE, "A", {"B": {"tie": 100}})
    assert result.deltas == {"A": 0, "B": 792}
    assert result.house == -792


def test_pairs_pay_eleven_from_the_house() -> None:
    assert BANKER_WINS_WITH_PAIRS.player_pair and BANKER_WINS_WITH_PAIRS.banker_pair
    result = settle(BANKER_WINS_WITH_PAIRS, "A", {"B": {"player_pair": 100, "banker": 100}})
    assert result.results["B"] == {"banker": 100, "player_pair": 1100}
    assert result.deltas == {"A": -100, "B": 1188}
    assert result.commission == {"B": 12}


def test_commission_is_on_the_net_not_on_each_winning_bet() -> None:
    # Banker wins 100, Tie loses 100: the net is 0, so no commission at all.
    result = settle(BANKER_WINS_WITH_PAIRS, "A", {"B": {"banker": 100, "tie": 100}})
    assert result.deltas["B"] == 0
    assert "B" not in result.commission


def test_dealer_loss_is_paid_in_full() -> None:
    result = settle(PLAYER_WINS, "A", {"C": {"player": 1000}})
    assert result.deltas["A"] == -1000
    assert "A" not in result.commission


def test_dealer_cannot_bet() -> None:
    with pytest.raises(InvalidInput) as err:
        settle(PLAYER_WINS, "A", {"A": {"tie": 100}})
    assert err.value.code == "dealer_cannot_bet"


@pytest.mark.parametrize("unit", [100, 500, 1000, 2300])
def test_chip_unit_multiple_of_100_is_accepted(unit: int) -> None:
    assert verify_chip_unit(unit) == unit


@pytest.mark.parametrize("unit", [0, -100, 50, 150, 1.0, True, "100"])
def test_chip_unit_not_a_multiple_of_100_is_refused(unit: object) -> None:
    with pytest.raises(InvalidInput) as err:
        verify_chip_unit(unit)
    assert err.value.code == "bad_chip_unit"


def test_commission_that_would_need_rounding_is_refused() -> None:
    assert commission_on(1200) == 12
    with pytest.raises(InvalidInput) as err:
        commission_on(150)
    assert err.value.code == "inexact_commission"


cards = st.permutations(deck()).map(lambda cs: cs[:6])
slip = st.dictionaries(st.sampled_from(AREAS), st.integers(1, 50).map(lambda n: n * 100))
stakes = st.dictionaries(st.sampled_from("BCDEFGH"), slip, max_size=7)


def _outcome_of(six: list[Card]) -> Outcome:
    source = iter(six)
    return deal(lambda: next(source))


@given(six=cards, stakes=stakes)
def test_settlement_conserves_coins(six: list[Card], stakes: dict[str, dict[Area, int]]) -> None:
    result = settle(_outcome_of(six), "A", stakes)
    assert sum(result.deltas.values()) + result.house == 0
    assert set(result.deltas) == {"A", *stakes}


@given(six=cards, stakes=stakes)
def test_no_commission_on_a_negative_or_zero_net(
    six: list[Card],
    stakes: dict[str, dict[Area, int]],
) -> None:
    result = settle(_outcome_of(six), "A", stakes)
    dealer_gross = 0
    for bettor, per_area in result.results.items():
        gross = sum(per_area.values())
        fee = result.commission.get(bettor, 0)
        assert fee == (gross // 100 if gross > 0 else 0)
        assert result.deltas[bettor] == gross - fee
        dealer_gross -= sum(v for a, v in per_area.items() if a in DEALER_AREAS)
    dealer_fee = result.commission.get("A", 0)
    assert dealer_fee == (dealer_gross // 100 if dealer_gross > 0 else 0)
    assert result.deltas["A"] == dealer_gross - dealer_fee
    assert all(fee > 0 for fee in result.commission.values())

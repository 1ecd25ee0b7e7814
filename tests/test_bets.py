"""Bet areas, chips, limits and Player/Banker exclusivity (docs/rules.md, "Betting")."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.bets import (
    AREAS,
    LIMITS,
    Area,
    add_bets,
    can_add_bets,
    can_bet,
    dealer_liability,
    max_liability,
    parse_area,
    place_bet,
    remaining_limits,
    verify_bet,
    verify_bets,
    verify_chip,
)
from baccarat.errors import BaccaratError, InvalidInput, RuleViolation

UNIT = 100
RICH = 10**9


def _code(slip: dict[Area, int], area: Area, chips: int, coins: int = RICH) -> str:
    with pytest.raises(BaccaratError) as err:
        verify_bet(slip, area, chips, chip_unit=UNIT, coins=coins)
    return err.value.code


def test_bets_on_an_area_add_up() -> None:
    slip = place_bet({}, "tie", 3, chip_unit=UNIT, coins=RICH)
    slip = place_bet(slip, "tie", 5, chip_unit=UNIT, coins=RICH)
    assert slip == {"tie": 8}


@pytest.mark.parametrize(("area", "limit"), [("player", 50), ("banker", 50), ("tie", 10),
                                             ("player_pair", 10), ("banker_pair", 10)])  # fmt: skip
def test_limit_per_area_and_round(area: Area, limit: int) -> None:
    assert LIMITS[area] == limit
    slip = place_bet({}, area, limit, chip_unit=UNIT, coins=RICH)
    assert _code(slip, area, 1) == "over_limit"
    assert _code({area: limit - 2}, area, 3) == "over_limit"
    assert can_bet({area: limit - 1}, area, 1, chip_unit=UNIT, coins=RICH)


@pytest.mark.parametrize(("first", "second"), [("player", "banker"), ("banker", "player")])
def test_player_and_banker_are_exclusive(first: Area, second: Area) -> None:
    slip = place_bet({}, first, 1, chip_unit=UNIT, coins=RICH)
    assert _code(slip, second, 1) == "player_banker_exclusive"
    assert remaining_limits(slip)[second] == 0


def test_tie_and_pairs_are_free_beside_player_or_banker() -> None:
    slip: dict[Area, int] = {}
    for area in ("banker", "tie", "player_pair", "banker_pair"):
        slip = place_bet(slip, area, 1, chip_unit=UNIT, coins=RICH)
    assert set(slip) == {"banker", "tie", "player_pair", "banker_pair"}


def test_total_stake_never_exceeds_the_bettors_coins() -> None:
    assert _code({"tie": 5}, "banker", 6, coins=1000) == "insufficient_coins"
    assert can_bet({"tie": 5}, "banker", 5, chip_unit=UNIT, coins=1000)


@pytest.mark.parametrize("chips", [0, -1, True, 1.5, "1"])
def test_chips_must_be_a_whole_positive_number(chips: object) -> None:
    assert _code({}, "tie", chips) == "bad_chips"  # type: ignore[arg-type]


def test_unknown_area_is_rejected() -> None:
    assert _code({}, "dragon", 1) == "unknown_area"  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        parse_area("dragon")
    assert [parse_area(a) for a in AREAS] == list(AREAS)


@pytest.mark.parametrize("chip", [1, 2, 3, 5, 10])
def test_chip_denominations(chip: int) -> None:
    assert verify_chip(chip) == chip


@pytest.mark.parametrize("chip", [0, 4, 20, True, "5"])
def test_other_chips_do_not_exist(chip: object) -> None:
    with pytest.raises(InvalidInput) as err:
        verify_chip(chip)
    assert err.value.code == "bad_chip"


def test_remaining_limits_of_an_empty_slip_are_the_limits() -> None:
    assert remaining_limits({}) == LIMITS


bet = st.tuples(st.sampled_from(AREAS), st.integers(min_value=-2, max_value=60))


@given(bets=st.lists(bet, max_size=30), coins=st.integers(min_value=0, max_value=20_000))
def test_a_rejected_bet_changes_nothing_and_accepted_slips_keep_every_rule(
    bets: list[tuple[Area, int]], coins: int
) -> None:
    slip: dict[Area, int] = {}
    for area, chips in bets:
        before = dict(slip)
        allowed = can_bet(slip, area, chips, chip_unit=UNIT, coins=coins)
        try:
            new = place_bet(slip, area, chips, chip_unit=UNIT, coins=coins)
        except (InvalidInput, RuleViolation):
            assert not allowed
            assert slip == before
            continue
        assert allowed
        assert slip == before  # place_bet returns a new slip; the old one is untouched
        slip = new
        assert all(0 < slip[a] <= LIMITS[a] for a in slip)
        assert not (slip.get("player") and slip.get("banker"))
        assert sum(slip.values()) * UNIT <= coins


def test_the_dealers_liability_is_the_worse_outcome_not_the_sum() -> None:
    assert dealer_liability(1_500, 3_000) == 1_500
    assert dealer_liability(3_000, 1_500) == 1_500
    assert dealer_liability(700, 700) == 0
    assert dealer_liability(0, 0) == 0
    # Seven seats at the limit on one side is the most a dealer can owe.
    assert max_liability(100, 7) == 35_000 == dealer_liability(35_000, 0)


def test_many_bets_are_taken_whole_or_refused_whole() -> None:
    slip: dict[Area, int] = {"player": 5}
    assert add_bets(slip, {"player": 5, "tie": 2}, chip_unit=UNIT, coins=1_200) == {
        "player": 10,
        "tie": 2,
    }
    assert slip == {"player": 5}
    # The whole stake counts: each bet alone would fit in 1,100 coins, both together not.
    assert not can_add_bets(slip, {"player": 5, "tie": 2}, chip_unit=UNIT, coins=1_100)
    for added, code in (
        ({"banker": 1}, "player_banker_exclusive"),
        ({"tie": 11}, "over_limit"),
        ({"player": 46}, "over_limit"),
    ):
        with pytest.raises(RuleViolation) as err:
            verify_bets(slip, added, chip_unit=UNIT, coins=RICH)
        assert err.value.code == code

"""TableConfig: the rooms' defaults, timer validation, and the speed factor."""

from __future__ import annotations

import pytest

from baccarat.errors import InvalidInput
from baccarat.table import ROOMS, TableConfig


def test_defaults_are_the_standard_room_and_spec_timers() -> None:
    cfg = TableConfig("t")
    assert (cfg.chip_unit, cfg.bettor_floor, cfg.dealer_floor) == (100, 1_000, 35_000)
    assert (cfg.min_level, cfg.betting_seconds, cfg.squeeze_seconds, cfg.result_seconds) == (
        50,
        15,
        10,
        5,
    )
    assert (cfg.rounds_per_shoe, cfg.min_cards, cfg.idle_rounds_limit) == (78, 6, 5)


def test_dealer_floor_covers_seven_seats_of_fifty_chips_in_every_room() -> None:
    for room in ROOMS:
        cfg = TableConfig.for_room("t", room)
        assert cfg.dealer_floor == 7 * 50 * cfg.chip_unit
        assert cfg.bettor_floor == 10 * cfg.chip_unit


def test_scaled_divides_every_timer_and_nothing_else() -> None:
    cfg = TableConfig("t").scaled(10)
    assert (cfg.betting_seconds, cfg.squeeze_seconds, cfg.result_seconds) == (1.5, 1.0, 0.5)
    assert (cfg.shuffle_seconds, cfg.reconnect_grace_seconds, cfg.urge_cooldown_seconds) == (
        0.2,
        6.0,
        1.0,
    )
    assert cfg.chip_unit == 100 and cfg.rounds_per_shoe == 78


@pytest.mark.parametrize(
    "setting",
    [
        {"betting_seconds": 0},
        {"squeeze_seconds": -1},
        {"result_seconds": float("nan")},
        {"reconnect_grace_seconds": True},
        {"min_cards": 5},
        {"rounds_per_shoe": 0},
        {"idle_rounds_limit": 0},
        {"bettor_floor": -1},
    ],
)
def test_bad_settings_are_refused_as_bad_config(setting: dict[str, object]) -> None:
    with pytest.raises(InvalidInput) as err:
        TableConfig("t", **setting)  # type: ignore[arg-type]
    assert err.value.code == "bad_config"


def test_chip_unit_must_keep_commission_whole() -> None:
    with pytest.raises(InvalidInput) as err:
        TableConfig("t", chip_unit=150)
    assert err.value.code == "bad_chip_unit"


def test_bad_speed_and_unknown_room_are_refused() -> None:
    for bad in (0, -2, float("inf")):
        with pytest.raises(InvalidInput):
            TableConfig("t").scaled(bad)
    with pytest.raises(InvalidInput):
        TableConfig.for_room("t", "casino")

"""The rooms file: the default rooms load (docs/rules.md, "Rooms"), and every broken rule
refuses to start."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from baccarat.errors import InvalidInput
from baccarat.server.config import load_rooms, parse_rooms, split_address

GOOD: dict[str, Any] = {
    "rooms": [{"id": "standard", "chip_unit": 100, "tables": ["a", "b"]}],
}


def test_packaged_rooms_are_specs_standard_high_vip() -> None:
    config = load_rooms()
    rooms = {r.room_id: r for r in config.rooms}
    assert set(rooms) == {"standard", "high", "vip"}
    assert (rooms["standard"].chip_unit, rooms["standard"].bettor_floor) == (100, 1000)
    assert (rooms["high"].chip_unit, rooms["high"].dealer_floor) == (500, 175_000)
    assert (rooms["vip"].chip_unit, rooms["vip"].dealer_floor) == (1000, 350_000)
    assert all(len(r.table_ids) >= 2 for r in config.rooms)


def test_packaged_rooms_and_tables_are_named_in_both_languages() -> None:
    rooms = {r.room_id: r for r in load_rooms().rooms}
    assert rooms["standard"].names == {"zh-TW": "一般區", "en": "Standard"}
    assert rooms["vip"].names["zh-TW"] == "貴賓區"
    assert rooms["high"].names_of("high-2") == {"zh-TW": "高級區 2", "en": "High 2"}


def test_a_plain_text_name_still_names_the_room_in_every_language() -> None:
    data = copy.deepcopy(GOOD)
    data["rooms"][0]["name"] = "Lounge"
    room = parse_rooms(data).rooms[0]
    assert room.names == {"zh-TW": "Lounge", "en": "Lounge"}
    assert room.name == "Lounge"
    assert room.names_of("b") == {"zh-TW": "Lounge 2", "en": "Lounge 2"}


def test_a_table_may_be_named_in_each_language() -> None:
    data = copy.deepcopy(GOOD)
    data["rooms"][0]["tables"] = [{"id": "a", "name": {"zh-TW": "龍桌", "en": "Dragon"}}, "b"]
    room = parse_rooms(data).rooms[0]
    assert room.table_ids == ("a", "b")
    assert room.names_of("a") == {"zh-TW": "龍桌", "en": "Dragon"}
    assert room.names_of("b") == {"zh-TW": "standard 2", "en": "standard 2"}


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ({"zh-TW": "一般區"}, "room 'standard'.name.en: is missing"),
        ({"zh-TW": "一般區", "en": "Standard", "fr": "Normal"}, "unknown language(s) fr"),
        ({"zh-TW": "", "en": "Standard"}, "room 'standard'.name.zh-TW: must be a non-empty text"),
        (7, "room 'standard'.name: must be a text or a table of zh-TW and en texts"),
    ],
)
def test_a_broken_name_is_refused_naming_its_key(name: object, words: str) -> None:
    data = copy.deepcopy(GOOD)
    data["rooms"][0]["name"] = name
    with pytest.raises(InvalidInput) as err:
        parse_rooms(data)
    assert err.value.code == "bad_config"
    assert words in err.value.message


def test_a_broken_table_name_is_refused_naming_its_key() -> None:
    data = copy.deepcopy(GOOD)
    data["rooms"][0]["tables"] = ["a", {"id": "b", "name": {"en": "Two"}}]
    with pytest.raises(InvalidInput) as err:
        parse_rooms(data)
    assert "room 'standard'.tables[1].name.zh-TW: is missing" in err.value.message
    data["rooms"][0]["tables"] = [{"name": "x"}]
    with pytest.raises(InvalidInput) as err:
        parse_rooms(data)
    assert "tables[0]: the key 'id' is required" in err.value.message


def test_dealer_floor_defaults_to_largest_liability() -> None:
    room = parse_rooms(GOOD).rooms[0]
    assert room.dealer_floor == 7 * 50 * 100


def test_speed_divides_every_timer() -> None:
    cfg = parse_rooms(GOOD).table_configs(speed=10)["a"]
    assert cfg.betting_seconds == pytest.approx(1.5)
    assert cfg.squeeze_seconds == pytest.approx(1.0)
    assert cfg.squeeze_peel_seconds == pytest.approx(0.3)
    assert cfg.squeeze_extra_seconds == pytest.approx(0.5)


def test_a_room_sets_how_long_peeling_extends_the_squeeze() -> None:
    data = copy.deepcopy(GOOD)
    data["rooms"][0]["timers"] = {"squeeze": 12, "squeeze_peel": 4, "squeeze_extra": 8}
    cfg = parse_rooms(data).table_configs()["a"]
    assert (cfg.squeeze_seconds, cfg.squeeze_peel_seconds, cfg.squeeze_extra_seconds) == (
        12,
        4,
        8,
    )
    assert load_rooms().table_configs()["standard-1"].squeeze_extra_seconds == 5


def _broken(change: str) -> dict[str, Any]:
    data = copy.deepcopy(GOOD)
    room = data["rooms"][0]
    if change == "chip_unit":
        room["chip_unit"] = 150
    elif change == "timer":
        data["timers"] = {"betting": 0}
    elif change == "timer_text":
        data["timers"] = {"squeeze": "ten"}
    elif change == "unknown_key":
        room["colour"] = "red"
    elif change == "unknown_timer":
        data["timers"] = {"coffee_break": 3}
    elif change == "duplicate_table":
        data["rooms"].append({"id": "high", "chip_unit": 500, "tables": ["a"]})
    elif change == "duplicate_room":
        data["rooms"].append({"id": "standard", "chip_unit": 500, "tables": ["z"]})
    elif change == "no_tables":
        room["tables"] = []
    elif change == "dealer_round_limit":
        room["dealer_round_limit"] = 0
    elif change == "bettor_floor":
        room["bettor_floor"] = room["chip_unit"] - 1
    elif change == "dealer_floor":
        room["dealer_floor"] = 7 * 50 * room["chip_unit"] - 100
    return data


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("chip_unit", "multiple of 100"),
        ("timer", "positive number"),
        ("timer_text", "positive number"),
        ("unknown_key", "unknown key"),
        ("unknown_timer", "unknown key"),
        ("duplicate_table", "used twice"),
        ("duplicate_room", "used twice"),
        ("no_tables", "non-empty list"),
        ("dealer_round_limit", "dealer_round_limit: must be a whole number >= 1"),
        ("bettor_floor", "bettor_floor: must be at least one chip"),
        ("dealer_floor", "dealer_floor: must be at least the largest liability"),
    ],
)
def test_broken_configuration_is_refused_with_reason(change: str, words: str) -> None:
    with pytest.raises(InvalidInput) as err:
        parse_rooms(_broken(change))
    assert err.value.code == "bad_config"
    assert words in err.value.message


def test_unreadable_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "rooms.toml"
    path.write_text("[[rooms]\n", encoding="utf-8")
    with pytest.raises(InvalidInput) as err:
        load_rooms(path)
    assert str(path) in err.value.message


def test_the_login_registration_password_and_metrics_settings_are_read() -> None:
    data = copy.deepcopy(GOOD)
    data["server"] = {
        "login_attempts": 4,
        "login_attempts_per_name": 40,
        "register_per_ip": 2,
        "register_per_hour": 20,
        "password_hash_workers": 3,
        "password_hash_queue": 0,
        "metrics_listen": "[::1]:9100",
        "squeeze_rate": 5,
    }
    assert parse_rooms(copy.deepcopy(GOOD)).server.squeeze_rate == 10
    server = parse_rooms(data).server
    assert server.squeeze_rate == 5
    assert (server.login_attempts, server.login_attempts_per_name) == (4, 40)
    assert (server.register_per_ip, server.register_per_hour) == (2, 20)
    assert (server.password_hash_workers, server.password_hash_queue) == (3, 0)
    assert server.metrics_listen == "[::1]:9100"
    assert split_address(server.metrics_listen) == ("::1", 9100)


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("register_per_ip", 0, "whole number >= 1"),
        ("password_hash_workers", 0, "whole number >= 1"),
        ("password_hash_queue", -1, "whole number >= 0"),
        ("metrics_listen", "9100", "HOST:PORT"),
        ("metrics_listen", "127.0.0.1:99999", "HOST:PORT"),
        ("squeeze_rate", 0, "from 1 to 30"),
        ("squeeze_rate", 31, "from 1 to 30"),
        ("squeeze_rate", "10", "from 1 to 30"),
        ("squeeze_rate", True, "from 1 to 30"),
    ],
)
def test_a_bad_server_setting_is_refused_with_its_key(key: str, value: object, words: str) -> None:
    data = copy.deepcopy(GOOD)
    data["server"] = {key: value}
    with pytest.raises(InvalidInput) as err:
        parse_rooms(data)
    assert f"server.{key}" in err.value.message and words in err.value.message

"""Protocol v1 parsing: the same rules as docs/protocol/client.schema.json."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat.errors import InvalidInput
from baccarat.protocol.ids import UserId
from baccarat.protocol.parse import Message, parse
from baccarat.protocol.registry import BY_TYPE
from schemas import CLIENT, CLIENT_SCHEMA

USER = UserId(7)


def parse_message(text: str) -> Message:
    return parse(text, USER)


VALID: list[dict[str, Any]] = [
    {"type": "ping", "id": 1},
    {"type": "lobby.subscribe", "id": "a"},
    {"type": "table.watch", "id": 2, "table_id": "standard-1"},
    {"type": "sit", "id": 3, "table_id": "standard-1", "seat": 0},
    {"type": "bet", "id": 4, "area": "banker_pair", "chip": 10},
    {"type": "squeeze", "id": 5, "hand": "player", "progress": 0.5, "corner": "tl"},
    {"type": "open", "id": 6, "hand": "banker"},
    {"type": "resync", "id": 7},
    {"type": "rebet", "id": 8},
    {"type": "double", "id": 9},
    {"type": "undo", "id": 10},
    # JSON has one kind of number: an integral float is an integer, as in JSON Schema.
    {"type": "sit", "id": 11.0, "table_id": "standard-1", "seat": 1.0},
    {"type": "bet", "id": 12, "area": "player", "chip": 5.0},
]

INVALID: list[tuple[Any, str]] = [
    ("not json", "bad_message"),
    ([1, 2], "bad_message"),
    ({"type": "ping"}, "bad_message"),
    ({"type": "fly", "id": 1}, "unknown_command"),
    ({"type": "bet", "id": 1, "area": "house", "chip": 1}, "bad_message"),
    ({"type": "bet", "id": 1, "area": "player", "chip": 4}, "bad_message"),
    ({"type": "bet", "id": 1, "area": "player", "chip": True}, "bad_message"),
    ({"type": "sit", "id": 1, "table_id": "t", "seat": 8}, "bad_message"),
    ({"type": "sit", "id": 1, "table_id": "t", "seat": 1, "user_id": 5}, "bad_message"),
    (
        {"type": "squeeze", "id": 1, "hand": "player", "progress": 1.5, "corner": "tl"},
        "bad_message",
    ),
    ({"type": "open", "id": 1}, "bad_message"),
    ({"type": "rebet", "id": 1, "area": "player"}, "bad_message"),
    ({"type": "bet", "id": 1, "area": "player", "chip": 5.5}, "bad_message"),
    ({"type": "sit", "id": 1, "table_id": "t", "seat": 1.5}, "bad_message"),
    ({"type": "sit", "id": 1, "table_id": "t", "seat": -0.5}, "bad_message"),
]


@pytest.mark.parametrize("message", VALID)
def test_valid_commands_parse_and_match_the_schema(message: dict[str, Any]) -> None:
    parsed = parse_message(json.dumps(message))
    assert parsed.type == message["type"]
    assert parsed.id == message["id"]
    # Integers come out as int, whichever way the number was written.
    for name in ("seat", "chip"):
        if name in message:
            assert type(getattr(parsed.command, name)) is int
            assert getattr(parsed.command, name) == message[name]
    assert type(parsed.id) in (int, str)
    CLIENT.validate(message)


@pytest.mark.parametrize(("message", "code"), INVALID)
def test_invalid_commands_are_refused_with_code(message: Any, code: str) -> None:
    text = message if isinstance(message, str) else json.dumps(message)
    with pytest.raises(InvalidInput) as err:
        parse_message(text)
    assert err.value.code == code
    if isinstance(message, dict) and "type" in message and "id" in message:
        # The schema refuses what the parser refuses.
        assert not CLIENT.is_valid(message)


def test_a_command_acts_for_the_connections_user_and_cannot_name_another() -> None:
    for message in VALID:
        command = parse_message(json.dumps(message)).command
        assert getattr(command, "user_id", USER) == USER
        with pytest.raises(InvalidInput) as err:
            parse_message(json.dumps({**message, "user_id": 5}))
        assert (err.value.code, err.value.details.get("id")) == ("bad_message", message["id"])
        assert "user_id" in err.value.message


def test_every_command_of_the_schema_is_parsed_and_no_other() -> None:
    assert set(CLIENT_SCHEMA["properties"]["type"]["enum"]) == set(BY_TYPE)


def test_a_bad_field_is_named() -> None:
    with pytest.raises(InvalidInput) as err:
        parse_message(json.dumps({"type": "bet", "id": 1, "area": "player", "chip": 4}))
    assert err.value.message.startswith("bet.chip: a chip is one of")
    with pytest.raises(InvalidInput) as err:
        parse_message(json.dumps({"type": "squeeze", "id": 2, "hand": "player", "corner": "tl"}))
    assert err.value.message == "squeeze needs the field 'progress'."


def test_an_oversized_frame_is_refused() -> None:
    with pytest.raises(InvalidInput) as err:
        parse_message(json.dumps({"type": "ping", "id": "x" * 5000}))
    assert err.value.code == "bad_message"
    # The limit is in bytes of UTF-8: 1,500 CJK characters are 4,500 bytes.
    with pytest.raises(InvalidInput) as err:
        parse_message(json.dumps({"type": "ping", "id": 1, "pad": "閒" * 1500}, ensure_ascii=False))
    assert "4096 bytes" in err.value.message


def test_an_id_that_is_not_an_integer_or_a_short_text_is_refused_by_both() -> None:
    for bad_id in (2.5, True, None, [1], "x" * 65, 2**53, -(2**64)):
        message = {"type": "ping", "id": bad_id}
        with pytest.raises(InvalidInput) as err:
            parse_message(json.dumps(message))
        assert (err.value.code, err.value.details.get("id")) == ("bad_message", None)
        assert not CLIENT.is_valid(message)

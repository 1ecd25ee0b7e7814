"""Every message the server sends has one builder, which writes the shape frames.py types."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, NotRequired, get_args, get_origin, get_type_hints

import pytest

from baccarat.errors import RuleViolation
from baccarat.protocol import frames, messages
from baccarat.protocol.codec import dumps
from schemas import SERVER

USER: frames.User = {"id": 1, "name": "ann", "display_name": "Ann", "level": 2, "coins": 500}
ROOM: frames.Room = {
    "room_id": "standard",
    "name": "Standard",
    "names": {"zh-TW": "標準", "en": "Standard"},
    "min_level": 1,
    "chip_unit": 100,
    "bettor_floor": 1000,
    "dealer_floor": 5000,
    "dealer_round_limit": 5,
    "limits": {"banker": 100},
    "chips": [1, 5],
}

SAMPLES: list[tuple[object, str]] = [
    (
        messages.hello(USER, 12.5, {"table_id": "t1", "seat": 3}, 10.0),
        '{"type":"hello","v":1,"user":{"id":1,"name":"ann","display_name":"Ann","level":2,'
        '"coins":500},"server_time":12.5,"seat":{"table_id":"t1","seat":3},"squeeze_rate":10.0}',
    ),
    (messages.ack(3), '{"type":"ack","id":3}'),
    (messages.ack("a", server_time=1.5), '{"type":"ack","id":"a","server_time":1.5}'),
    (messages.ack(4, coalesced=True), '{"type":"ack","id":4,"coalesced":true}'),
    (
        messages.error(None, "bad_message", "Not JSON."),
        '{"type":"error","id":null,"code":"bad_message","message":"Not JSON."}',
    ),
    (
        messages.refusal(6, RuleViolation("over_limit", "Too much.", area="player", id=6)),
        '{"type":"error","id":6,"code":"over_limit","message":"Too much.",'
        '"details":{"area":"player"}}',
    ),
    (
        messages.snapshot("t1", 4, 1.25, {"phase": "betting"}),
        '{"type":"snapshot","table_id":"t1","seq":4,"server_time":1.25,"view":{"phase":"betting"}}',
    ),
    (
        messages.event("t1", 4, "chip_placed", {"chip": 5}),
        '{"type":"event","table_id":"t1","seq":4,"event":"chip_placed","data":{"chip":5}}',
    ),
    (
        messages.event("t1", 4, "urged", {"remaining_ms": 9}, private=True, server_time=2.5),
        '{"type":"event","table_id":"t1","seq":4,"private":true,"event":"urged",'
        '"data":{"remaining_ms":9},"server_time":2.5}',
    ),
    (
        messages.lobby([ROOM], [], room=None, road="any", page=0, pages=1, page_size=24, total=0),
        '{"type":"lobby","rooms":[{"room_id":"standard","name":"Standard","names":{"zh-TW":'
        '"標準","en":"Standard"},"min_level":1,"chip_unit":100,"bettor_floor":1000,"dealer_floor":5000,'
        '"dealer_round_limit":5,"limits":{"banker":100},"chips":[1,5]}],"room":null,'
        '"road":"any","page":0,"pages":1,"page_size":24,"total":0,"tables":[]}',
    ),
    (
        messages.lobby_update([{"table_id": "t1", "watchers": 3}]),
        '{"type":"lobby.update","tables":[{"table_id":"t1","watchers":3}]}',
    ),
    (
        messages.notice({"zh-TW": "休息", "en": "A break"}, "t1"),
        '{"type":"notice","table_id":"t1","text":{"zh-TW":"休息","en":"A break"}}',
    ),
]


def _builders() -> dict[type, list[Callable[..., Any]]]:
    """Each builder of ``messages`` by the frame type it returns."""
    found: dict[type, list[Callable[..., Any]]] = {}
    for _, function in inspect.getmembers(messages, inspect.isfunction):
        if function.__module__ == messages.__name__:
            returned = get_type_hints(function)["return"]
            found.setdefault(returned, []).append(function)
    return found


def _frame_type(message: Mapping[str, object]) -> type:
    kinds = {get_args(get_type_hints(t)["type"])[0]: t for t in get_args(frames.ServerMessage)}
    return kinds[message["type"]]


def test_every_frame_type_has_a_builder_and_every_builder_a_frame_type() -> None:
    builders = _builders()
    assert set(get_args(frames.ServerMessage)) == set(builders)


def test_every_frame_type_is_sampled() -> None:
    sampled = {_frame_type(message) for message, _ in SAMPLES}  # type: ignore[arg-type]
    assert sampled == set(get_args(frames.ServerMessage))


@pytest.mark.parametrize(("message", "wire"), SAMPLES)
def test_a_built_message_has_its_types_keys_and_its_bytes(message: Any, wire: str) -> None:
    shape = _frame_type(message)
    # Read from the hints: a NotRequired key in a postponed annotation still counts as required
    # in ``__required_keys__`` on Python 3.11.
    hints = get_type_hints(shape, include_extras=True)
    optional = {k for k, v in hints.items() if get_origin(v) is NotRequired}
    assert shape.__required_keys__ - optional <= message.keys() <= hints.keys()
    assert dumps(message) == wire


@pytest.mark.parametrize(
    "message",
    [m for m, _ in SAMPLES if m["type"] not in ("snapshot", "event")],  # type: ignore[index]
)
def test_a_built_message_meets_the_servers_schema(message: Any) -> None:
    # A snapshot's view and an event's data are checked against it by tests/table.
    SERVER.validate(message)

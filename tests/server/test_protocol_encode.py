"""The encoder is parse's inverse: every command of the registry reads back as itself."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat.bets import AREAS, CHIPS
from baccarat.protocol import fields as f
from baccarat.protocol.encode import encode, frame, kind
from baccarat.protocol.ids import TableId, UserId
from baccarat.protocol.parse import MAX_ID, parse
from baccarat.protocol.registry import REGISTRY, Entry
from baccarat.protocol.requests import LobbySubscribe
from baccarat.roads.patterns import PATTERNS
from baccarat.rules import HANDS
from baccarat.table.chat import EMOTES
from baccarat.table.commands import Disconnect, JoinQueue, LeaveQueue, PlaceChip, StandUp
from baccarat.table.config import SEATS, UserInfo
from baccarat.table.squeeze import CORNERS
from schemas import CLIENT

USER = UserId(7)

# A text a frame carries: any character but a lone surrogate (which no JSON reader takes).
TEXT = st.characters(exclude_categories=("Cs",))
IDS = st.text(TEXT, min_size=1, max_size=64)

VALUES: dict[Callable[[object], object], st.SearchStrategy[Any]] = {
    f.table_id: IDS.map(TableId),
    f.seat: st.integers(0, SEATS - 1),
    f.area: st.sampled_from(AREAS),
    f.chip: st.sampled_from(CHIPS),
    f.hand: st.sampled_from(HANDS),
    f.progress: st.floats(0, 1),
    f.corner: st.sampled_from(CORNERS),
    f.chat_text: st.text(TEXT, max_size=f.MAX_CHAT_TEXT),
    f.flag: st.booleans(),
    f.emote: st.sampled_from(sorted(EMOTES)),
    f.room_id: IDS,
    f.road: st.sampled_from(("any", *PATTERNS)),
    f.page: st.integers(0, 100_000),
}
"""Every value each field's check takes."""

MESSAGE_IDS = st.text(TEXT, max_size=64) | st.integers(-MAX_ID, MAX_ID)


def commands(entry: Entry) -> st.SearchStrategy[Any]:
    """Every command of ``entry``, acting for ``USER`` (an optional field also left out)."""
    values = {
        field.target: VALUES[field.check]
        | (st.just(entry.defaults[field.target]) if field.optional else st.nothing())
        for field in entry.fields
    }
    if "user_id" in entry.unsent:
        values["user_id"] = st.just(USER)
    return st.builds(entry.command, **values)


def test_every_field_of_the_registry_has_its_values() -> None:
    assert {field.check for entry in REGISTRY for field in entry.fields} == set(VALUES)


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.type)
@settings(max_examples=30)
@given(data=st.data())
def test_parse_reads_back_every_encoded_command(entry: Entry, data: st.DataObject) -> None:
    command = data.draw(commands(entry))
    msg_id = data.draw(MESSAGE_IDS)
    text = encode(command, msg_id)
    # What the encoder writes, the schema that documents the wire takes.
    CLIENT.validate(json.loads(text))
    message = parse(text, USER)
    assert message.command == command
    assert message.id == msg_id
    assert message.type == kind(command) == entry.type


def test_a_frame_names_its_type_and_id_and_leaves_the_user_out() -> None:
    assert frame(PlaceChip(USER, "banker", 5), 3) == {
        "type": "bet",
        "id": 3,
        "area": "banker",
        "chip": 5,
    }
    assert json.loads(encode(StandUp(USER), "a")) == {"type": "stand", "id": "a"}
    assert frame(LobbySubscribe(), 1) == {"type": "lobby.subscribe", "id": 1}
    assert encode(LobbySubscribe("vip", 2, "any"), 1) == (
        '{"type":"lobby.subscribe","id":1,"page":2,"room":"vip","road":"any"}'
    )


@pytest.mark.parametrize(
    "command", [JoinQueue(USER, UserInfo(USER, "ann", 1, 1000)), Disconnect(USER)]
)
def test_a_command_the_server_makes_itself_has_no_frame(command: Any) -> None:
    with pytest.raises(TypeError, match="not a command a client sends"):
        encode(command, 1)


def test_a_client_leaves_the_queue_without_a_reason() -> None:
    with pytest.raises(ValueError, match="without a reason"):
        encode(LeaveQueue(USER, "away"), 1)

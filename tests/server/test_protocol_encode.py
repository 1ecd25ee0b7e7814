"""The encoder is parse's inverse: every command of the registry reads back as itself."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.bets import AREAS, CHIPS
from baccarat.protocol.encode import encode, frame, kind
from baccarat.protocol.fields import MAX_CHAT_TEXT
from baccarat.protocol.ids import TableId, UserId
from baccarat.protocol.parse import MAX_ID, parse
from baccarat.protocol.registry import BY_CLASS, REGISTRY
from baccarat.protocol.requests import (
    Leave,
    LobbySubscribe,
    LobbyUnsubscribe,
    Ping,
    QueueUp,
    Resync,
    TakeSeat,
    Watch,
)
from baccarat.roads.patterns import PATTERNS
from baccarat.rules import HANDS
from baccarat.table.chat import EMOTES
from baccarat.table.commands import (
    ClearBets,
    Disconnect,
    Double,
    Emote,
    JoinQueue,
    LeaveQueue,
    OpenCard,
    PlaceChip,
    Rebet,
    Say,
    SetAutoOpen,
    SqueezeProgress,
    StandUp,
    Undo,
    Urge,
)
from baccarat.table.config import SEATS, UserInfo
from baccarat.table.squeeze import CORNERS

USER = UserId(7)

# A text a frame carries: any character but a lone surrogate (which no JSON reader takes).
TEXT = st.characters(exclude_categories=("Cs",))
IDS = st.text(TEXT, min_size=1, max_size=64)
TABLE_IDS = IDS.map(TableId)

STRATEGIES: dict[type, st.SearchStrategy[Any]] = {
    Ping: st.just(Ping()),
    LobbySubscribe: st.builds(
        LobbySubscribe,
        st.none() | IDS,
        st.integers(0, 100_000),
        st.none() | st.sampled_from(("any", *PATTERNS)),
    ),
    LobbyUnsubscribe: st.just(LobbyUnsubscribe()),
    Watch: st.builds(Watch, TABLE_IDS),
    Leave: st.just(Leave()),
    Resync: st.just(Resync()),
    TakeSeat: st.builds(TakeSeat, TABLE_IDS, st.integers(0, SEATS - 1)),
    StandUp: st.just(StandUp(USER)),
    PlaceChip: st.builds(PlaceChip, st.just(USER), st.sampled_from(AREAS), st.sampled_from(CHIPS)),
    ClearBets: st.just(ClearBets(USER)),
    Rebet: st.just(Rebet(USER)),
    Double: st.just(Double(USER)),
    Undo: st.just(Undo(USER)),
    Urge: st.just(Urge(USER)),
    SqueezeProgress: st.builds(
        SqueezeProgress,
        st.just(USER),
        st.sampled_from(HANDS),
        st.floats(0, 1),
        st.sampled_from(CORNERS),
    ),
    OpenCard: st.builds(OpenCard, st.just(USER), st.sampled_from(HANDS)),
    QueueUp: st.just(QueueUp()),
    LeaveQueue: st.just(LeaveQueue(USER)),
    SetAutoOpen: st.builds(SetAutoOpen, st.just(USER), st.booleans()),
    Say: st.builds(Say, st.just(USER), st.text(TEXT, max_size=MAX_CHAT_TEXT)),
    Emote: st.builds(Emote, st.just(USER), st.sampled_from(sorted(EMOTES))),
}

MESSAGE_IDS = st.text(TEXT, max_size=64) | st.integers(-MAX_ID, MAX_ID)


def test_every_command_of_the_registry_has_a_strategy() -> None:
    assert set(STRATEGIES) == set(BY_CLASS)
    assert len(REGISTRY) == len(STRATEGIES)


@given(st.one_of(*STRATEGIES.values()), MESSAGE_IDS)
def test_parse_reads_back_every_encoded_command(command: Any, msg_id: str | int) -> None:
    message = parse(encode(command, msg_id), USER)
    assert message.command == command
    assert message.id == msg_id
    assert message.type == kind(command)


def test_a_frame_names_its_type_and_id_and_leaves_the_user_out() -> None:
    assert frame(PlaceChip(USER, "banker", 5), 3) == {
        "type": "bet",
        "id": 3,
        "area": "banker",
        "chip": 5,
    }
    assert json.loads(encode(StandUp(USER), "a")) == {"type": "stand", "id": "a"}
    assert frame(LobbySubscribe(), 1) == {"type": "lobby.subscribe", "id": 1}


@pytest.mark.parametrize(
    "command", [JoinQueue(USER, UserInfo(USER, "ann", 1, 1000)), Disconnect(USER)]
)
def test_a_command_the_server_makes_itself_has_no_frame(command: Any) -> None:
    with pytest.raises(TypeError, match="not a command a client sends"):
        encode(command, 1)


def test_a_client_leaves_the_queue_without_a_reason() -> None:
    with pytest.raises(ValueError, match="without a reason"):
        encode(LeaveQueue(USER, "away"), 1)

"""The registry lists each command a client sends once, and refuses an entry no frame can make."""

from __future__ import annotations

from typing import cast

import pytest

from baccarat.protocol import fields as f
from baccarat.protocol.registry import BY_CLASS, BY_TYPE, REGISTRY, Entry, Field
from baccarat.protocol.requests import Ping
from baccarat.server.http.ws import Dispatcher, Host
from baccarat.table.commands import Disconnect, JoinQueue, PlaceChip, SetCoins, Sit


def test_each_command_is_listed_once_by_type_and_by_class() -> None:
    assert len(BY_TYPE) == len(BY_CLASS) == len(REGISTRY)
    assert all(BY_TYPE[e.type] is e and BY_CLASS[e.command] is e for e in REGISTRY)


@pytest.mark.parametrize("command", [Sit, JoinQueue, Disconnect, SetCoins])
def test_a_command_the_server_makes_itself_has_no_entry(command: type) -> None:
    assert command not in BY_CLASS


def test_an_entry_whose_frame_cannot_make_its_command_is_refused() -> None:
    # JoinQueue needs the user's record, which no frame carries.
    with pytest.raises(TypeError, match="a frame cannot make a JoinQueue"):
        Entry("queue.join", JoinQueue, (), "at_table")
    with pytest.raises(TypeError, match="a frame cannot make a PlaceChip"):
        Entry("bet", PlaceChip, (Field("area", f.area),), "at_once")


def test_an_entry_naming_an_attribute_its_command_lacks_is_refused() -> None:
    with pytest.raises(TypeError, match="PlaceChip has no"):
        Entry("bet", PlaceChip, (Field("area", f.area), Field("coins", f.chip)), "at_once")


def test_an_optional_field_needs_a_default() -> None:
    with pytest.raises(TypeError, match="cannot make"):
        Entry(
            "bet",
            PlaceChip,
            (Field("area", f.area), Field("chip", f.chip, optional=True)),
            "at_once",
        )


def test_a_request_has_no_table_route() -> None:
    with pytest.raises(TypeError, match="only a table's command"):
        Entry("ping", Ping, (), "at_seat")


def test_only_a_peel_move_is_coalesced() -> None:
    assert [e.type for e in REGISTRY if e.coalesced] == ["squeeze"]


def test_the_dispatcher_routes_every_command_by_its_entry() -> None:
    dispatcher = Dispatcher(cast(Host, None))
    assert set(dispatcher.handlers) == set(BY_CLASS)
    routed = {"at_once": "at_once", "at_seat": "at_seat", "at_table": "at_table"}
    for entry in REGISTRY:
        name = dispatcher.handlers[entry.command].__name__
        assert name == routed.get(entry.route, name), entry.type
        assert (entry.route == "server") == (name not in routed.values()), entry.type

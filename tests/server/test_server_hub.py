"""The hub's seat registry: each table's seats kept apart, updated only when they change."""

from __future__ import annotations

from baccarat.server.sockets.hub import Hub


def test_set_seats_records_each_table_apart() -> None:
    hub = Hub()
    hub.set_seats("a", {1: 0, 2: 3})
    hub.set_seats("b", {5: 0})
    assert hub.seats == {1: ("a", 0), 2: ("a", 3), 5: ("b", 0)}
    assert hub.table_seats == {"a": {1: 0, 2: 3}, "b": {5: 0}}


def test_set_seats_returns_who_left_and_forgets_them() -> None:
    hub = Hub()
    hub.set_seats("a", {1: 0, 2: 3})
    assert hub.set_seats("a", {1: 0}) == {2}
    assert hub.seats == {1: ("a", 0)}
    assert hub.set_seats("a", {}) == {1}
    assert hub.seats == {}
    assert hub.table_seats == {}


def test_unchanged_seats_change_nothing() -> None:
    hub = Hub()
    hub.set_seats("a", {1: 0})
    assert hub.set_seats("a", {1: 0}) == set()
    assert hub.seats == {1: ("a", 0)}


def test_a_user_seated_elsewhere_since_is_not_forgotten() -> None:
    # The user's new table recorded them before the old table recorded their leaving.
    hub = Hub()
    hub.set_seats("a", {1: 2})
    hub.set_seats("b", {1: 4})
    assert hub.set_seats("a", {}) == {1}
    assert hub.seats == {1: ("b", 4)}

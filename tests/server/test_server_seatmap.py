"""The seat map: each table's seats kept apart, updated only when they change."""

from __future__ import annotations

from baccarat.server.tables.seatmap import SeatMap


def test_record_keeps_each_table_apart() -> None:
    seats = SeatMap()
    seats.record("a", {1: 0, 2: 3})
    seats.record("b", {5: 0})
    assert seats.at == {1: ("a", 0), 2: ("a", 3), 5: ("b", 0)}
    assert seats.by_table == {"a": {1: 0, 2: 3}, "b": {5: 0}}
    assert (seats.table_of(2), seats.table_of(9)) == ("a", None)
    assert 5 in seats and 9 not in seats


def test_record_returns_who_left_forgets_them_and_tells_the_node() -> None:
    seats, freed = SeatMap(), []
    seats.on_freed = lambda user_id, table_id: freed.append((user_id, table_id))
    seats.record("a", {1: 0, 2: 3})
    assert seats.record("a", {1: 0}) == {2}
    assert seats.at == {1: ("a", 0)}
    assert seats.record("a", {}) == {1}
    assert seats.at == {} and seats.by_table == {}
    assert freed == [(2, "a"), (1, "a")]


def test_unchanged_seats_change_nothing() -> None:
    seats, freed = SeatMap(), []
    seats.on_freed = lambda user_id, table_id: freed.append((user_id, table_id))
    seats.record("a", {1: 0})
    assert seats.record("a", {1: 0}) == set()
    assert seats.at == {1: ("a", 0)} and freed == []


def test_a_user_seated_elsewhere_since_is_not_forgotten() -> None:
    # The user's new table recorded them before the old table recorded their leaving.
    seats = SeatMap()
    seats.record("a", {1: 2})
    seats.record("b", {1: 4})
    assert seats.record("a", {}) == {1}
    assert seats.at == {1: ("b", 4)}

"""The placement: every live node runs an even share of the tables (within one), a join moves
about 1/N of them and only from nodes above their share, a leave spreads the leaver's tables
over the others, and pinned tables stay on their nodes."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from placing import settle

from baccarat.cluster.placement import balance, ranking

TABLES = [f"t{i}" for i in range(8)]


def loads(holders: dict[str, str], nodes: list[str]) -> list[int]:
    counted = Counter(holders.values())
    return sorted(counted.get(n, 0) for n in nodes)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 9])
def test_every_node_runs_an_even_share_within_one(n: int) -> None:
    nodes = [f"node-{i}" for i in range(n)]
    spread = loads(settle(TABLES, nodes, {}), nodes)
    assert spread[-1] - spread[0] <= 1 and sum(spread) == len(TABLES)


def test_a_node_that_joins_takes_its_share_only_from_nodes_above_theirs() -> None:
    alone = settle(TABLES, ["a"], {})
    assert loads(alone, ["a"]) == [8]
    two = settle(TABLES, ["a", "b"], alone)
    assert loads(two, ["a", "b"]) == [4, 4]
    three = settle(TABLES, ["a", "b", "c"], two)
    assert loads(three, ["a", "b", "c"]) == [2, 3, 3]
    moved = [t for t in TABLES if three[t] != two[t]]
    assert len(moved) == 2 and all(three[t] == "c" for t in moved)


def test_a_node_that_leaves_has_its_tables_spread_over_the_others() -> None:
    tables = [f"t{i}" for i in range(60)]
    nodes = [f"n{i}" for i in range(6)]
    before = settle(tables, nodes, {})
    after = settle(tables, nodes[1:], before)
    moved = [t for t in tables if after[t] != before[t]]
    assert sorted(moved) == sorted(t for t in tables if before[t] == "n0")
    assert len({after[t] for t in moved}) >= 4
    assert loads(after, nodes[1:]) == [12] * 5


def test_a_free_table_goes_first_to_the_first_node_in_its_ranking_with_room() -> None:
    holders = {t: "a" for t in TABLES[:4]}
    for table in TABLES[4:]:
        first = ranking(table, ["a", "b"])[0]
        plan_b = balance("b", TABLES, ["a", "b"], holders)
        assert table in plan_b.take  # a is full: b is the first with room
        if first == "a":
            assert table not in balance("a", TABLES, ["a", "b"], holders).take


def test_a_table_nobody_with_room_takes_is_left_to_anyone_after_the_graces() -> None:
    # A live node that takes nothing (just starting, or stuck) must not strand a table: c
    # has room for t2; a and b, at their share, may take it after two graces.
    holders = {"t0": "b", "t1": "a"}
    for full in ("a", "b"):
        plan = balance(full, ["t0", "t1", "t2"], ["a", "b", "c"], holders)
        assert plan.take == plan.later == () and plan.last == ("t2",)


@pytest.mark.parametrize("handed", ["t1", "t2"])
def test_a_table_handed_over_goes_to_the_node_with_room_not_back(handed: str) -> None:
    # a knows t1 and t2, b knows t3 too (nodes may list different tables): a runs its share
    # of one and hands the other over. b waits a grace when a ranks first for it (in b's
    # eyes a has room); a, full in its own eyes, waits two, so it never takes it back first.
    kept = "t2" if handed == "t1" else "t1"
    holders = {kept: "a", "t3": "b"}
    nodes = ["a", "b"]
    plan_a = balance("a", ["t1", "t2"], nodes, holders)
    plan_b = balance("b", ["t1", "t2", "t3"], nodes, holders)
    assert handed not in (*plan_a.take, *plan_a.later) and handed in plan_a.last
    assert handed in (*plan_b.take, *plan_b.later)


def test_pinned_tables_stay_on_their_live_nodes_and_go_anywhere_when_none_is() -> None:
    pins = {"t0": frozenset({"c"}), "t1": frozenset({"c"})}
    nodes = ["a", "b", "c"]
    placed = settle(TABLES, nodes, {}, pins)
    assert placed["t0"] == placed["t1"] == "c"
    # The other tables are shared evenly by all three (a pinned table is not counted).
    loose = [t for t in TABLES if t not in pins]
    assert loads({t: placed[t] for t in loose}, nodes) == [2, 2, 2]
    # c leaves: its pinned tables run elsewhere until it is back.
    without = settle(TABLES, ["a", "b"], placed, pins)
    assert without["t0"] in {"a", "b"}
    back = settle(TABLES, nodes, without, pins)
    assert back["t0"] == back["t1"] == "c"


@settings(max_examples=60, deadline=None)
@given(
    tables=st.integers(1, 40),
    before=st.integers(1, 7),
    after=st.integers(1, 7),
)
def test_any_change_of_nodes_settles_within_one_of_even(
    tables: int, before: int, after: int
) -> None:
    ids = [f"t{i}" for i in range(tables)]
    first = [f"n{i}" for i in range(before)]
    second = [f"n{i}" for i in range(after)]
    held = settle(ids, second, settle(ids, first, {}))
    spread = loads(held, second)
    assert spread[-1] - spread[0] <= 1 and sum(spread) == tables

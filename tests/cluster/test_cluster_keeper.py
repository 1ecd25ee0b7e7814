"""The keeper: a node runs exactly the tables it leases, and gives them up when it must."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence

import pytest

from baccarat.cluster import Directory
from baccarat.cluster.keeper import Keeper
from baccarat.cluster.local import LocalDirectory

NodeFactory = Callable[[], Directory]
TABLES = ("t1", "t2", "t3")


class Tables:
    """What a node's server would run: the tables the keeper handed it."""

    def __init__(self, fail: set[str] | None = None) -> None:
        self.running: dict[str, int] = {}
        self.fail = fail or set()
        self.lost_seats: list[int] = []
        self.started: list[str] = []

    async def gained(self, table_id: str, token: int) -> None:
        await asyncio.sleep(0)  # starting a table awaits (the database), so ticks interleave
        if table_id in self.fail:
            raise RuntimeError("cannot start")
        self.started.append(table_id)
        self.running[table_id] = token

    async def lost(self, table_id: str) -> None:
        del self.running[table_id]


def _keeper(
    d: Directory, node: str, tables: Tables, ttl: float = 10.0, seats: dict[int, str] | None = None
) -> Keeper:
    return Keeper(
        d,
        node,
        f"http://{node}:8000",
        TABLES,
        on_gained=tables.gained,
        on_lost=tables.lost,
        seats=lambda: dict(seats or {}),
        on_seat_lost=tables.lost_seats.append,
        ttl=ttl,
    )


async def test_each_table_runs_on_exactly_one_node(nodes: NodeFactory) -> None:
    ta, tb = Tables(), Tables()
    a, b = _keeper(nodes(), "A", ta), _keeper(nodes(), "B", tb)
    await asyncio.gather(a.tick(), b.tick())
    await asyncio.gather(a.tick(), b.tick())
    assert set(ta.running) | set(tb.running) == set(TABLES)
    assert not set(ta.running) & set(tb.running)
    assert a.held == ta.running and b.held == tb.running
    assert set(await nodes().nodes()) == {"A", "B"}


async def test_a_stopped_node_hands_its_tables_over(nodes: NodeFactory) -> None:
    ta, tb = Tables(), Tables()
    a, b = _keeper(nodes(), "A", ta), _keeper(nodes(), "B", tb)
    await a.tick()
    await b.tick()
    assert set(ta.running) == set(TABLES) and tb.running == {}
    before = dict(ta.running)
    await a.stop()
    assert ta.running == {} and "A" not in await nodes().nodes()
    await b.tick()
    assert set(tb.running) == set(TABLES)
    assert all(tb.running[t] > before[t] for t in TABLES)


async def test_a_dead_nodes_tables_are_taken_over_and_it_stops_them_when_it_wakes(
    nodes: NodeFactory,
) -> None:
    ta, tb = Tables(), Tables()
    a, b = _keeper(nodes(), "A", ta, ttl=0.15), _keeper(nodes(), "B", tb)
    await a.tick()
    before = dict(ta.running)
    d = nodes()
    for _ in range(200):  # A stops renewing, as if it froze
        if all([await d.owner(t) is None for t in TABLES]):
            break
        await asyncio.sleep(0.02)
    await b.tick()
    assert set(tb.running) == set(TABLES)
    assert all(tb.running[t] > before[t] for t in TABLES)
    await a.tick()  # A wakes: its renewals are refused, so its tables stop
    assert ta.running == {} and a.held == {}
    assert set(tb.running) == set(TABLES)


async def test_a_table_that_cannot_start_is_left_for_another_node(nodes: NodeFactory) -> None:
    ta, tb = Tables(fail={"t2"}), Tables()
    a, b = _keeper(nodes(), "A", ta), _keeper(nodes(), "B", tb)
    await a.tick()
    await b.tick()
    assert set(ta.running) == {"t1", "t3"}
    assert set(tb.running) == {"t2"}


async def test_seat_claims_of_this_node_are_renewed_and_lost_ones_reported(
    nodes: NodeFactory,
) -> None:
    d = nodes()
    ta = Tables()
    assert await d.claim_seat(7, "t1", 2, "A", 10.0) is True
    assert await d.claim_seat(8, "t2", 1, "B", 10.0) is True
    a = _keeper(nodes(), "A", ta, seats={7: "t1", 8: "t2"})
    await a.tick()
    assert ta.lost_seats == [8]


async def test_the_background_task_ticks_until_stopped(nodes: NodeFactory) -> None:
    ta = Tables()
    # A tick every 0.67 s: the leases hold even if a loaded machine holds a tick back a second.
    a = _keeper(nodes(), "A", ta, ttl=2.0)
    a.start()
    d = nodes()
    for _ in range(200):
        if len(ta.running) == len(TABLES):
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(2.5)  # longer than the ttl: only renewals keep the leases
    owners = [await d.owner(t) for t in TABLES]
    assert [o.node_id if o else None for o in owners] == ["A", "A", "A"]
    await a.stop()
    assert [await d.owner(t) for t in TABLES] == [None, None, None]


class Unreachable(Exception):
    """The directory cannot be reached."""


class Flaky:
    """A directory that stops answering when told to."""

    def __init__(self, inner: Directory) -> None:
        self.inner = inner
        self.down = False

    def __getattr__(self, name: str) -> object:
        if self.down:
            raise Unreachable(name)
        return getattr(self.inner, name)


async def test_a_node_cut_off_from_the_directory_stops_its_tables_when_its_leases_run_out(
    nodes: NodeFactory,
) -> None:
    ta, tb = Tables(), Tables()
    flaky = Flaky(nodes())
    a = _keeper(flaky, "A", ta, ttl=1.0)  # type: ignore[arg-type]
    b = _keeper(nodes(), "B", tb)
    await a.tick()
    assert set(ta.running) == set(TABLES)
    flaky.down = True
    with pytest.raises(Unreachable):
        await a.tick()  # within the ttl: the tables run on
    assert set(ta.running) == set(TABLES)
    d = nodes()
    for _ in range(400):
        if all([await d.owner(t) is None for t in TABLES]):
            break
        await asyncio.sleep(0.02)
    with pytest.raises(Unreachable):
        await a.tick()
    assert ta.running == {} and a.held == {}
    await b.tick()
    assert set(tb.running) == set(TABLES)


async def test_a_node_cut_off_from_the_directory_plays_on_while_the_database_gives_it_its_tables(
    nodes: NodeFactory,
) -> None:
    ta = Tables()
    taken: set[str] = set()  # the tables whose epoch another node raised meanwhile

    async def confirm(table_ids: Sequence[str]) -> set[str]:
        return {t for t in table_ids if t not in taken}

    async def regained(table_id: str) -> bool:
        return table_id not in taken

    flaky = Flaky(nodes())
    a = Keeper(
        flaky,  # type: ignore[arg-type]
        "A",
        "http://A:8000",
        TABLES,
        on_gained=ta.gained,
        on_lost=ta.lost,
        on_confirm=confirm,
        on_regained=regained,
        ttl=1.0,
    )
    await a.tick()
    assert set(ta.running) == set(TABLES)
    flaky.down = True
    d = nodes()
    for _ in range(400):
        if all([await d.owner(t) is None for t in TABLES]):
            break
        await asyncio.sleep(0.02)
    with pytest.raises(Unreachable):
        await a.tick()  # past the ttl: the database still gives every table to A
    assert set(ta.running) == set(TABLES) and a.leases_lost["expired"] == 0
    taken.add("t1")
    with pytest.raises(Unreachable):
        await a.tick()  # another node took t1: it stops here, the others play on
    assert set(ta.running) == {"t2", "t3"} and a.leases_lost["expired"] == 1
    flaky.down = False
    await a.tick()  # the directory is back (empty): A leases its own tables again
    assert set(ta.running) == {"t2", "t3"}
    assert [o.node_id if o else None for o in [await d.owner(t) for t in ("t2", "t3")]] == [
        "A",
        "A",
    ]


async def test_overlapping_ticks_start_each_table_once(nodes: NodeFactory) -> None:
    ta = Tables()
    a = _keeper(nodes(), "A", ta)
    await asyncio.gather(a.tick(), a.tick(), a.tick())
    assert sorted(ta.started) == sorted(TABLES)


async def test_a_woken_keeper_takes_a_released_table_before_its_next_period(
    nodes: NodeFactory,
) -> None:
    ta, tb = Tables(), Tables()
    a, b = _keeper(nodes(), "A", ta), _keeper(nodes(), "B", tb, ttl=600.0)
    await a.tick()
    b.start()  # first tick finds nothing free; the next period is 200 s away
    try:
        for _ in range(200):
            if "B" in await nodes().nodes():
                break
            await asyncio.sleep(0.02)
        await a.stop()
        b.wake()
        for _ in range(200):
            if len(tb.running) == len(TABLES):
                break
            await asyncio.sleep(0.02)
        assert set(tb.running) == set(TABLES)
    finally:
        await b.stop()


class Counting(LocalDirectory):
    """A directory of its own process that counts the renewals asked of it."""

    def __init__(self, *, expires: bool) -> None:
        super().__init__(clock=lambda: 0.0, expires=expires)
        self.renewals = 0

    async def renew(self, table_id: str, node_id: str, token: int) -> bool:
        self.renewals += 1
        return await super().renew(table_id, node_id, token)

    async def renew_seats(self, node_id: str, seats: Mapping[int, str], ttl: float) -> set[int]:
        self.renewals += 1
        return await super().renew_seats(node_id, seats, ttl)


async def test_a_system_of_one_renews_nothing_and_keeps_its_tables() -> None:
    # Where leases run out, every tick after the first renews each table and the seats.
    directory, tables = Counting(expires=True), Tables()
    keeper = _keeper(directory, "A", tables, seats={7: "t1"})
    for _ in range(3):
        await keeper.tick()
    assert directory.renewals == 1 + 2 * (len(TABLES) + 1)
    # A system of one renews nothing, and keeps its tables long past the ttl.
    directory, tables = Counting(expires=False), Tables()
    keeper = _keeper(directory, "A", tables, ttl=0.01, seats={7: "t1"})
    for _ in range(3):
        await keeper.tick()
        await asyncio.sleep(0.02)
    assert directory.renewals == 0
    assert set(tables.running) == set(TABLES) and keeper.held == tables.running
    assert tables.started == sorted(TABLES)


async def test_a_worker_takes_its_share_first_and_the_rest_after_a_ttl(
    nodes: NodeFactory,
) -> None:
    # Worker 0 of 2 is up alone: it leases t1 and t3 (its share), not t2, for one ttl.
    ta = Tables()
    a = Keeper(
        nodes(), "A", "http://A:8000", TABLES, on_gained=ta.gained, on_lost=ta.lost,
        ttl=1.0, share=(0, 2),
    )  # fmt: skip
    await a.tick()
    await a.tick()
    assert set(ta.running) == {"t1", "t3"}
    # Worker 1 never came: after the ttl, worker 0 runs its table too.
    await asyncio.sleep(1.05)
    await a.tick()
    assert set(ta.running) == set(TABLES)

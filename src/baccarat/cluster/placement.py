"""Where each table runs: rendezvous hashing over the live nodes, with bounded loads.

Each table ranks the nodes by a hash of its id with theirs (rendezvous, or highest random
weight, hashing: Thaler and Ravishankar, 1998), and every node may run at most an even share
of the tables, rounded up (bounded loads: Mirrokni, Thorup and Zadimoghaddam, 2016). Each node
decides for itself from what every node sees alike, the live nodes and who leases each table:
it hands over what it runs beyond its share, and leases a free table when it is the first
node in that table's ranking with room (or, after a grace, when that node has not). So a node
that joins takes about 1/N of the tables, only from nodes above their share; a node that
leaves has its tables spread over the others, each to its next choice with room; and every
node ends with the even share or one less. ``bench/bench_placement.py`` simulates it.

An operator may pin a table to some nodes: it runs on the first of them in its ranking that
is live, whatever the loads, and on any node when none of them is.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

Pins = Mapping[str, frozenset[str]]


def weight(table_id: str, node_id: str) -> int:
    """The table's random weight on a node: the first 8 bytes of a SHA-256 of both ids."""
    digest = hashlib.sha256(f"{table_id}\x00{node_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def ranking(table_id: str, nodes: Iterable[str]) -> list[str]:
    """The nodes in the table's order of preference."""
    return sorted(nodes, key=lambda n: (weight(table_id, n), n), reverse=True)


@dataclass(frozen=True, slots=True)
class Balance:
    """What one node should do about the tables, as the placement sees them now."""

    take: tuple[str, ...] = ()
    """Free tables this node is first in line for: lease them now."""
    later: tuple[str, ...] = ()
    """Free tables it may lease if they are still free after a grace: nobody before it in
    line took them (a node that is live but not taking tables, such as one just starting)."""
    shed: tuple[str, ...] = ()
    """Tables it runs that belong elsewhere: hand them over as their rounds end."""


def balance(
    me: str,
    table_ids: Sequence[str],
    live: Iterable[str],
    holders: Mapping[str, str],
    pins: Pins | None = None,
) -> Balance:
    """What ``me`` should take and hand over so that every live node runs an even share (the
    share rounded down or up), each table as high in its ranking as the loads allow.

    ``holders`` names the node leasing each table (a table not in it is free); a table
    pinned to live nodes stays with them whatever their load."""
    nodes = sorted(set(live) | {me})
    pinned = {t: set(nodes) & set((pins or {}).get(t, ())) for t in table_ids}
    pinned = {t: ns for t, ns in pinned.items() if ns}
    loose = [t for t in table_ids if t not in pinned]
    low, extra = divmod(len(loose), len(nodes))
    high = low + (extra > 0)
    load = Counter(holders[t] for t in loose if t in holders)
    short = [n for n in nodes if load[n] < low]
    take: list[str] = []
    later: list[str] = []
    shed = [t for t, ns in pinned.items() if holders.get(t) == me and me not in ns]
    for t, ns in pinned.items():
        if t not in holders and me in ns:
            (take if ranking(t, ns)[0] == me else later).append(t)
    mine = sorted((t for t in loose if holders.get(t) == me), key=lambda t: weight(t, me))
    over = max(0, load[me] - high)
    if not over and short and load[me] == high > low:
        # More nodes run the share rounded up than the tables allow while one runs less than
        # the share rounded down: the last of them by id hands one table over.
        at_high = [n for n in nodes if load[n] >= high]
        over = int(me in at_high[extra:])
    shed += mine[:over]
    # A free table goes to nodes below the share rounded down first, then to any below the
    # share rounded up.
    open_nodes = short or [n for n in nodes if load[n] < high]
    free = sorted((t for t in loose if t not in holders), key=lambda t: -weight(t, me))
    room = high - load[me] if me in open_nodes else 0
    for t in free[: max(0, room)]:
        first = next(n for n in ranking(t, nodes) if n in open_nodes)
        (take if first == me else later).append(t)
    # A table nobody with room takes still runs somewhere: after the grace, on any node.
    later += [t for t in free if t not in take and t not in later]
    return Balance(tuple(take), tuple(later), tuple(shed))

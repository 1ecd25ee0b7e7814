"""Where each table runs: rendezvous hashing over the live nodes, with bounded loads.

Each table ranks the nodes by a hash of its id with theirs (rendezvous, or highest random
weight, hashing: Thaler and Ravishankar, 1998), and every node may run at most an even share
of the tables, rounded up (bounded loads: Mirrokni, Thorup and Zadimoghaddam, 2016). Each node
decides for itself from what every node sees alike, the live nodes and who leases each table:
it hands over what it runs beyond its share, and leases a free table when it is the first
node in that table's ranking with room (or, after a grace, when that node has not; after two
graces when it has no room itself). So a node
that joins takes about 1/N of the tables, only from nodes above their share; a node that
leaves has its tables spread over the others, each to its next choice with room; and every
node ends with the even share or one less. ``bench/bench_placement.py`` simulates it.

An operator may pin a table to some nodes: it runs on the first of them in its ranking that
is live, whatever the loads, and on any node when none of them is.
"""

from __future__ import annotations

import functools
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
    last: tuple[str, ...] = ()
    """Free tables it may lease only if they are still free after two graces: it has no room
    for them, so every node with room has had its grace first (else a node that handed a
    table over could take it back and hand it over again, as often as it won the race)."""


@dataclass(frozen=True)
class _Shares:
    """The even share of the tables not pinned, and each node's load of them."""

    nodes: list[str]
    low: int
    extra: int
    load: Counter[str]

    @property
    def high(self) -> int:
        """The share rounded up."""
        return self.low + (self.extra > 0)

    @functools.cached_property
    def short(self) -> list[str]:
        """The nodes below the share rounded down."""
        return [n for n in self.nodes if self.load[n] < self.low]

    @functools.cached_property
    def open(self) -> list[str]:
        """The nodes a free table may go to: those below the share rounded down, else those
        below the share rounded up."""
        return self.short or [n for n in self.nodes if self.load[n] < self.high]


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
    shares = _Shares(nodes, low, extra, Counter(holders[t] for t in loose if t in holders))
    take, later, shed = _pinned_moves(me, pinned, holders)
    shed += _excess(me, loose, holders, shares)
    more, fallback, full = _free(me, loose, holders, shares)
    return Balance((*take, *more), (*later, *fallback), tuple(shed), tuple(full))


def _pinned_moves(
    me: str, pinned: Mapping[str, set[str]], holders: Mapping[str, str]
) -> tuple[list[str], list[str], list[str]]:
    """The pinned tables ``me`` takes now, takes after the grace, and hands over."""
    take: list[str] = []
    later: list[str] = []
    shed = [t for t, ns in pinned.items() if holders.get(t) == me and me not in ns]
    for t, ns in pinned.items():
        if t not in holders and me in ns:
            (take if ranking(t, ns)[0] == me else later).append(t)
    return take, later, shed


def _excess(me: str, loose: Sequence[str], holders: Mapping[str, str], s: _Shares) -> list[str]:
    """The tables ``me`` runs beyond its share: those that rank it lowest."""
    over = max(0, s.load[me] - s.high)
    if not over and s.short and s.load[me] == s.high > s.low:
        # More nodes run the share rounded up than the tables allow while one runs less than
        # the share rounded down: the last of them by id hands one table over.
        at_high = [n for n in s.nodes if s.load[n] >= s.high]
        over = int(me in at_high[s.extra :])
    mine = sorted((t for t in loose if holders.get(t) == me), key=lambda t: weight(t, me))
    return mine[:over]


def _free(
    me: str, loose: Sequence[str], holders: Mapping[str, str], s: _Shares
) -> tuple[list[str], list[str], list[str]]:
    """The free tables ``me`` takes now (it is first in line among the nodes with room),
    those it may take after the grace and, with no room, after two (a table nobody with room
    takes still runs somewhere)."""
    free = sorted((t for t in loose if t not in holders), key=lambda t: -weight(t, me))
    room = s.high - s.load[me] if me in s.open else 0
    take = [t for t in free[: max(0, room)] if _first_open(t, s) == me]
    rest = [t for t in free if t not in take]
    return (take, rest, []) if room > 0 else (take, [], rest)


def _first_open(table_id: str, s: _Shares) -> str:
    """The first node in the table's ranking that a free table may go to."""
    return next(n for n in ranking(table_id, s.nodes) if n in s.open)

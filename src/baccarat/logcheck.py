"""The commitment log's check: what ``baccarat verify-log`` finds wrong with a log, if anything.

Given the newest signed head, every entry up to its size, the public keys and, optionally, a
head kept from before, it checks: the head's signature; each entry's leaf hash against its own
fields and its place; the root of all the leaves against the head; every revealed seed against
its logged commitment; that the kept head's tree is still the start of today's (so a log
rewritten since then is caught); that every shoe the database says is logged has its entry
at the index it names (so entries removed together with their heads are caught); and it warns
of a head older than a day. Pure: the command fetches, this judges.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from baccarat import merkle
from baccarat.logbook import Entry, SignedHead, head_signed


@dataclass(frozen=True, slots=True)
class LoggedShoe:
    """An entry as read from the log, with its stated leaf hash and its shoe's seed (or None)."""

    entry: Entry
    leaf_hash: str
    seed: str | None


@dataclass(slots=True)
class Report:
    """What the check found: counts of what held, and every problem in a sentence."""

    entries: int = 0
    seeds: int = 0
    shoes: int = 0
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether nothing was wrong."""
        return not self.problems


def check_log(
    head: SignedHead,
    logged: Sequence[LoggedShoe],
    public_keys: Mapping[str, bytes],
    kept: SignedHead | None = None,
) -> Report:
    """Check a log against its signed head (and a head kept from before)."""
    report = Report(entries=len(logged))
    if not head_signed(head, public_keys):
        report.problems.append(
            f"The head of {head.tree_size} entries is not signed by a published key "
            f"(key {head.key_id})."
        )
    if len(logged) != head.tree_size:
        report.problems.append(
            f"The head counts {head.tree_size} entries; {len(logged)} were read."
        )
    leaves = _check_entries(logged, report)
    root = merkle.root(leaves).hex()
    if root != head.root_hash:
        report.problems.append(
            f"The entries' root is {root}, not the signed head's {head.root_hash}: "
            "the log is not what was signed."
        )
    if kept is not None:
        _check_kept(kept, leaves, public_keys, report)
    return report


def _check_entries(logged: Sequence[LoggedShoe], report: Report) -> list[bytes]:
    leaves: list[bytes] = []
    for place, item in enumerate(logged):
        e = item.entry
        leaf = merkle.leaf_hash(e.leaf())
        if e.index != place:
            report.problems.append(f"Entry {place} says it is entry {e.index}.")
        if leaf.hex() != item.leaf_hash:
            report.problems.append(
                f"Entry {place} (shoe {e.shoe_id}): its fields hash to {leaf.hex()}, "
                f"not its stated leaf hash {item.leaf_hash}."
            )
        if item.seed is not None:
            report.seeds += 1
            if _commitment(item.seed) != e.commitment:
                report.problems.append(
                    f"Shoe {e.shoe_id}: its revealed seed does not match its logged "
                    f"commitment {e.commitment}."
                )
        leaves.append(leaf)
    return leaves


def _commitment(seed_hex: str) -> str | None:
    try:
        return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()
    except ValueError:
        return None


def _check_kept(
    kept: SignedHead, leaves: list[bytes], public_keys: Mapping[str, bytes], report: Report
) -> None:
    if not head_signed(kept, public_keys):
        report.problems.append(
            f"The kept head of {kept.tree_size} entries is not signed by a published key."
        )
    if kept.tree_size > len(leaves):
        report.problems.append(
            f"The kept head counts {kept.tree_size} entries; the log has only {len(leaves)} now: "
            "entries were removed."
        )
        return
    then = merkle.root(leaves[: kept.tree_size]).hex()
    if then != kept.root_hash:
        report.problems.append(
            f"The log's first {kept.tree_size} entries no longer have the kept head's root "
            f"{kept.root_hash} (now {then}): history was rewritten."
        )


DAY_MS = 24 * 3600 * 1000
"""A log signs a head at least daily: an older newest head is a warning."""


def check_age(head: SignedHead, now_ms: int, report: Report) -> None:
    """Warn when the newest head is more than a day old."""
    age = now_ms - head.timestamp
    if age > DAY_MS:
        report.warnings.append(
            f"The newest head was signed {age / 3_600_000:.1f} hours ago; the log signs one at "
            "least daily, so the log shown may be stale or held back."
        )


def check_indexes(logged: Sequence[LoggedShoe], indexes: Mapping[str, int], report: Report) -> None:
    """Every shoe that names a log index (``indexes``: shoe id -> index) must be that entry."""
    report.shoes = len(indexes)
    for shoe_id, index in sorted(indexes.items(), key=lambda item: item[1]):
        if index >= len(logged):
            report.problems.append(
                f"Shoe {shoe_id} names log entry {index}, but the log holds {len(logged)} "
                "entries: its entry was removed."
            )
        elif logged[index].entry.shoe_id != shoe_id:
            report.problems.append(
                f"Shoe {shoe_id} names log entry {index}, which logs shoe "
                f"{logged[index].entry.shoe_id} instead."
            )

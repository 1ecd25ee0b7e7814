"""The cosigned checkpoint's check: how many trusted witnesses vouch for the log read, and
whether the log read is the one they saw.

Given a checkpoint as a signed note (c2sp.org/tlog-checkpoint, with the witnesses'
cosignatures), the leaves of the log read, the log's verifier keys, the witnesses' keys the
reader trusts and how many of them must vouch, it checks: the log's own signature on the
checkpoint; that the log read holds the checkpoint's tree (its first ``size`` leaves have the
checkpoint's root: otherwise the log shown is not the one the witnesses saw, a split view, or
it lost entries since); and counts the trusted witnesses whose cosignature holds, a problem
when fewer than the quorum. Pure: ``verify-log`` fetches, this judges.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from baccarat import checkpoint, merkle
from baccarat.checkpoint import Checkpoint, Verifier
from baccarat.errors import InvalidInput
from baccarat.logcheck import DAY_MS, Report


@dataclass(frozen=True, slots=True)
class Policy:
    """The witnesses a reader trusts, how many must vouch, and whether the reader pinned their
    keys (``--witness``) or took them from the operator's key document."""

    witnesses: Sequence[Verifier]
    quorum: int
    pinned: bool


@dataclass(slots=True)
class Vouched:
    """What the witnesses said of one checkpoint: its size and who vouched, with when."""

    tree_size: int
    log_size: int
    trusted: int
    quorum: int
    pinned: bool
    holds: bool = True
    """Whether the log read holds the checkpoint's tree (else the witnesses saw another)."""
    by: dict[str, int] = field(default_factory=dict)
    """Each vouching witness's name and the time (seconds) of its cosignature."""

    def sentence(self) -> str:
        """How many witnesses vouch, in words: "2 of 2 witnesses vouch for this head (size 12)"."""
        count = f"{len(self.by)} of {self.trusted} witness{'es' if self.trusted != 1 else ''}"
        verb = "vouches" if self.trusted == 1 else "vouch"
        if not self.holds:
            return f"{count} {verb} for a log of size {self.tree_size} that is not this one"
        if self.tree_size == self.log_size:
            return f"{count} {verb} for this head (size {self.tree_size})"
        return (
            f"{count} {verb} for the log at size {self.tree_size}, which this head of "
            f"{self.log_size} entries extends"
        )


def read(note: str, what: str) -> tuple[str, list[str], Checkpoint]:
    """A note's text, its signature lines and its checkpoint (``bad_checkpoint``)."""
    try:
        text, lines = checkpoint.split_note(note)
        return text, lines, checkpoint.parse_body(text)
    except InvalidInput as exc:
        message = f"{_capital(what)} is not a checkpoint: {exc.message}"
        raise InvalidInput("bad_checkpoint", message) from None


def check_checkpoint(
    note: str,
    what: str,
    leaves: Sequence[bytes],
    log_keys: Sequence[bytes],
    policy: Policy,
    report: Report,
) -> Vouched | None:
    """Check a cosigned checkpoint (``what`` names it in sentences) against the log's leaves
    and the reader's policy; what the witnesses said, or None when it cannot be read."""
    try:
        text, lines, cp = read(note, what)
    except InvalidInput as exc:
        report.problems.append(exc.message)
        return None
    log_verifiers = [Verifier(cp.origin, checkpoint.ED25519, key) for key in log_keys]
    if not checkpoint.vouching(text, lines, log_verifiers):
        report.problems.append(
            f"{_capital(what)} (size {cp.tree_size}) is not signed by the log's key."
        )
    holds = _check_tree(cp, what, leaves, report)
    vouched = Vouched(
        cp.tree_size, len(leaves), len(policy.witnesses), policy.quorum, policy.pinned
    )
    vouched.holds = holds
    vouched.by = checkpoint.vouching(text, lines, policy.witnesses)
    if len(vouched.by) < policy.quorum:
        report.problems.append(
            f"{_capital(what)}: only {vouched.sentence()}; the policy needs {policy.quorum}."
        )
    return vouched


def _capital(what: str) -> str:
    return what[:1].upper() + what[1:]


def _check_tree(cp: Checkpoint, what: str, leaves: Sequence[bytes], report: Report) -> bool:
    """Whether the log read holds the checkpoint's tree as its first entries (a problem if
    not)."""
    if cp.tree_size > len(leaves):
        report.problems.append(
            f"{_capital(what)} was cosigned at size {cp.tree_size}, but the log read holds only "
            f"{len(leaves)} entries: entries were removed, or this log is split from the one "
            "the witnesses saw."
        )
        return False
    root = merkle.root(leaves[: cp.tree_size])
    if root != cp.root_hash:
        report.problems.append(
            f"Split view: {what} was cosigned at size {cp.tree_size} with root "
            f"{cp.root_hash.hex()}, but the log read has root {root.hex()} there: it is not "
            "the log the witnesses saw."
        )
        return False
    return True


def check_fresh(vouched: Vouched, report: Report, now_ms: int | None = None) -> None:
    """Warn when the newest cosignature is more than a day old (nodes ask every 10 minutes)."""
    if not vouched.by:
        return
    now = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    age = now - max(vouched.by.values()) * 1000
    if age > DAY_MS:
        report.warnings.append(
            f"The newest cosignature is {age / 3_600_000:.1f} hours old; the witnesses are "
            "asked every 10 minutes, so the checkpoint shown may be held back."
        )

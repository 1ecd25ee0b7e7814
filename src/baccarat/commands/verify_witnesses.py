"""The witnesses ``baccarat verify-log`` trusts, and the cosigned checkpoints it checks with them.

Whose cosignatures count is the reader's choice: the keys given with ``--witness VKEY``, pinned
by the reader (each witness prints its own), or else the witnesses the operator's key document
lists, with a warning, since an operator could list witnesses it runs itself. How many must
vouch is ``--witness-quorum``, else the published policy's (at most the witnesses trusted),
else all of them. The checkpoints are the one served (or kept beside the keys file, for a
database) and one given with ``--checkpoint FILE``; each is judged by ``baccarat.witnesscheck``.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baccarat import checkpoint, merkle
from baccarat.checkpoint import Verifier
from baccarat.errors import InvalidInput
from baccarat.logcheck import LoggedShoe, Report
from baccarat.witnesscheck import Policy, Vouched, check_checkpoint, check_fresh

UNPINNED = (
    "The witnesses' keys were read from the operator's key document, not pinned: an operator "
    "can list witnesses it runs itself. Pin each witness's own key with --witness VKEY."
)


@dataclass(slots=True)
class Witnessing:
    """What verify-log found of the witnesses: its policy and each checkpoint checked."""

    policy: Policy
    checked: list[tuple[str, Vouched]] = field(default_factory=list)
    served: str | None = None
    """The served (or kept) checkpoint's note, for ``--save-checkpoint``."""

    def json(self) -> dict[str, Any]:
        """The witnesses' part of the JSON report."""
        return {
            "trusted": [w.vkey() for w in self.policy.witnesses],
            "pinned": self.policy.pinned,
            "quorum": self.policy.quorum,
            "checkpoints": [
                {
                    "checkpoint": what,
                    "tree_size": v.tree_size,
                    "vouching": sorted(v.by),
                    "sentence": v.sentence(),
                }
                for what, v in self.checked
            ],
        }

    def lines(self) -> list[str]:
        """The lines verify-log prints of them."""
        if not self.policy.witnesses and not self.checked:
            return ["witnesses: none named: nobody but the operator vouches for this log"]
        how = "pinned with --witness" if self.policy.pinned else "from the key document"
        out = []
        for what, v in self.checked:
            names = f": {', '.join(sorted(v.by))}" if v.by else ""
            out.append(f"witnesses: {what}: {v.sentence()}{names} (keys {how})")
        return out


def _verifiers(vkeys: Sequence[str], what: str) -> list[Verifier]:
    out = []
    for text in vkeys:
        v = checkpoint.parse_vkey(text)
        if v.kind != checkpoint.COSIGNATURE:
            raise InvalidInput("bad_witness", f"{what} {text!r} is not a witness's key.")
        out.append(v)
    return out


def policy(args: argparse.Namespace, document: Mapping[str, Any] | None) -> Policy:
    """The witnesses trusted and the quorum (``bad_vkey``, ``bad_witness``, ``bad_quorum``)."""
    pinned = _verifiers(args.witness, "--witness")
    published: list[Verifier] = []
    quorum = 0
    if document is not None:
        try:
            listed = [w["vkey"] for w in document.get("witnesses", [])]
            quorum = int(document.get("quorum", 0))
            published = _verifiers(listed, "The key document's witness")
        except (KeyError, TypeError, ValueError):
            why = "The key document's witnesses cannot be read."
            raise InvalidInput("unreadable_log", why) from None
    trusted = pinned or published
    k = args.witness_quorum
    if k is None:
        k = min(quorum, len(trusted)) if quorum else len(trusted)
    if not 0 <= k <= len(trusted) or (trusted and k == 0):
        raise InvalidInput(
            "bad_quorum", f"--witness-quorum is between 1 and the {len(trusted)} witnesses trusted."
        )
    return Policy(trusted, k, bool(pinned))


def _given(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInput("bad_checkpoint", f"{path} cannot be read: {exc}") from None


def check(
    args: argparse.Namespace,
    served: tuple[str, str | None],
    logged: Sequence[LoggedShoe],
    log_keys: Sequence[bytes],
    found: Witnessing,
    report: Report,
) -> None:
    """Check the served checkpoint (``served``: what it is called, its note or None) and the
    one given with ``--checkpoint`` against the log read, under ``found.policy``."""
    what, note = served
    found.served = note
    notes = [] if note is None else [(what, note)]
    given = _given(args.checkpoint)
    if given is not None:
        notes.append((f"the checkpoint of {args.checkpoint}", given))
    if not notes and found.policy.quorum:
        report.problems.append(
            f"There is no cosigned checkpoint ({what}), though {found.policy.quorum} "
            "witnesses must vouch for the log."
        )
    if found.policy.witnesses and not found.policy.pinned:
        report.warnings.append(UNPINNED)
    leaves = [merkle.leaf_hash(item.entry.leaf()) for item in logged]
    for name, text in notes:
        vouched = check_checkpoint(text, name, leaves, log_keys, found.policy, report)
        if vouched is not None:
            check_fresh(vouched, report)
            found.checked.append((name, vouched))

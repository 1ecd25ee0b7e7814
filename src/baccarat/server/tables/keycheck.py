"""The keys check: the shoes in play a node's keys do not open, and whose fault that is.

A node that holds no key under a sealed seed's id (``seal_key_missing``), or another key under
it (``seal_key_mismatch``: the fingerprints differ), is wrongly configured: it refuses to
start, and such a shoe is left in play untouched for a node with the right keys file. Only the
right key failing to open a sealed seed means it was altered (``seal_broken``), which the
archive says publicly. A seed sealed before fingerprints names only its key's id: a key held
under that id that does not open it is taken for the right one only when it opens another
shoe in play sealed under that id.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from baccarat.errors import InvalidInput
from baccarat.seal import Envelope, Sealer, SealError
from baccarat.server.keyfile import Keys
from baccarat.store import ShoeRecord, Store, open_store

CONFIGURATION = frozenset({"seal_key_missing", "seal_key_mismatch"})
"""Why a seed does not open when the fault is the node's keys file, not the database."""


@dataclass(frozen=True, slots=True)
class Unopened:
    """A shoe in play whose sealed seed the keys do not open: its key's id and why."""

    shoe_id: str
    key_id: str
    code: str
    """``seal_key_missing``, ``seal_key_mismatch`` or ``seal_broken``."""
    fingerprint: str | None
    """The fingerprint in the sealed text (None: sealed before fingerprints, or unreadable)."""

    @property
    def configuration(self) -> bool:
        """Whether the keys file is at fault (the seed is whole)."""
        return self.code in CONFIGURATION


def unopened(sealer: Sealer, shoes: Iterable[ShoeRecord]) -> list[Unopened]:
    """Each of ``shoes`` with a sealed seed that ``sealer`` does not open, and why."""
    vouched: set[str] = set()
    failed: list[Unopened] = []
    for shoe in shoes:
        if shoe.sealed_seed is None:
            continue
        try:
            sealer.open(shoe.sealed_seed, shoe.shoe_id)
        except SealError as exc:
            failed.append(_unopened(shoe.shoe_id, shoe.sealed_seed, exc.code))
        else:
            vouched.add(Envelope.read(shoe.sealed_seed).key_id)
    return [_blamed(u, vouched) for u in failed]


def why(sealer: Sealer, shoe: ShoeRecord, in_play: Iterable[ShoeRecord]) -> Unopened | None:
    """Why ``sealer`` does not open ``shoe``, the other shoes ``in_play`` vouching for its
    key or not; None when it opens."""
    others = [s for s in in_play if s.shoe_id != shoe.shoe_id]
    return next((u for u in unopened(sealer, [shoe, *others]) if u.shoe_id == shoe.shoe_id), None)


def _unopened(shoe_id: str, sealed: str, code: str) -> Unopened:
    try:
        envelope = Envelope.read(sealed)
    except SealError:
        return Unopened(shoe_id, "", code, None)
    return Unopened(shoe_id, envelope.key_id, code, envelope.fingerprint)


def _blamed(u: Unopened, vouched: set[str]) -> Unopened:
    # Without a fingerprint, a key that opens another shoe sealed under its id is the right
    # key: this seed, which it does not open, was altered.
    if u.code == "seal_key_mismatch" and u.fingerprint is None and u.key_id in vouched:
        return replace(u, code="seal_broken")
    return u


def verify(store: Store, keys: Keys, path: Path) -> None:
    """Refuse (``key_missing`` or ``key_mismatch``, naming the key ids and the file) keys
    that cannot open every shoe in play in ``store``; nothing in it is changed."""
    blocked = [u for u in unopened(keys.sealer, store.unended_shoes()) if u.configuration]
    if blocked:
        raise _refusal(blocked, keys, path)


def _refusal(blocked: list[Unopened], keys: Keys, path: Path) -> InvalidInput:
    mismatched = any(u.code == "seal_key_mismatch" for u in blocked)
    shoes = "1 shoe" if len(blocked) == 1 else f"{len(blocked)} shoes"
    return InvalidInput(
        "key_mismatch" if mismatched else "key_missing",
        f"the keys file {path} cannot open the sealed seeds of {shoes} in play "
        f"({'; '.join(_reasons(blocked, keys))}); start with the keys file that holds them "
        "(a key lost for good: `baccarat keys lost ID` ends its shoes unrevealed)",
    )


def _reasons(blocked: list[Unopened], keys: Keys) -> list[str]:
    """What is wrong with the file: the key ids it lacks, the keys it holds under another's id."""
    missing = sorted({u.key_id for u in blocked if u.code == "seal_key_missing"})
    other = sorted({u.key_id for u in blocked if u.code == "seal_key_mismatch"})
    held = {k.key_id: k.fingerprint for k in keys.seal}
    ids = "key id" if len(missing) == 1 else "key ids"
    why = [f"{ids} {', '.join(missing)} not in it"] if missing else []
    return why + [
        f"its key {k} (fingerprint {held[k]}) is not the one that sealed them" for k in other
    ]


def open_checked(url: str, keys: Keys, path: Path) -> Store:
    """The store at ``url`` once ``keys`` (read from ``path``) open every shoe in play in it;
    else ``verify``'s refusal, the store closed."""
    store = open_store(url)
    try:
        verify(store, keys, path)
    except InvalidInput:
        store.close()
        raise
    return store

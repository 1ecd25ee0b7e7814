"""The sealed seed: a shoe's secret seed encrypted at rest with a key only the nodes hold.

A shoe's seed must outlive the node that deals it (so that a restart or another node deals the
same shoe on), yet someone who reads the database must not learn the cards to come. So the
database keeps the seed sealed with AES-256-GCM, an authenticated cipher: the key comes from
the nodes' configuration (``baccarat keys``), never from the database, and the shoe's id is
bound in as associated data, so a sealed seed copied onto another shoe does not open.

Sealed text is ``v2.<key id>.<fingerprint>.<base64url of the 12-byte nonce and the ciphertext>``,
the fingerprint a short hash of the key (``fingerprint``): a key held under the right id but
with another fingerprint is the wrong key (the node's configuration), not an altered seed.
Text sealed before fingerprints, ``v1.<key id>.<base64url ...>``, still opens. Many keys may
open (the old ones, during a rotation); the first one seals.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from baccarat.errors import InvalidInput

KEY_BYTES = 32
NONCE_BYTES = 12
_VERSION = "v2"
_OLD_VERSION = "v1"
_CONTEXT = b"baccarat shoe seed\x00"
_FINGERPRINT_CONTEXT = b"baccarat seal key fingerprint"
FINGERPRINT_CHARS = 16


class SealError(InvalidInput):
    """A sealed seed that cannot be opened: its key is not held (``seal_key_missing``),
    the key held under its id is another (``seal_key_mismatch``), or it was altered
    (``seal_broken``)."""


@dataclass(frozen=True, slots=True)
class SealKey:
    """One sealing key and the id written beside everything it seals."""

    key_id: str
    key: bytes

    def __post_init__(self) -> None:
        if len(self.key) != KEY_BYTES:
            raise InvalidInput(
                "bad_key", f"A sealing key is {KEY_BYTES} bytes, not {len(self.key)}."
            )
        if not self.key_id or not self.key_id.isalnum():
            raise InvalidInput("bad_key", f"A key id is letters and digits, not {self.key_id!r}.")

    @property
    def fingerprint(self) -> str:
        """A short hash of the key, written beside what it seals: it names the key without
        helping anyone find it."""
        digest = hmac.new(self.key, _FINGERPRINT_CONTEXT, hashlib.sha256).hexdigest()
        return digest[:FINGERPRINT_CHARS]


class Sealer:
    """Seals seeds with the first of its keys and opens what any of them sealed."""

    def __init__(self, keys: Sequence[SealKey], nonce: Callable[[int], bytes] = os.urandom) -> None:
        if not keys:
            raise InvalidInput("bad_key", "At least one sealing key is needed.")
        self.keys = tuple(keys)
        self._by_id = {k.key_id: (k, AESGCM(k.key)) for k in self.keys}
        self._nonce = nonce

    @property
    def key_ids(self) -> tuple[str, ...]:
        """The ids of the keys held, the sealing one first."""
        return tuple(k.key_id for k in self.keys)

    def seal(self, seed: bytes, shoe_id: str) -> str:
        """``seed`` sealed for shoe ``shoe_id`` with the current key."""
        key = self.keys[0]
        nonce = self._nonce(NONCE_BYTES)
        box = self._by_id[key.key_id][1].encrypt(nonce, seed, _CONTEXT + shoe_id.encode())
        text = base64.urlsafe_b64encode(nonce + box).decode().rstrip("=")
        return f"{_VERSION}.{key.key_id}.{key.fingerprint}.{text}"

    def open(self, sealed: str, shoe_id: str) -> bytes:
        """The seed sealed for ``shoe_id``; ``SealError`` when no key held opens it."""
        envelope = Envelope.read(sealed)
        held = self._by_id.get(envelope.key_id)
        if held is None:
            raise SealError(
                "seal_key_missing", f"No key {envelope.key_id!r} is held to open this seed."
            )
        key, aead = held
        if envelope.fingerprint not in (None, key.fingerprint):
            raise SealError("seal_key_mismatch", _mismatch(key, envelope.fingerprint))
        try:
            data = base64.urlsafe_b64decode(envelope.box + "=" * (-len(envelope.box) % 4))
            return aead.decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], _CONTEXT + shoe_id.encode())
        except (InvalidTag, ValueError):
            if envelope.fingerprint is None:
                # Without a fingerprint, the wrong key and an altered seed look the same.
                raise SealError("seal_key_mismatch", _mismatch(key, None)) from None
            raise SealError(
                "seal_broken", f"The sealed seed of shoe {shoe_id!r} does not open: it was altered."
            ) from None


@dataclass(frozen=True, slots=True)
class Envelope:
    """A sealed text's parts: its key's id and fingerprint (None before fingerprints), and
    the nonce and ciphertext in base64url."""

    key_id: str
    fingerprint: str | None
    box: str

    @classmethod
    def read(cls, sealed: str) -> Envelope:
        """The parts of ``sealed``; ``seal_broken`` when it is not a sealed seed."""
        parts = sealed.split(".")
        if len(parts) == 4 and parts[0] == _VERSION:
            return cls(parts[1], parts[2], parts[3])
        if len(parts) == 3 and parts[0] == _OLD_VERSION:
            return cls(parts[1], None, parts[2])
        raise SealError("seal_broken", "That is not a sealed seed.")


def _mismatch(key: SealKey, theirs: str | None) -> str:
    held = f"The key {key.key_id!r} held (fingerprint {key.fingerprint})"
    if theirs is None:
        return f"{held} does not open this seed, sealed without a fingerprint: another key?"
    return f"{held} is not the one that sealed this seed (fingerprint {theirs})."


def sealed_key_id(sealed: str) -> str:
    """The id of the key that sealed ``sealed``."""
    return Envelope.read(sealed).key_id

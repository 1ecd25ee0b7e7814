"""The sealed seed: a shoe's secret seed encrypted at rest with a key only the nodes hold.

A shoe's seed must outlive the node that deals it (so that a restart or another node deals the
same shoe on), yet someone who reads the database must not learn the cards to come. So the
database keeps the seed sealed with AES-256-GCM, an authenticated cipher: the key comes from
the nodes' configuration (``baccarat keys``), never from the database, and the shoe's id is
bound in as associated data, so a sealed seed copied onto another shoe does not open.

Sealed text is ``v1.<key id>.<base64url of the 12-byte nonce and the ciphertext>``. Many keys
may open (the old ones, during a rotation); the first one seals.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from baccarat.errors import InvalidInput

KEY_BYTES = 32
NONCE_BYTES = 12
_VERSION = "v1"
_CONTEXT = b"baccarat shoe seed\x00"


class SealError(InvalidInput):
    """A sealed seed that cannot be opened: its key is not held, or it was altered."""


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


class Sealer:
    """Seals seeds with the first of its keys and opens what any of them sealed."""

    def __init__(self, keys: Sequence[SealKey], nonce: Callable[[int], bytes] = os.urandom) -> None:
        if not keys:
            raise InvalidInput("bad_key", "At least one sealing key is needed.")
        self.keys = tuple(keys)
        self._by_id = {k.key_id: AESGCM(k.key) for k in self.keys}
        self._nonce = nonce

    @property
    def key_ids(self) -> tuple[str, ...]:
        """The ids of the keys held, the sealing one first."""
        return tuple(k.key_id for k in self.keys)

    def seal(self, seed: bytes, shoe_id: str) -> str:
        """``seed`` sealed for shoe ``shoe_id`` with the current key."""
        key = self.keys[0]
        nonce = self._nonce(NONCE_BYTES)
        box = self._by_id[key.key_id].encrypt(nonce, seed, _CONTEXT + shoe_id.encode())
        text = base64.urlsafe_b64encode(nonce + box).decode().rstrip("=")
        return f"{_VERSION}.{key.key_id}.{text}"

    def open(self, sealed: str, shoe_id: str) -> bytes:
        """The seed sealed for ``shoe_id``; ``SealError`` when no key held opens it."""
        key_id = sealed_key_id(sealed)
        aead = self._by_id.get(key_id)
        if aead is None:
            raise SealError("seal_key_missing", f"No key {key_id!r} is held to open this seed.")
        raw = sealed.split(".", 2)[2]
        try:
            data = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
            return aead.decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], _CONTEXT + shoe_id.encode())
        except (InvalidTag, ValueError):
            raise SealError(
                "seal_broken", f"The sealed seed of shoe {shoe_id!r} does not open: it was altered."
            ) from None


def sealed_key_id(sealed: str) -> str:
    """The id of the key that sealed ``sealed``."""
    parts = sealed.split(".", 2)
    if len(parts) != 3 or parts[0] != _VERSION:
        raise SealError("seal_broken", "That is not a sealed seed.")
    return parts[1]

"""The commitment log's formats: its leaves, its signed heads, and their checks.

Every shoe's commitment is appended to a log that is a Merkle tree as in Certificate
Transparency (RFC 6962, ``baccarat.merkle``). A leaf is the entry's canonical JSON (keys
sorted, no spaces, UTF-8): ``{"commitment","index","logged_at","shoe_id","table_id"}``, with
``logged_at`` in milliseconds. A signed head is Ed25519 over the canonical JSON
``{"root_hash","timestamp","tree_size"}`` (root in lowercase hex, time in milliseconds); a key's
id is the first 16 hex digits of SHA-256 of its 32 raw public bytes. ``docs/fairness.md`` gives
all of it, so that anyone may check the log without this code.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from baccarat.errors import InvalidInput


def canonical(value: Mapping[str, Any]) -> bytes:
    """A JSON object as the log hashes and signs it: keys sorted, no spaces, UTF-8."""
    return orjson.dumps(dict(value), option=orjson.OPT_SORT_KEYS)


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of the log: a shoe's commitment, as logged."""

    index: int
    shoe_id: str
    table_id: str
    commitment: str
    logged_at: int

    def leaf(self) -> bytes:
        """The bytes the tree hashes as this entry's leaf."""
        return canonical(asdict(self))


@dataclass(frozen=True, slots=True)
class SignedHead:
    """The log's root at a size, signed (``signature`` in base64)."""

    tree_size: int
    timestamp: int
    root_hash: str
    key_id: str
    signature: str

    def message(self) -> bytes:
        """The bytes the signature covers."""
        return head_message(self.tree_size, self.timestamp, self.root_hash)

    def json(self) -> dict[str, Any]:
        """The head as the API sends it."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SignedHead:
        """Read a head as the API sends it; ``bad_head`` when a field is missing or wrong."""
        try:
            head = cls(
                int(data["tree_size"]),
                int(data["timestamp"]),
                str(data["root_hash"]),
                str(data["key_id"]),
                str(data["signature"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInput("bad_head", f"That is not a signed head: {exc}.") from None
        return head


def head_message(tree_size: int, timestamp: int, root_hash: str) -> bytes:
    """What a head's signature covers."""
    return canonical({"root_hash": root_hash, "timestamp": timestamp, "tree_size": tree_size})


def key_id(public_key: bytes) -> str:
    """A public key's id: the first 16 hex digits of SHA-256 of its raw bytes."""
    return hashlib.sha256(public_key).hexdigest()[:16]


class LogSigner:
    """Signs the log's heads with an Ed25519 key."""

    def __init__(self, private_key: bytes) -> None:
        try:
            self._key = Ed25519PrivateKey.from_private_bytes(private_key)
        except ValueError:
            raise InvalidInput("bad_key", "A log signing key is 32 bytes (Ed25519).") from None
        self.public_key = self._key.public_key().public_bytes_raw()
        self.key_id = key_id(self.public_key)

    def sign(self, tree_size: int, timestamp: int, root_hash: str) -> SignedHead:
        """The head of the tree of ``tree_size`` entries whose root is ``root_hash``."""
        signature = self._key.sign(head_message(tree_size, timestamp, root_hash))
        return SignedHead(
            tree_size, timestamp, root_hash, self.key_id, base64.b64encode(signature).decode()
        )


def head_signed(head: SignedHead, public_keys: Mapping[str, bytes]) -> bool:
    """Whether ``head`` carries a good signature by the key it names among ``public_keys``."""
    public = public_keys.get(head.key_id)
    if public is None:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(
            base64.b64decode(head.signature, validate=True), head.message()
        )
    except (InvalidSignature, ValueError):
        return False
    return True

"""The log's checkpoint as C2SP defines it: the note text, its signatures and cosignatures.

A checkpoint (c2sp.org/tlog-checkpoint) is the note text ``<origin>\\n<tree size>\\n<base64 root
hash>\\n``. It is a signed note (c2sp.org/signed-note): the text, an empty line, then one line
per signature, ``— <key name> <base64(4-byte key id || signature)>``. The log signs it with
Ed25519 (type 0x01) under its origin as key name; a witness cosigns it (c2sp.org/
tlog-cosignature, type 0x04) over ``cosignature/v1\\ntime <t>\\n`` and the text, its signature
being the 8-byte big-endian time and the Ed25519 signature. A key id is the first four bytes
of SHA-256 of the key name, a newline, the type byte and the 32-byte public key. A verifier
key (vkey) is ``<name>+<key id in hex>+<base64(type || public key)>``. Pure: no I/O.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from baccarat.errors import InvalidInput

ED25519 = 0x01
"""A note signature by Ed25519 over the note text (the log's)."""
COSIGNATURE = 0x04
"""A timestamped Ed25519 cosignature (a witness's)."""
DASH = "\u2014"


def key_id(name: str, kind: int, public_key: bytes) -> bytes:
    """A key's 4-byte id: SHA-256 of its name, a newline, its type byte and its public key."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public_key).digest()[:4]


@dataclass(frozen=True, slots=True)
class Verifier:
    """A public key that signs notes: its name, its type (0x01 or 0x04), its raw bytes."""

    name: str
    kind: int
    public_key: bytes

    @property
    def key_id(self) -> bytes:
        """The 4-byte id its signature lines start with."""
        return key_id(self.name, self.kind, self.public_key)

    def vkey(self) -> str:
        """The verifier key as text: ``<name>+<key id hex>+<base64(type || key)>``."""
        raw = base64.b64encode(bytes([self.kind]) + self.public_key).decode()
        return f"{self.name}+{self.key_id.hex()}+{raw}"


def parse_vkey(text: str) -> Verifier:
    """Read a verifier key; ``bad_vkey`` when it is not an Ed25519 or cosignature vkey."""
    name, _, rest = text.strip().partition("+")
    hexid, _, raw = rest.partition("+")
    try:
        blob = base64.b64decode(raw, validate=True)
    except binascii.Error:
        blob = b""
    if not name or len(blob) != 33 or blob[0] not in (ED25519, COSIGNATURE):
        raise InvalidInput("bad_vkey", f"{text!r} is not a verifier key (name+id+base64 key).")
    verifier = Verifier(name, blob[0], blob[1:])
    if verifier.key_id.hex() != hexid.lower():
        raise InvalidInput("bad_vkey", f"The key id of {text!r} is not its key's id.")
    return verifier


def body(origin: str, tree_size: int, root_hash: bytes) -> str:
    """The checkpoint's note text."""
    return f"{origin}\n{tree_size}\n{base64.b64encode(root_hash).decode()}\n"


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A checkpoint's text read back: origin, tree size and root hash."""

    origin: str
    tree_size: int
    root_hash: bytes


def parse_body(text: str) -> Checkpoint:
    """Read a checkpoint's note text; ``bad_checkpoint`` when it is not one."""
    lines = text.split("\n")
    try:
        origin, size, root = lines[0], lines[1], base64.b64decode(lines[2], validate=True)
        bad = not origin or not size.isdigit() or (size != "0" and size[0] == "0")
        if bad or len(root) != 32 or lines[-1] != "" or "" in lines[:-1]:
            raise ValueError
    except (IndexError, ValueError):
        raise InvalidInput("bad_checkpoint", "That is not a checkpoint's text.") from None
    return Checkpoint(origin, int(size), root)


def split_note(note: str) -> tuple[str, list[str]]:
    """A signed note's text (with its final newline) and its signature lines."""
    text, sep, sigs = note.rpartition("\n\n")
    if not sep or not sigs.endswith("\n"):
        raise InvalidInput("bad_note", "A signed note is text, an empty line and signatures.")
    return text + "\n", sigs[:-1].split("\n")


def sign(text: str, name: str, private_key: bytes) -> str:
    """The log's Ed25519 signature line over the note ``text``."""
    key = Ed25519PrivateKey.from_private_bytes(private_key)
    kid = key_id(name, ED25519, key.public_key().public_bytes_raw())
    return _line(name, kid + key.sign(text.encode()))


def cosigned_message(text: str, timestamp: int) -> bytes:
    """What a cosignature signs: the header, the time and the checkpoint's text."""
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def cosign(text: str, name: str, private_key: bytes, timestamp: int) -> str:
    """A witness's cosignature line over the checkpoint ``text`` at ``timestamp`` (seconds)."""
    key = Ed25519PrivateKey.from_private_bytes(private_key)
    kid = key_id(name, COSIGNATURE, key.public_key().public_bytes_raw())
    signature = key.sign(cosigned_message(text, timestamp))
    return _line(name, kid + struct.pack(">Q", timestamp) + signature)


def _line(name: str, raw: bytes) -> str:
    return f"{DASH} {name} {base64.b64encode(raw).decode()}"


def verify_line(text: str, line: str, verifier: Verifier) -> int | None:
    """Whether ``line`` is ``verifier``'s good signature over ``text``: its time (a
    cosignature's, 0 for a log signature), or None when it is not that key's or does not
    verify."""
    try:
        dash, name, sig = line.split(" ")
        raw = base64.b64decode(sig, validate=True)
    except (ValueError, binascii.Error):
        return None
    if dash != DASH or name != verifier.name or raw[:4] != verifier.key_id:
        return None
    stamp, message, signature = 0, text.encode(), raw[4:]
    if verifier.kind == COSIGNATURE:
        if len(raw) != 4 + 8 + 64:
            return None
        (stamp,) = struct.unpack(">Q", raw[4:12])
        message, signature = cosigned_message(text, stamp), raw[12:]
    try:
        Ed25519PublicKey.from_public_bytes(verifier.public_key).verify(signature, message)
    except InvalidSignature:
        return None
    return stamp


def vouching(text: str, lines: Iterable[str], verifiers: Sequence[Verifier]) -> dict[str, int]:
    """Which of ``verifiers`` signed ``text`` among ``lines``: each one's name and time."""
    found: dict[str, int] = {}
    for line in lines:
        for v in verifiers:
            stamp = verify_line(text, line, v)
            if stamp is not None:
                found[v.name] = stamp
    return found

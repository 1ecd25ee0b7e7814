"""The keys file: the keys that seal shoe seeds and sign the commitment log's heads.

Every node of one system reads the same file; it is never stored in the database (whoever
reads the database must not be able to open a sealed seed), nor in the database's backups.
A TOML file::

    seal = ["k1a2b3c4:<base64 of 32 bytes>", ...]   # the first seals; all of them open
    log = ["<base64 of a 32-byte Ed25519 private key>", ...]   # the first signs
    origin = "example.com/baccarat"   # optional: the log's name in its checkpoints

A server that finds no file creates one (mode 0600) with a key of each kind. Rotation puts a
new key first and keeps the old ones after it (``docs/fairness.md``, "Keys").
"""

from __future__ import annotations

import base64
import functools
import json
import os
import secrets
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from baccarat.checkpoint import ED25519, Verifier
from baccarat.errors import InvalidInput
from baccarat.logbook import LogSigner
from baccarat.seal import KEY_BYTES, Sealer, SealKey
from baccarat.store.url import default_db_path

_HEADER = (
    "# baccarat's keys. Every node of one system needs this same file; keep it out of the\n"
    "# database and its backups. seal: the first seals new shoes' seeds, all of them open.\n"
    "# log: the first signs the commitment log's heads; the others stay published.\n"
)


@dataclass(frozen=True)
class Keys:
    """The keys a node holds."""

    seal: tuple[SealKey, ...]
    log: tuple[bytes, ...]
    origin: str | None = None
    """The log's name in its checkpoints (default: named after its first key)."""
    sealer: Sealer = field(init=False)
    signer: LogSigner = field(init=False)

    def __post_init__(self) -> None:
        if not self.log:
            raise InvalidInput("bad_key", "At least one log signing key is needed.")
        object.__setattr__(self, "sealer", Sealer(self.seal))
        object.__setattr__(self, "signer", LogSigner(self.log[0]))

    @property
    def log_public_keys(self) -> dict[str, bytes]:
        """Every log key's public half by id, the signing one first."""
        signers = [LogSigner(k) for k in self.log]
        return {s.key_id: s.public_key for s in signers}

    @property
    def log_origin(self) -> str:
        """The origin line of the log's checkpoints: the file's ``origin``, else named after
        the oldest log key (which rotation keeps), so that it never changes by itself."""
        return self.origin or f"baccarat.invalid/log/{LogSigner(self.log[-1]).key_id}"

    @property
    def log_verifiers(self) -> list[Verifier]:
        """Every log key as a checkpoint's verifier key (Ed25519 note signatures)."""
        signers = [LogSigner(k) for k in self.log]
        return [Verifier(self.log_origin, ED25519, s.public_key) for s in signers]

    def text(self) -> str:
        """The file's text."""
        seal = ", ".join(f'"{k.key_id}:{_b64(k.key)}"' for k in self.seal)
        log = ", ".join(f'"{_b64(k)}"' for k in self.log)
        origin = "" if self.origin is None else f"origin = {json.dumps(self.origin)}\n"
        return f"{_HEADER}seal = [{seal}]\nlog = [{log}]\n{origin}"


def new_seal_key() -> SealKey:
    """A fresh sealing key with a fresh id."""
    return SealKey("k" + secrets.token_hex(4), secrets.token_bytes(KEY_BYTES))


def new_keys() -> Keys:
    """A fresh set: one sealing key and one log key."""
    return Keys((new_seal_key(),), (secrets.token_bytes(32),))


@functools.cache
def process_keys() -> Keys:
    """Keys made once for this process and kept in memory only (servers built in code)."""
    return new_keys()


def parse(text: str, where: str = "the keys file") -> Keys:
    """Read a keys file's text; ``bad_keys`` saying what is wrong."""
    try:
        data = tomllib.loads(text)
        seal = tuple(_seal_key(item) for item in data["seal"])
        log = tuple(base64.b64decode(item, validate=True) for item in data["log"])
        origin = data.get("origin")
        return Keys(seal, log, None if origin is None else str(origin))
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError, InvalidInput) as exc:
        why = exc.message if isinstance(exc, InvalidInput) else str(exc)
        raise InvalidInput("bad_keys", f"{where} cannot be read: {why}") from None


def _seal_key(item: str) -> SealKey:
    key_id, _, key = item.partition(":")
    return SealKey(key_id, base64.b64decode(key, validate=True))


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def default_path(db_url: str) -> Path:
    """Where the keys live unless told: beside an SQLite file, else in the data directory."""
    for prefix in ("sqlite:///", "sqlite+pysqlite:///"):
        if db_url.startswith(prefix) and db_url[len(prefix) :] not in ("", ":memory:"):
            return Path(db_url[len(prefix) :] + ".keys")
    return default_db_path().parent / "baccarat.keys"


def load(path: Path) -> Keys:
    """The keys in ``path``."""
    return parse(path.read_text(encoding="utf-8"), str(path))


def load_or_create(path: Path) -> tuple[Keys, bool]:
    """The keys in ``path``, creating the file (mode 0600) when there is none; and whether
    it was created. Two processes starting at once both end up with the one file."""
    if path.exists():
        return load(path), False
    keys = new_keys()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return load(path), False
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(keys.text())
    return keys, True


def save(path: Path, keys: Keys) -> None:
    """Replace ``path`` with ``keys`` (atomically, mode 0600)."""
    tmp = path.with_name(path.name + ".new")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(keys.text())
    os.replace(tmp, path)

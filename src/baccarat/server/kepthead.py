"""The newest log head a node knows, kept beside the keys file, outside the database.

Nothing in a database tells a copy restored from a backup from the live one, so a node keeps
what it last knew of the log where a restore does not reach: the newest head it signed, and
the newest checkpoint its witnesses cosigned (the note, with their cosignatures). A database
that does not hold that head, or whose log does not extend that checkpoint, is behind: a
restored copy (``tables.rollback``). The file is JSON, one record a database (named by a hash
of its URL: a keys file may serve several databases), written whole and atomically.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baccarat.logbook import SignedHead

log = logging.getLogger("baccarat.server")


@dataclass(frozen=True, slots=True)
class Witnessed:
    """A checkpoint the witnesses cosigned: its size, its root (hex) and its note's text."""

    tree_size: int
    root_hash: str
    note: str

    def json(self) -> dict[str, Any]:
        """The checkpoint as the file keeps it."""
        return {"tree_size": self.tree_size, "root_hash": self.root_hash, "note": self.note}


def path_beside(keys_path: Path) -> Path:
    """Where a node keeps the head for the keys file ``keys_path``: ``<keys file>.head``."""
    return keys_path.with_name(keys_path.name + ".head")


class KeptHead:
    """The file of the newest head and checkpoint this node knows, read once, kept current."""

    def __init__(self, path: Path, db_url: str) -> None:
        self.path = path
        # The URL may hold a password: the file names the database by a hash of it.
        self.db_key = hashlib.sha256(db_url.encode()).hexdigest()[:16]
        self.head: SignedHead | None = None
        self.witnessed: Witnessed | None = None
        self._read()

    def _file(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            # A file that cannot be read protects nothing; say so and start it afresh.
            log.error("kept log head unreadable", extra={"path": str(self.path), "error": str(exc)})
            return {}
        return data if isinstance(data, dict) else {}

    def _read(self) -> None:
        data = self._file().get(self.db_key) or {}
        if data.get("head") is not None:
            self.head = SignedHead.from_json(data["head"])
        seen = data.get("witnessed")
        if seen is not None:
            self.witnessed = Witnessed(int(seen["tree_size"]), str(seen["root_hash"]), seen["note"])

    def keep_head(self, head: SignedHead) -> None:
        """Keep ``head`` as the newest this node signed."""
        self.head = head
        self._write()

    def keep_witnessed(self, witnessed: Witnessed) -> None:
        """Keep ``witnessed`` as the newest checkpoint the witnesses cosigned."""
        self.witnessed = witnessed
        self._write()

    def forget_witnessed(self) -> None:
        """Drop the kept checkpoint (a restore was handled: the log starts again from here)."""
        self.witnessed = None
        self._write()

    def _write(self) -> None:
        data = self._file()
        data[self.db_key] = {
            "head": None if self.head is None else self.head.json(),
            "witnessed": None if self.witnessed is None else self.witnessed.json(),
        }
        tmp = self.path.with_name(self.path.name + ".new")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(tmp, self.path)

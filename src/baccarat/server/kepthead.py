"""The newest log head a node knows, kept beside the keys file, outside the database.

Nothing in a database tells a copy restored from a backup from the live one, so a node keeps
what it last knew of the log where a restore does not reach: the newest head it signed, and
the newest checkpoint its witnesses cosigned (the note, with their cosignatures). A database
that does not hold that head, or whose log does not extend that checkpoint, is behind: a
restored copy (``tables.rollback``). The file is JSON, one record a database, written whole and
atomically. A keys file may serve several databases, so each record is named by a hash of the
database's URL and, once its log has an entry, by the log's first leaf hash as well: a copy
restored under another name (a fresh schema or database) still holds that entry, and is found
behind all the same.

The nodes of one machine (``baccarat serve --workers N``) share the file, as they share the
keys file and the database: one file is what an operator backs up, restores beside the keys
and reads (``verify-log --db``), whatever the number of workers. So a write is one worker's
read, merge and replace under a lock on ``<file>.lock``: it keeps the newest head signed and
the largest checkpoint cosigned of the file's and its own, never rolling back another
worker's newer record, and the reader sees the old file or the new one, never a part.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baccarat.logbook import SignedHead

log = logging.getLogger("baccarat.server")


@dataclass(frozen=True, slots=True)
class Witnessed:
    """A checkpoint the witnesses cosigned: its size, its root (hex), its note's text, and when
    a node kept it (ms since the epoch; 0 when unknown)."""

    tree_size: int
    root_hash: str
    note: str
    kept_at: int = 0

    def json(self) -> dict[str, Any]:
        """The checkpoint as the file keeps it."""
        return {
            "tree_size": self.tree_size,
            "root_hash": self.root_hash,
            "note": self.note,
            "kept_at": self.kept_at,
        }


@dataclass(frozen=True, slots=True)
class Kept:
    """One database's record: the newest head, the largest checkpoint, and when a node last
    dropped the checkpoint (a restore handled: a checkpoint kept before then is of the old log)."""

    head: SignedHead | None = None
    witnessed: Witnessed | None = None
    forgot_at: int = 0

    def json(self) -> dict[str, Any]:
        """The record as the file keeps it."""
        return {
            "head": None if self.head is None else self.head.json(),
            "witnessed": None if self.witnessed is None else self.witnessed.json(),
            "forgot_at": self.forgot_at,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Kept:
        """Read a record (one the file kept before ``forgot_at`` and ``kept_at`` too)."""
        head = None if data.get("head") is None else SignedHead.from_json(data["head"])
        seen = data.get("witnessed")
        witnessed = None
        if seen is not None:
            witnessed = Witnessed(
                int(seen["tree_size"]),
                str(seen["root_hash"]),
                str(seen["note"]),
                int(seen.get("kept_at", 0)),
            )
        return cls(head, witnessed, int(data.get("forgot_at", 0)))


def merged(mine: Kept, theirs: Kept) -> Kept:
    """The record two workers' records make: the newer head (by its time, then its size: one
    database's heads are one log's), and the larger checkpoint not dropped since it was kept.
    Neither worker's newer word is lost, whichever writes last."""
    heads = [h for h in (mine.head, theirs.head) if h is not None]
    head = max(heads, key=lambda h: (h.timestamp, h.tree_size), default=None)
    forgot = max(mine.forgot_at, theirs.forgot_at)
    seen = [
        w
        for w in (mine.witnessed, theirs.witnessed)
        if w is not None and (forgot == 0 or w.kept_at > forgot)
    ]
    witnessed = max(seen, key=lambda w: (w.tree_size, w.kept_at), default=None)
    return Kept(head, witnessed, forgot)


def path_beside(keys_path: Path) -> Path:
    """Where a node keeps the head for the keys file ``keys_path``: ``<keys file>.head``."""
    return keys_path.with_name(keys_path.name + ".head")


class KeptHead:
    """The file of the newest head and checkpoint this node knows, read at start, kept current."""

    def __init__(self, path: Path, db_url: str) -> None:
        self.path = path
        # The URL may hold a password: the file names the database by a hash of it.
        self.db_keys = [hashlib.sha256(db_url.encode()).hexdigest()[:16]]
        self.log_id: str | None = None
        self.kept = Kept()
        self.refresh()

    def identify(self, first_leaf: str) -> None:
        """Name the record also by the log's first leaf hash (hex), and take in what the file
        keeps under that name (a database restored under another URL)."""
        if self.log_id is None:
            self.log_id = first_leaf
            self.db_keys.append(f"log:{first_leaf[:32]}")
            self.refresh()

    @property
    def head(self) -> SignedHead | None:
        """The newest head signed on this database that this node knows of."""
        return self.kept.head

    @property
    def witnessed(self) -> Witnessed | None:
        """The largest checkpoint of this database's log its witnesses cosigned."""
        return self.kept.witnessed

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

    def _theirs(self, data: dict[str, Any]) -> Kept:
        theirs = Kept()
        for key in self.db_keys:
            try:
                theirs = merged(theirs, Kept.from_json(data.get(key) or {}))
            except (KeyError, TypeError, ValueError) as exc:
                log.error(
                    "kept log head unreadable", extra={"path": str(self.path), "error": str(exc)}
                )
        return theirs

    def refresh(self) -> None:
        """Take in what the other workers kept since (the file is replaced whole: no lock)."""
        self.kept = merged(self.kept, self._theirs(self._file()))

    def keep_head(self, head: SignedHead) -> None:
        """Keep ``head`` as the newest this node signed."""
        self._write(Kept(head, self.kept.witnessed, self.kept.forgot_at))

    def keep_witnessed(self, witnessed: Witnessed) -> None:
        """Keep ``witnessed`` as the newest checkpoint the witnesses cosigned."""
        if witnessed.kept_at == 0:
            witnessed = Witnessed(
                witnessed.tree_size, witnessed.root_hash, witnessed.note, _now_ms(self.kept)
            )
        self._write(Kept(self.kept.head, witnessed, self.kept.forgot_at))

    def forget_witnessed(self) -> None:
        """Drop the kept checkpoint (a restore was handled: the log starts again from here),
        in every worker's record too."""
        self._write(Kept(self.kept.head, None, self.kept.forgot_at), forget=True)

    def _write(self, mine: Kept, *, forget: bool = False) -> None:
        with self._locked():
            data = self._file()
            theirs = self._theirs(data)
            if forget:
                # (after every checkpoint either record holds: all of them are of the old log)
                mine = Kept(mine.head, None, _now_ms(merged(self.kept, theirs), dropping=True))
            self.kept = merged(mine, theirs)
            for key in self.db_keys:
                data[key] = self.kept.json()
            # (a name of this process's own: the lock is advisory, a stray writer may not take it)
            tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.new")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        fd = os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # (the lock goes with it)


def _now_ms(kept: Kept, *, dropping: bool = False) -> int:
    """The time now in ms, after the record's last drop (a clock set back keeps the order), and
    when ``dropping``, not before its checkpoint was kept."""
    seen = kept.witnessed.kept_at if dropping and kept.witnessed is not None else 0
    return max(int(time.time() * 1000), kept.forgot_at + 1, seen)

"""The witness's book: the newest checkpoint it cosigned for each log, and the evidence.

A small SQLite file. For each log (by origin) it keeps the size, root and note of the
newest checkpoint it cosigned; a checkpoint that does not extend it (another root at the same
size, a smaller tree, a proof that does not hold) is kept beside it as evidence, both notes
whole, for anyone to show.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS latest (
    origin TEXT PRIMARY KEY, tree_size INTEGER NOT NULL, root_hash BLOB NOT NULL,
    note TEXT NOT NULL, cosigned_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS evidence (
    id INTEGER PRIMARY KEY, origin TEXT NOT NULL, reason TEXT NOT NULL,
    cosigned_note TEXT NOT NULL, offered_note TEXT NOT NULL, seen_at INTEGER NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class Latest:
    """The newest checkpoint cosigned for a log."""

    tree_size: int
    root_hash: bytes
    note: str


@dataclass(frozen=True, slots=True)
class Evidence:
    """Two checkpoints of one log that do not agree: the one cosigned and the one offered."""

    origin: str
    reason: str
    cosigned_note: str
    offered_note: str


class Book:
    """The witness's SQLite file."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the file."""
        self.conn.close()

    def latest(self, origin: str) -> Latest | None:
        """The newest checkpoint cosigned for ``origin`` (None: none yet)."""
        row = self.conn.execute(
            "SELECT tree_size, root_hash, note FROM latest WHERE origin = ?", (origin,)
        ).fetchone()
        return None if row is None else Latest(int(row[0]), bytes(row[1]), str(row[2]))

    def cosigned(self, origin: str, latest: Latest) -> None:
        """Record ``latest`` as the newest checkpoint cosigned for ``origin``."""
        self.conn.execute(
            "INSERT INTO latest VALUES (?, ?, ?, ?, ?) ON CONFLICT (origin) DO UPDATE SET "
            "tree_size = excluded.tree_size, root_hash = excluded.root_hash, "
            "note = excluded.note, cosigned_at = excluded.cosigned_at",
            (origin, latest.tree_size, latest.root_hash, latest.note, int(time.time())),
        )

    def conflict(self, evidence: Evidence) -> None:
        """Keep two checkpoints that do not agree."""
        self.conn.execute(
            "INSERT INTO evidence (origin, reason, cosigned_note, offered_note, seen_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (
                evidence.origin,
                evidence.reason,
                evidence.cosigned_note,
                evidence.offered_note,
                int(time.time()),
            ),
        )

    def evidence(self) -> list[Evidence]:
        """Every conflict kept, oldest first."""
        rows = self.conn.execute(
            "SELECT origin, reason, cosigned_note, offered_note FROM evidence ORDER BY id"
        )
        return [Evidence(*map(str, row)) for row in rows]

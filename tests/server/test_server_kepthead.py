"""The kept head that the workers of one machine share (``serve --workers N``): real processes
writing it at once never leave a torn file or roll back another's newer head, and a
checkpoint dropped after a restore is not brought back by a worker that still holds it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from baccarat.logbook import SignedHead
from baccarat.server.kepthead import KeptHead, Witnessed, path_beside

URL = "sqlite:///shared.db"
WRITERS = 3
WRITES = 40

# One worker: its heads are every WRITERS-th of one log's, so the writers' heads interleave
# in time and each write races the others' for the file. (It takes the one module that writes
# the file, not the whole server that ``baccarat.server`` imports: a second, not ten.)
WRITER = """
import sys, types
from pathlib import Path
import baccarat
server = types.ModuleType("baccarat.server")
server.__path__ = [str(Path(baccarat.__file__).parent / "server")]
sys.modules["baccarat.server"] = server
from baccarat.logbook import SignedHead
from baccarat.server.kepthead import KeptHead, Witnessed
path, url, me, writers, writes = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
kept = KeptHead(Path(path), url)
for i in range(writes):
    at = i * writers + me + 1
    kept.keep_head(SignedHead(at, at, f"{at:064x}", "k", "s"))
    kept.keep_witnessed(Witnessed(at, f"{at:064x}", f"note {at}"))
"""


def _head(at: int) -> SignedHead:
    return SignedHead(at, at, f"{at:064x}", "k", "s")


def test_workers_writing_at_once_keep_the_newest_head_and_never_roll_it_back(
    tmp_path: Path,
) -> None:
    path = path_beside(tmp_path / "k.keys")
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), URL, str(n), str(WRITERS), str(WRITES)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WRITERS)
    ]
    # Read as a node does at start, all the while: a whole file each time, only ever newer.
    head = checkpoint = reads = 0
    try:
        while any(w.poll() is None for w in writers) or reads == 0:
            if path.exists():
                (record,) = json.loads(path.read_text()).values()
                at, size = (
                    record["head"]["timestamp"],
                    (record["witnessed"] or {}).get("tree_size", 0),
                )
                assert at >= head, f"the kept head went back from {head} to {at}"
                assert size >= checkpoint, f"the checkpoint went back from {checkpoint} to {size}"
                head, checkpoint, reads = at, size, reads + 1
            time.sleep(0.002)  # (a look every 2 ms leaves the writers the machine's cores)
    finally:
        for w in writers:
            if w.poll() is None:
                w.kill()
            _, err = w.communicate()
            assert w.returncode == 0, err
    last = WRITES * WRITERS
    kept = KeptHead(path, URL)
    assert kept.head == _head(last)
    assert kept.witnessed is not None and kept.witnessed.tree_size == last
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.keys.head", "k.keys.head.lock"]


def test_a_worker_holding_an_older_record_loses_nothing_newer(tmp_path: Path) -> None:
    path = path_beside(tmp_path / "k.keys")
    first, second = KeptHead(path, URL), KeptHead(path, URL)
    first.keep_witnessed(Witnessed(5, "55" * 32, "note 5"))
    first.keep_head(_head(9))
    # The second worker signed an older head meanwhile: the file keeps the newer, and so does it.
    second.keep_head(_head(7))
    assert (second.head, KeptHead(path, URL).head) == (_head(9), _head(9))
    assert second.witnessed == first.witnessed
    # A restore handled by the first drops the checkpoint; the second, which read it, does not
    # bring it back, and a checkpoint of the new log is kept after it.
    first.forget_witnessed()
    second.keep_head(_head(10))
    assert (second.witnessed, KeptHead(path, URL).witnessed) == (None, None)
    second.keep_witnessed(Witnessed(2, "22" * 32, "note 2"))
    first.refresh()
    assert first.witnessed is not None and first.witnessed.tree_size == 2

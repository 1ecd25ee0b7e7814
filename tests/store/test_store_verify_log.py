"""``baccarat verify-log --db`` on a real SQLite file and a real PostgreSQL: it holds on a
whole log, and fails when the newest entry is deleted together with its heads (the shoes
table still names the entry), as a restored or edited database would show it."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from pathlib import Path

import sqlalchemy as sa

from baccarat.commands import verify_log
from baccarat.server import keyfile
from baccarat.shoe import commitment, new_seed
from baccarat.store import Store

KEYS = keyfile.new_keys()


def _verify(store: Store, keys_file: Path) -> tuple[int, dict[str, object]]:
    args = argparse.Namespace(
        url=None, db=store.url, keys=str(keys_file), public_key=None, head=None,
        save_head=None, json=True, witness=[], witness_quorum=None, checkpoint=None,
        save_checkpoint=None,
    )  # fmt: skip
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = verify_log.run(args)
    return rc, json.loads(out.getvalue())


def _drop_newest(store: Store) -> None:
    """Delete the newest entry and every head that counts it, as someone editing the
    database would, past the triggers that refuse it."""
    with store.engine.begin() as conn:
        size = conn.execute(sa.text("SELECT max(idx) FROM shoe_log")).scalar_one()
        if conn.dialect.name == "sqlite":
            conn.execute(sa.text("DROP TRIGGER shoe_log_no_delete"))
            conn.execute(sa.text("DROP TRIGGER log_heads_no_delete"))
        else:
            conn.execute(sa.text("DROP TRIGGER shoe_log_append_only ON shoe_log"))
            conn.execute(sa.text("DROP TRIGGER log_heads_append_only ON log_heads"))
        conn.execute(sa.text("DELETE FROM shoe_log WHERE idx = :i"), {"i": size})
        conn.execute(sa.text("DELETE FROM log_heads WHERE tree_size > :i"), {"i": size})


def test_deleting_the_newest_entry_with_its_heads_fails_verify_log(
    store: Store, tmp_path: Path
) -> None:
    keys_file = tmp_path / "k.keys"
    keys_file.write_text(KEYS.text())
    for n in range(3):
        store.record_shoe_start(f"s{n}", "t1", commitment(new_seed()), None, KEYS.signer)
    rc, report = _verify(store, keys_file)
    assert (rc, report["problems"], report["shoes_checked"]) == (0, [], 3), report
    assert report["warnings"] == []

    _drop_newest(store)
    rc, report = _verify(store, keys_file)
    assert rc == 1
    assert report["problems"] == [
        "Shoe s2 names log entry 2, but the log holds 2 entries: its entry was removed."
    ]

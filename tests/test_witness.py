"""Two ``baccarat witness`` processes on 127.0.0.1 cosign every head of a live ``baccarat
serve`` (C2SP checkpoints, cosignature/v1), the cosigned checkpoint is served at its
well-known URL, and each witness refuses a split view (another root at the same size, a
smaller tree after a larger), keeping the two checkpoints as evidence. ``baccarat verify-log``
counts the witnesses whose pinned keys vouch for the head, fails under the quorum, and shows
another log under the same name and key (a split view) for what it is."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from baccarat import checkpoint, merkle
from baccarat.cli import main
from baccarat.server import keyfile
from baccarat.shoe import commitment, new_seed
from baccarat.store import open_store
from serving import free_port, start_serve, wait_until


@contextmanager
def _witness(tmp: Path, name: str, log_vkey: str) -> Iterator[tuple[str, str]]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "baccarat", "witness", "--name", name, "--key", str(tmp / f"{port}.key"),
         "--db", str(tmp / f"{port}.db"), "--log", log_vkey, "--port", str(port)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        vkey = proc.stdout.readline().split()[1]
        proc.stdout.readline()
        yield f"http://127.0.0.1:{port}", vkey
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout and proc.stdout.close()


def _post(url: str, body: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url + "/add-checkpoint", body.encode(), timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _verify_log(*argv: str) -> tuple[int, str, str]:
    """``baccarat verify-log ARGV`` in this process: its status, what it printed and said."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["verify-log", *argv])
    return rc, out.getvalue(), err.getvalue()


VOUCH = r"2 of 2 witnesses vouch for (this head \(size \d+\)|the log at size \d+, which)"


def test_two_witnesses_cosign_every_head_and_refuse_a_split_view(tmp_path: Path) -> None:
    keys_file = tmp_path / "k.keys"
    keys = keyfile.new_keys()
    keys_file.write_text(keys.text())
    log_vkey = keys.log_verifiers[0].vkey()
    with ExitStack() as stack:
        w1 = stack.enter_context(_witness(tmp_path, "w1.test/a", log_vkey))
        w2 = stack.enter_context(_witness(tmp_path, "w2.test/b", log_vkey))
        served = stack.enter_context(
            start_serve(
                "--demo",
                "--db",
                f"sqlite:///{tmp_path / 'b.db'}",
                "--keys",
                str(keys_file),
                "--speed",
                "20",
                "--witness",
                f"{w1[0]}={w1[1]}",
                "--witness",
                f"{w2[0]}={w2[1]}",
            )
        )

        def cosigned() -> str | None:
            with urllib.request.urlopen(served.url + "/.well-known/baccarat-checkpoint") as r:
                note = r.read().decode()
            return note if int(note.split("\n")[1]) >= 3 else None

        note = wait_until(cosigned, "a checkpoint of the demo's shoes cosigned")
        text, lines = checkpoint.split_note(note)
        cp = checkpoint.parse_body(text)
        vouched = checkpoint.vouching(
            text, lines, [checkpoint.parse_vkey(w1[1]), checkpoint.parse_vkey(w2[1])]
        )
        assert sorted(vouched) == ["w1.test/a", "w2.test/b"]
        assert checkpoint.vouching(text, lines, keys.log_verifiers) == {cp.origin: 0}

        # verify-log with the witnesses' own keys pinned: both vouch for the served head.
        kept = tmp_path / "checkpoint.txt"
        pinned = ("--witness", w1[1], "--witness", w2[1])
        rc, out, err = _verify_log("--url", served.url, *pinned, "--save-checkpoint", str(kept))
        assert rc == 0, err
        assert re.search(f"the served checkpoint: {VOUCH}.*: w1.test/a, w2.test/b", out), out
        assert (
            checkpoint.parse_body(checkpoint.split_note(kept.read_text())[0]).tree_size
            >= cp.tree_size
        )
        # The keys taken from the operator's document count too, but not silently.
        rc, out, err = _verify_log("--url", served.url)
        assert rc == 0 and re.search(VOUCH, out) and "not pinned" in err, err
        # A third witness that never cosigned, and a policy of all three: too few vouch.
        stranger = keyfile.new_keys().log[0]
        public = Ed25519PrivateKey.from_private_bytes(stranger).public_key().public_bytes_raw()
        third = checkpoint.Verifier("w3.test/c", checkpoint.COSIGNATURE, public).vkey()
        rc, _, err = _verify_log("--url", served.url, *pinned, "--witness", third,
                                 "--witness-quorum", "3")  # fmt: skip
        assert rc == 1 and "only 2 of 3 witnesses vouch" in err, err

        # A split view: the same size with another root, signed with the log's own key.
        forged = checkpoint.body(cp.origin, cp.tree_size, merkle.leaf_hash(b"another"))
        forged_note = f"{forged}\n{checkpoint.sign(forged, cp.origin, keys.log[0])}\n"
        for url, _ in (w1, w2):
            assert _post(url, f"old {cp.tree_size}\n\n{forged_note}")[0] == 409
            smaller = checkpoint.body(cp.origin, 1, merkle.leaf_hash(b"x"))
            small_note = f"{smaller}\n{checkpoint.sign(smaller, cp.origin, keys.log[0])}\n"
            status, size = _post(url, f"old 0\n\n{small_note}")
            assert status == 409 and int(size) >= cp.tree_size
            # A checkpoint signed by a key that is not the log's: 403.
            other = keyfile.new_keys().log[0]
            assert (
                _post(url, f"old 0\n\n{forged}\n{checkpoint.sign(forged, cp.origin, other)}\n")[0]
                == 403
            )
        assert served.stop() == 0
    # The database with the checkpoint its node kept beside the keys file: both vouch.
    rc, out, err = _verify_log("--db", f"sqlite:///{tmp_path / 'b.db'}", "--keys", str(keys_file),
                               *pinned)  # fmt: skip
    assert rc == 0 and re.search(f"kept beside the keys file: {VOUCH}", out), err
    # Another log under the same name and key, shown to someone holding the cosigned
    # checkpoint: first shorter than it, then as long with another root.
    other = f"sqlite:///{tmp_path / 'c.db'}"
    split = open_store(other)
    size = checkpoint.parse_body(checkpoint.split_note(kept.read_text())[0]).tree_size
    try:
        for n in range(size + 1):
            if n == size - 1:
                rc, _, err = _verify_log("--db", other, "--keys", str(keys_file),
                                         "--checkpoint", str(kept), *pinned)  # fmt: skip
                assert rc == 1, err
                assert f"was cosigned at size {size}, but the log read holds only {n}" in err
            split.record_shoe_start(f"x{n}", "t1", commitment(new_seed()), None, keys.signer)
    finally:
        split.close()
    rc, out, err = _verify_log("--db", other, "--keys", str(keys_file), "--checkpoint", str(kept),
                               *pinned)  # fmt: skip
    assert rc == 1 and f"Split view: the checkpoint of {kept} was cosigned at size {size}" in err
    assert re.search(
        f"2 of 2 witnesses vouch for a log of size {size} that is not this one", out
    ), out + err
    for port_db in tmp_path.glob("*.db"):
        if port_db.name in ("b.db", "c.db"):
            continue
        out = subprocess.run(
            [sys.executable, "-m", "baccarat", "witness", "--name", "x", "--key",
             str(port_db.with_suffix(".key")), "--db", str(port_db), "--evidence"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert re.findall(r": (another_root|smaller)\n", out.stdout) == ["another_root", "smaller"]

"""Two ``baccarat witness`` processes on 127.0.0.1 cosign every head of a live ``baccarat
serve`` (C2SP checkpoints, cosignature/v1), the cosigned checkpoint is served at its
well-known URL, and each witness refuses a split view (another root at the same size, a
smaller tree after a larger), keeping the two checkpoints as evidence."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from baccarat import checkpoint, merkle
from baccarat.server import keyfile
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
    for port_db in tmp_path.glob("*.db"):
        if port_db.name == "b.db":
            continue
        out = subprocess.run(
            [sys.executable, "-m", "baccarat", "witness", "--name", "x", "--key",
             str(port_db.with_suffix(".key")), "--db", str(port_db), "--evidence"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert re.findall(r": (another_root|smaller)\n", out.stdout) == ["another_root", "smaller"]

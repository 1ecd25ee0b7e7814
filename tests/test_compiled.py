"""The optional mypyc build: pure Python by default, a stale build never loaded, and the
compiled modules (when built) giving what the pure ones give."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from baccarat import compiled

ROOT = Path(__file__).resolve().parents[1]

# A round at a full table, then what the server sends of it: each event's wire data, each
# kind of viewer's view and ``me``, and the hub's frame of each event.
SCENARIO = """
import json, sys
sys.path.insert(0, "bench")
import bench_table as b
from baccarat import compiled
from baccarat.protocol.codec import dumps
from baccarat.protocol.events import event_wire
from baccarat.protocol.messages import event
from baccarat.protocol.view import view
from baccarat.server.sockets.frames import encode
from baccarat.table.view import personal, personal_keys

table, clock = b.new_table()
b.play_round(table, clock)
out = [dumps(event_wire(ev, now)) for ev, now in b.LOG]
out += [encode(event("t", n, *event_wire(ev, now))).hex() for n, (ev, now) in enumerate(b.LOG)]
for user in (100, 1, None):
    out.append(dumps(view(table, user, clock[0])))
    out.append(dumps(personal(table, user, clock[0])))
out.append(repr(personal_keys(table, range(1, 8), clock[0])))
print(json.dumps({"active": compiled.active(), "out": out}))
"""


def _run(switch: str) -> dict[str, object]:
    env = {**os.environ, compiled.SWITCH: switch}
    done = subprocess.run(
        [sys.executable, "-c", SCENARIO],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_package_runs_as_pure_python_by_default() -> None:
    assert os.environ.get(compiled.SWITCH, "") in ("", "0")
    assert not compiled.active()
    assert compiled.source("baccarat.table.view").name == "view.py"


def test_a_build_older_than_its_sources_is_not_loaded(tmp_path: Path) -> None:
    sources = {m: compiled.digest(m) for m in compiled.MODULES}
    manifest = {"python": sys.implementation.cache_tag, "sources": sources, "files": {}}
    (tmp_path / compiled.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    assert compiled.stale(tmp_path) is None
    manifest["sources"] = {**sources, "baccarat.table.view": "0" * 64}
    (tmp_path / compiled.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    assert "baccarat.table.view" in str(compiled.stale(tmp_path))
    assert "no compiled build" in str(compiled.stale(tmp_path / "none"))


def test_the_compiled_modules_agree_with_the_pure_ones() -> None:
    why = compiled.stale()
    if why is not None:
        pytest.skip(f"no current compiled build ({why})")
    pure, fast = _run("0"), _run("1")
    assert pure["active"] is False
    assert fast["active"] is True
    assert fast["out"] == pure["out"]

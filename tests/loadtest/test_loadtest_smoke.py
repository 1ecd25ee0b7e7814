"""``baccarat loadtest``: a short real run, and the parts it is made of."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from baccarat.loadtest.accounts import BETTORS, make_crews
from baccarat.loadtest.clients import BROWSER_UNSUBSCRIBES, frame_kind
from baccarat.loadtest.curve import curve_svg
from baccarat.loadtest.runner import fresh_database, rooms_toml
from baccarat.loadtest.stats import Tally, percentile, summary_ms
from baccarat.server.config import load_rooms
from baccarat.store import open_store


def test_a_smoke_run_plays_measures_and_leaves_a_clean_ledger(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    curve = tmp_path / "curve.svg"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "baccarat",
            "loadtest",
            "--tables",
            "10",
            "--duration",
            "3",
            "--warmup",
            "1",
            "--ramp",
            "1",
            "--raw",
            "--workdir",
            str(tmp_path / "work"),
            "--out",
            str(out),
            "--curve",
            str(curve),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.exists(), done.stderr
    report = json.loads(out.read_text())
    assert report["audit"]["ok"], report["audit"]
    assert report["audit"]["rounds"] > 0
    assert report["generator_pinned"] is False
    project, raw, picows = report["steps"]
    assert (project["server"], raw["server"], picows["server"]) == (
        "project",
        "raw",
        "raw-picows",
    )
    for step in (project, raw, picows):
        assert step["tables"] == 10
        assert step["clients"] == 90
        assert step["errors"] == {}
        assert step["delivery"]["n"] > 0
        assert step["round_trip"]["n"] > 0
        # Commands and their answers are counted in the same window (the seating before it
        # is not counted): they differ only by what is in flight at its edges.
        assert abs(step["commands"] - step["round_trip"]["n"]) <= step["clients"], step
        assert step["frames"] > 0 and step["server_cpu"] > 0
        assert "chip_placed" in step["per_client_round"]
        within = list(step["frames_within_ms"].values())
        assert within == sorted(within) and within[0] >= 0 and within[-1] <= 1
    assert project["rss_mb"]["playing"] > 0
    # The server's own count of its stalls: ten looks a second at its loop over the window.
    stalls = project["stalls"]
    assert stalls["loop"]["n"] >= 5 * 3 and stalls["gc"]["n"] >= 0
    assert stalls["loop"]["n"] >= stalls["loop"]["over_10ms"] >= stalls["loop"]["over_100ms"]
    assert raw["stalls"] is None and picows["stalls"] is None
    assert project["vs_raw_cpu_per_delivery"] > 0
    assert project["vs_raw_picows_cpu_per_delivery"] > 0
    assert curve.read_text().startswith("<svg")


def test_a_workdir_used_again_gets_a_fresh_database_per_step(tmp_path: Path) -> None:
    first = fresh_database(tmp_path, 10)
    with open_store(first) as store:
        make_crews(store, ["t-1"], prefix="lt-")
    assert (tmp_path / "load-10.db").exists()
    again = fresh_database(tmp_path, 10)
    assert again == first
    # The same accounts can be made again: nothing of the first run is left.
    with open_store(again) as store:
        assert store.total_coins()["total"] == 0
        crews = make_crews(store, ["t-1"], prefix="lt-")
        assert store.balance(crews[0].members[0].user_id) > 0


def test_accounts_are_real_users_with_ledger_grants(tmp_path: Path) -> None:
    with open_store(f"sqlite:///{tmp_path / 'a.db'}") as store:
        crews = make_crews(store, ["t-1", "t-2"], prefix="lt-")
        assert [c.table_id for c in crews] == ["t-1", "t-2"]
        roles = [m.role for m in crews[0].members]
        assert roles == ["dealer", *["bettor"] * BETTORS, "spectator"]
        assert [m.seat for m in crews[0].members] == [0, 1, 2, 3, 4, 5, 6, 7, None]
        dealer = crews[1].members[0]
        assert store.user_for_session(dealer.token) is not None
        assert store.balance(dealer.user_id) > 0
        assert store.balance(crews[1].members[-1].user_id) == 0
        assert store.total_coins()["total"] == 0
        assert store.audit().ok


def test_frames_are_classified_by_their_first_bytes() -> None:
    event = b'{"type":"event","table_id":"t","seq":3,"event":"chip_placed","data":{"event":"x"}}'
    assert frame_kind(event) == "chip_placed"
    assert frame_kind(b'{"type":"ack","id":4}') == "ack"
    assert frame_kind(b'{"type":"lobby.table","table":{}}') == "lobby.table"
    assert frame_kind(b"[1,2]") == "other"


def test_percentiles_are_nearest_rank() -> None:
    values = [i / 1000 for i in range(1, 101)]
    assert percentile(values, 0.5) == 0.05
    assert percentile(values, 0.99) == 0.099
    assert summary_ms(values) == {"n": 100, "p50_ms": 50.0, "p99_ms": 99.0, "max_ms": 100.0}
    assert summary_ms([])["n"] == 0


def test_frames_count_only_while_measuring() -> None:
    tally = Tally()
    tally.frame("ack", 20, 0.0)
    tally.measuring = True
    tally.frame("ack", 20, 0.5)
    tally.frame("chip_placed", 200, 0.003)
    tally.rounds = 2
    per = tally.per_client_round(18)
    assert per == {
        "chip_placed": {"frames": 0.06, "bytes": 11},
        "ack": {"frames": 0.06, "bytes": 1},
    }
    # One of the two measured frames came 3 ms after its socket's last: a window of 5 ms
    # or more could have written it with that one.
    assert tally.within() == {"0.1": 0, "1": 0, "2": 0, "5": 0.5, "10": 0.5, "20": 0.5}


def test_the_rooms_file_is_one_the_server_accepts(tmp_path: Path) -> None:
    path = tmp_path / "rooms.toml"
    path.write_text(rooms_toml(["load-1", "load-2"]))
    config = load_rooms(path)
    assert list(config.table_room()) == ["load-1", "load-2"]


def test_the_curve_draws_both_servers() -> None:
    step = {"delivery": {"p99_ms": 12.0}, "server_cpu": 0.4, "tables": 100}
    report = {
        "model": "browser",
        "p99_limit_ms": 50.0,
        "steps": [{**step, "server": "project"}, {**step, "server": "raw"}],
    }
    svg = curve_svg(report)
    assert svg.count("<polyline") == 4
    assert "project: p99" in svg and "raw: p99" in svg


WEB = Path(__file__).resolve().parents[2] / "src/baccarat/web/js"


def test_the_browser_model_follows_the_shipped_client() -> None:
    # The browser applies every event to its view (reducer.js) and asks for a snapshot only
    # on a sequence gap, or for an event that arrives before it has any view; the model the
    # load test runs must do the same.
    js = {
        name: (WEB / name).read_text(encoding="utf-8") for name in ("tablecontrol.js", "store.js")
    }
    causes = set(re.findall(r"scheduleResync\(([^)]*)\)", js["tablecontrol.js"])) - {"cause"}
    assert causes == {'"gap"', "msg.event"}
    assert re.search(r'if \(!this\.view\) return "missed";', js["store.js"])
    assert re.search(
        r'if \(got === "missed"\) \{\s*this\.scheduleResync\(msg\.event\);', js["tablecontrol.js"]
    )
    assert "apply(this.view, msg.event, data)" in js["store.js"]
    lobby_js = (WEB / "lobbycontrol.js").read_text(encoding="utf-8")
    assert ('"lobby.unsubscribe"' in lobby_js) == BROWSER_UNSUBSCRIBES
    # It sends no more peel moves a second than the hello's squeeze_rate, as the model does.
    assert "this.squeezeRate = msg.squeeze_rate;" in (WEB / "session.js").read_text(
        encoding="utf-8"
    )
    squeeze_js = (WEB / "squeeze.js").read_text(encoding="utf-8")
    assert "this.lastSent + 1000 / (this.rate?.() || RATE)" in squeeze_js

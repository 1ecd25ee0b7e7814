"""The systemd unit of ``deploy/systemd/``: it runs ``baccarat serve`` on its instance's port,
gives a planned stop the time it takes, and ``systemd-analyze verify`` finds nothing wrong."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from baccarat.server.app import SHUTDOWN_GRACE

SYSTEMD = Path(__file__).resolve().parents[2] / "deploy" / "systemd"
UNIT = SYSTEMD / "baccarat@.service"
INSTALLED = "/opt/baccarat/bin/baccarat"
"""Where the unit expects the package's command (``docs/deployment.md``)."""
SOCKETS_CLOSE = 5.0
"""Seconds ``serve`` gives its sockets to close after the tables (``shutdown_timeout``)."""


def _unit() -> configparser.ConfigParser:
    # systemd repeats keys (EnvironmentFile): the last one is enough here.
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str  # keys keep their case
    parser.read_string(UNIT.read_text())
    return parser


def test_each_instance_runs_baccarat_serve_on_its_port_with_its_settings() -> None:
    service = _unit()["Service"]
    command = service["ExecStart"].split()
    assert command[:3] == [INSTALLED, "serve", "--port"]
    assert command[3] == "%i"
    assert "$BACCARAT_ARGS" in command and "$BACCARAT_NODE_ARGS" in command
    env = (SYSTEMD / "baccarat.env.example").read_text()
    for name in ("BACCARAT_DB", "BACCARAT_ARGS", "BACCARAT_METRICS_TOKEN", "BACCARAT_NODE_ARGS"):
        assert f"{name}=" in env, name


def test_a_planned_stop_has_the_time_it_takes_and_a_crash_is_restarted() -> None:
    service = _unit()["Service"]
    assert service["KillSignal"] == "SIGTERM"
    # The round in play may take the whole grace, then the sockets close.
    assert float(service["TimeoutStopSec"]) > SHUTDOWN_GRACE + SOCKETS_CLOSE
    assert service["Restart"] == "on-failure"
    assert service["RestartPreventExitStatus"] == "2"  # a configuration error
    assert service["DynamicUser"] == "yes" and service["NoNewPrivileges"] == "yes"
    assert service["ProtectSystem"] == "strict"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_analyze_verifies_an_instance_of_the_unit(tmp_path: Path) -> None:
    # verify checks that ExecStart's program exists: point it at this checkout's command.
    here = Path(sys.executable).with_name("baccarat")
    assert here.exists(), here
    unit = tmp_path / "baccarat@8001.service"
    unit.write_text(UNIT.read_text().replace(INSTALLED, str(here)))
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # It reports an unknown key or a bad value on stderr without failing: neither may appear.
    complaints = [line for line in done.stderr.splitlines() if "baccarat@" in line]
    assert done.returncode == 0 and complaints == [], done.stderr

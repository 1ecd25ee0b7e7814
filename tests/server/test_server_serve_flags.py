"""``baccarat serve``'s documented flags work as the docs say."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path


def test_no_register_closes_registration(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    db = f"sqlite:///{tmp_path / 'x.db'}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "baccarat", "serve", "--db", db, "--port", "0", "--no-register"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        base = ""
        for line in proc.stdout:
            if line.startswith("open:"):
                base = line.split()[1].rstrip("/")
            if "Ctrl-C" in line:
                break
        assert base, "serve ended before it was ready"
        body = json.dumps({"username": "newbie", "password": "secret12"}).encode()
        request = urllib.request.Request(
            base + "/api/register", data=body, headers={"Content-Type": "application/json"}
        )
        try:
            urllib.request.urlopen(request, timeout=30)
            raise AssertionError("registration was accepted")
        except urllib.error.HTTPError as err:
            with err:
                assert err.code == 403
                assert json.load(err)["error"]["code"] == "registration_closed"
    finally:
        proc.terminate()
        assert proc.wait(timeout=60) == 0
        if proc.stdout is not None:
            proc.stdout.close()

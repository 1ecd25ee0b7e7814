"""The platform file's frame_origins: origins only, written as a browser writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from baccarat.errors import BaccaratError
from baccarat.platform.config import parse

BASE: dict[str, Any] = {
    "issuer": "https://p.example",
    "audience": "baccarat",
    "public_key_file": "key.pem",
    "secret": "s" * 16,
}


def _parse(tmp_path: Path, **extra: Any) -> Any:
    (tmp_path / "key.pem").write_text("-----BEGIN PUBLIC KEY-----\n")
    return parse({**BASE, **extra}, tmp_path)


def test_frame_origins_are_kept_as_a_browser_writes_an_origin(tmp_path: Path) -> None:
    assert _parse(tmp_path).frame_origins == ()
    listed = ["https://Lobby.P.example:443", "http://localhost:8100/", "https://lobby.p.example"]
    got = _parse(tmp_path, frame_origins=listed).frame_origins
    assert got == ("https://lobby.p.example", "http://localhost:8100")


@pytest.mark.parametrize(
    "value",
    [
        "https://p.example",
        ["https://p.example/lobby"],
        ["ftp://p.example"],
        ["https://user@p.example"],
        ["https://p.example?x=1"],
        ["*"],
        [7],
        ["https://p.example"] * 21,
    ],
)
def test_anything_but_a_list_of_origins_is_refused(tmp_path: Path, value: Any) -> None:
    with pytest.raises(BaccaratError) as refused:
        _parse(tmp_path, frame_origins=value)
    assert refused.value.code == "bad_config" and "frame_origins" in refused.value.message

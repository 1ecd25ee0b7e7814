"""docs/integration.md's worked examples of the signed calls: each signature is the one the
game computes, and the signed bytes are as the page shows them."""

from __future__ import annotations

import re
from pathlib import Path

from baccarat.platform import signing

DOC = Path(__file__).resolve().parents[2] / "docs" / "integration.md"
SECRET = b"example-secret-0123456789"
EXAMPLE = re.compile(
    r"```text\n(?P<method>GET|POST) (?P<path>\S+)\n(?:body:   (?P<body>.*)\n)?"
    r"signed: (?P<signed>.*)\nX-Platform-Timestamp: (?P<stamp>\d+)\n"
    r"X-Platform-Signature: (?P<signature>[0-9a-f]{64})\n```"
)


def test_every_worked_example_is_signed_as_the_game_signs() -> None:
    text = DOC.read_text()
    assert SECRET.hex() in text
    found = list(EXAMPLE.finditer(text))
    paths = {m["path"].split("?")[0] for m in found}
    assert {"/api/platform/transfers", "/api/platform/balance", "/api/wallet/debit"} <= paths
    assert len(found) == 10
    for m in found:
        body = (m["body"] or "").encode()
        message = f"{m['stamp']}\n{m['method']}\n{m['path']}\n".encode() + body
        assert m["signed"].replace("\\n", "\n").encode() == message, m["path"]
        expected = signing.signature(SECRET, m["stamp"], m["method"], m["path"], body)
        assert m["signature"] == expected, m["path"]

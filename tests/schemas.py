"""The protocol's pinned JSON schemas (``docs/protocol``), compiled once for the tests.

jsonschema-rs checks a frame in microseconds where the pure-Python ``jsonschema`` took
milliseconds; a whole shoe's frames are thousands of checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema_rs

DIR = Path(__file__).resolve().parents[1] / "docs" / "protocol"


def load(name: str) -> dict[str, Any]:
    """A schema of ``docs/protocol`` as JSON."""
    schema: dict[str, Any] = json.loads((DIR / name).read_text(encoding="utf-8"))
    return schema


def validator(schema: dict[str, Any]) -> jsonschema_rs.Draft202012Validator:
    """A compiled Draft 2020-12 validator (``validate`` raises, ``is_valid`` tells)."""
    return jsonschema_rs.Draft202012Validator(schema)


SERVER_SCHEMA = load("server.schema.json")
CLIENT_SCHEMA = load("client.schema.json")
SERVER = validator(SERVER_SCHEMA)
"""Every frame the server sends."""
CLIENT = validator(CLIENT_SCHEMA)
"""Every command a client sends."""

"""JSON read on standard input by a command: the value, or one line saying why it is not."""

from __future__ import annotations

import json
import sys
from typing import Any

from baccarat.errors import InvalidInput


def read_stdin(what: str) -> Any:
    """The JSON value on standard input; ``bad_json`` naming ``what`` when it cannot be read."""
    try:
        text = sys.stdin.read()
    except UnicodeDecodeError:
        raise InvalidInput("bad_json", f"{what} is not UTF-8 text.") from None
    return parse(text, what)


def parse(text: str, what: str) -> Any:
    """The JSON value of ``text``; ``bad_json`` naming ``what`` when it is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            "bad_json", f"{what} is not valid JSON: {exc.msg} (line {exc.lineno})."
        ) from None
    except RecursionError:
        # Arrays or objects nested thousands deep: no input of these commands nests past 3.
        raise InvalidInput(
            "bad_json", f"{what} nests arrays or objects too deeply to be read."
        ) from None

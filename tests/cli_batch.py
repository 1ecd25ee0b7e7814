"""Run many ``baccarat`` command lines in one process, as the installed command runs each.

``python tests/cli_batch.py CASES.json`` reads ``[{"argv": [...], "stdin": TEXT}, ...]``
(stdin as Latin-1 text, so any bytes pass), runs ``baccarat.cli.main`` on each with that
standard input, and prints one JSON object per case: its exit status, what it printed, and
the traceback an uncaught exception would have printed (None when there was none). One
process for a batch keeps a test of a hundred bad inputs to seconds: a process per line
would spend most of it importing.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback
from typing import Any


def run_case(argv: list[str], stdin: str) -> dict[str, Any]:
    """One command line, as ``baccarat ARGV < STDIN``."""
    from baccarat.cli import main

    out, err = io.StringIO(), io.StringIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("latin-1")), encoding="utf-8")
    status: object = None
    trace = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exc:
            status = exc.code
        except BaseException:  # what would reach the interpreter and print a traceback
            trace = traceback.format_exc()
            status = 1
    return {"argv": argv, "status": status, "out": out.getvalue(), "err": err.getvalue(),
            "traceback": trace}  # fmt: skip


def main() -> None:
    """Run the batch named on the command line; print each result as a JSON line."""
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)
    real = sys.stdout
    for case in cases:
        print(json.dumps(run_case(case["argv"], case.get("stdin", ""))), file=real, flush=True)


if __name__ == "__main__":
    main()

"""Run the browser tests again and again and count each test's failures.

    python bench/flake_check.py [--runs 5] [--workers 2] [PYTEST_ARGS...]

Each run is one ``pytest -W error`` of the browser modules (``tests/e2e`` unless other paths
or options are given), in a fresh process, with a JUnit report read back afterwards. Prints
one line per run (its time and counts) and then every test that failed or errored in any run,
with how many runs it failed in: a test that fails in some runs and not others is flaky, one
that fails in all is broken. Exits 1 if any run had a failure.

The test suite has no retries: this is where a flaky test shows.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_once(args: list[str], workers: int, report: Path) -> tuple[float, dict[str, str]]:
    """One pytest run; its wall time and the outcome of every test that did not pass."""
    cmd = [sys.executable, "-m", "pytest", "-W", "error", "-q", "-p", "no:cacheprovider"]
    cmd += ["-n", str(workers), f"--junitxml={report}", *args]
    start = time.monotonic()
    subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    took = time.monotonic() - start
    bad: dict[str, str] = {}
    passed = 0
    for case in ET.parse(report).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = [child.tag for child in case if child.tag in ("failure", "error")]
        if kinds:
            bad[name] = kinds[0]
        elif not any(child.tag == "skipped" for child in case):
            passed += 1
    bad["(passed)"] = str(passed)
    return took, bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    args, rest = parser.parse_known_args()
    targets = rest or ["tests/e2e"]
    failed: collections.Counter[str] = collections.Counter()
    dirty = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(1, args.runs + 1):
            took, bad = run_once(targets, args.workers, Path(tmp) / f"run{i}.xml")
            passed = bad.pop("(passed)")
            dirty += bool(bad)
            failed.update(bad)
            print(f"run {i}: {took:.0f} s, {passed} passed, {len(bad)} failed", flush=True)
    print(f"\n{args.runs - dirty} of {args.runs} runs clean")
    for name, n in failed.most_common():
        print(f"  {n}/{args.runs}  {name}")
    return 1 if dirty else 0


if __name__ == "__main__":
    raise SystemExit(main())

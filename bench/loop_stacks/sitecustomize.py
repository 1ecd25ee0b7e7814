"""Print the loop thread's stack whenever the event loop runs late: where a server stalls.

    BACCARAT_LOOP_STACKS=/tmp/stacks PYTHONPATH=bench/loop_stacks \\
        baccarat loadtest --tables 1000 --model auto-open --duration 25 --ramp 20 --warmup 5

Python imports ``sitecustomize`` at start-up from the path, so every Python process started
with this ``PYTHONPATH`` (the server and the load generator alike) wraps ``asyncio.run``: a
2 ms timer marks the loop as alive, and a thread looks every 4 ms. While the mark is more
than ``LATE_MS`` old, each look writes one line to ``BACCARAT_LOOP_STACKS.<pid>``: the time,
the mark, how late, and the loop thread's innermost frames. Consecutive lines with one mark
are one stall; a stack that ends in the loop's own ``run`` is C code (uvloop, a system call,
a garbage collection). The thread needs the GIL to look, so it sees Python frames at the
points where the loop thread lets the GIL go, and it adds a little load of its own: use it to
find stalls, not to measure latency.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
import traceback
from collections.abc import Coroutine
from typing import Any, TypeVar

LATE_MS = 12.0
"""How late the 2 ms mark must be for a look to be written."""

T = TypeVar("T")


def _watch(path: str, ident: int, mark: list[float]) -> None:
    with open(f"{path}.{os.getpid()}", "w", buffering=1, encoding="utf-8") as out:
        while True:
            time.sleep(0.004)
            late = (time.perf_counter() - mark[0]) * 1000
            if late <= LATE_MS:
                continue
            frame = sys._current_frames().get(ident)
            stack = traceback.extract_stack(frame)[-14:] if frame is not None else []
            where = " < ".join(
                f"{os.path.basename(f.filename)}:{f.lineno}:{f.name}" for f in reversed(stack)
            )
            out.write(f"{time.time():.3f} mark={mark[0]:.4f} late={late:.1f} {where}\n")


def _run_watched(path: str, run: Any) -> Any:
    def watched(main: Coroutine[Any, Any, T], **kwargs: Any) -> T:
        async def marked() -> T:
            loop = asyncio.get_running_loop()
            mark = [time.perf_counter()]

            def beat() -> None:
                mark[0] = time.perf_counter()
                loop.call_later(0.002, beat)

            beat()
            ident = threading.get_ident()
            threading.Thread(target=_watch, args=(path, ident, mark), daemon=True).start()
            return await main

        result: T = run(marked(), **kwargs)
        return result

    return watched


if os.environ.get("BACCARAT_LOOP_STACKS"):
    asyncio.run = _run_watched(os.environ["BACCARAT_LOOP_STACKS"], asyncio.run)

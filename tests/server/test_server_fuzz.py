"""Fuzzing a live server: hostile frames and requests, generated and from a corpus.

Every frame gets exactly one answer (an ack, or an error with a code), the socket keeps
answering, no HTTP request gets a 5xx, nothing is logged at ERROR, and no coin moves (the
ledger's totals and every balance are unchanged and the audit is clean). The long run of the
same checks is ``python bench/fuzz_protocol.py --frames 1000000`` (docs/reliability.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import urllib.parse
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
from hostile import (
    BAD_PATHS,
    BAD_QUERIES,
    BAD_RAW_REQUESTS,
    BAD_WS_FRAMES,
    CORPUS,
    Probe,
    describe,
    logged_errors,
    mutate,
    nested,
    raw_frame_close_code,
    raw_status,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_live import TEST_LIMIT, Live, start_live
from yarl import URL

from baccarat.protocol.registry import BY_TYPE
from schemas import SERVER

T = TypeVar("T")
Call = Callable[[Coroutine[Any, Any, T]], T]

PLAUSIBLE = ["t1", "t2", "player", "banker", "tie", "player_pair", "tl", "br", "l", 0, 1, 5, 0.5]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and Infinity go out as bare NaN / Infinity: not JSON
    | st.text(max_size=20)  # lone surrogates go out as \\udXXX escapes
    | st.sampled_from(PLAUSIBLE)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = st.sampled_from(
    ["table_id", "seat", "area", "chip", "hand", "progress", "corner", "user_id", "coins"]
) | st.text(max_size=8)
COMMAND_FRAMES = st.builds(
    lambda kind, msg_id, extra: json.dumps({"type": kind, "id": msg_id, **extra}),
    st.sampled_from(sorted(BY_TYPE)) | st.text(max_size=12),
    st.integers(-5, 50) | st.text(max_size=8) | VALUES,
    st.dictionaries(FIELDS, VALUES, max_size=4),
)
TEXT_SEEDS = [c for c in CORPUS if isinstance(c, str)] + [
    json.dumps({"type": "sit", "id": 1, "table_id": "t1", "seat": 2}),
    json.dumps({"type": "bet", "id": 2, "area": "player", "chip": 5}),
    json.dumps({"type": "squeeze", "id": 3, "hand": "player", "progress": 0.5, "corner": "br"}),
]
FRAMES: st.SearchStrategy[str | bytes] = st.one_of(
    COMMAND_FRAMES,
    st.text(alphabet=st.characters(codec="utf-8"), max_size=120),
    st.binary(max_size=120),
    st.builds(mutate, st.randoms(use_true_random=False), st.sampled_from(TEXT_SEEDS)),
    st.integers(1, 3000).map(nested),
)
PATHS = st.text(max_size=300).map(lambda t: "/" + urllib.parse.quote(t, safe="/%?=&.")) | (
    st.sampled_from(BAD_PATHS)
)
QUERY_VALUES = (
    st.text(max_size=40)
    | st.sampled_from(
        ["²", "9" * 5000, "1e400", "nan", "-1", "0", "1:x", "1e308:\x00", "%ED%A0%80"]
    )
    | st.integers().map(str)
    | st.floats().map(repr)
)
API_GETS = st.builds(
    lambda path, name, value: f"{path}?{name}=" + urllib.parse.quote(value, safe="%"),
    st.sampled_from(["/api/my/rounds", "/api/my/net", "/api/me", "/api/lobby", "/healthz"]),
    st.sampled_from(["limit", "before", "since", "token", ""]),
    QUERY_VALUES,
)
BODIES = st.one_of(
    st.binary(max_size=200),
    COMMAND_FRAMES.map(str.encode),
    st.builds(
        lambda u, p, d: json.dumps({"username": u, "password": p, "display_name": d}).encode(),
        VALUES,
        VALUES,
        VALUES,
    ),
)


@contextlib.contextmanager
def live_on_a_thread(tmp_path: Path, **kw: Any) -> Iterator[tuple[Live, Call[Any]]]:
    """A live server on its own loop and thread; ``call`` runs a coroutine there and waits.

    Hypothesis drives a plain function, so the server's loop runs beside it.
    """
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="fuzzed-server")
    thread.start()

    def call(coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, loop).result(TEST_LIMIT)

    live = call(start_live(tmp_path, **kw))
    try:
        yield live, call
    finally:
        call(live.test_server.close())
        live.store.close()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


def _one_answer(answers: list[dict[str, Any]], frame: str | bytes) -> None:
    shown = repr(frame[:200])
    assert len(answers) == 1, (shown, answers)
    (answer,) = answers
    # A valid answer by the protocol's own schema.
    SERVER.validate(answer)
    assert answer["type"] in ("ack", "error"), (shown, answer)
    if answer["type"] == "error":
        assert isinstance(answer["code"], str) and answer["code"], (shown, answer)
        assert isinstance(answer["message"], str) and answer["message"], (shown, answer)


def _ledger(live: Live, users: set[int]) -> tuple[int, int, int, dict[int, int]]:
    """The house, escrow and ledger total, and the balances of ``users``.

    A fuzzed register body may open an account (minting its start coins): that account is
    not one of ``users``, and the ledger's total stays 0.
    """
    totals = live.store.total_coins()
    balances = {u.user_id: u.coins for u in live.store.list_users() if u.user_id in users}
    return totals["house"], totals["escrow"], totals["total"], balances


def test_fuzzed_frames_and_requests_get_answers_and_move_no_coin(tmp_path: Path) -> None:
    with logged_errors() as errors, live_on_a_thread(tmp_path, command_rate=1e9) as (live, call):
        # One socket may watch but not sit (no coins); the other may sit, even as the dealer.
        # Neither can ever make a round: a round needs a dealer and a bettor.
        watcher, watcher_token = call(live.user("watcher", coins=0))
        sitter, sitter_token = call(live.user("sitter", coins=100_000))
        users = {watcher.user_id, sitter.user_id}
        before = _ledger(live, users)
        assert before[2] == 0
        probes = [call(Probe.open(live.base, t)) for t in (watcher_token, sitter_token)]
        try:
            _fuzz(live, call, probes, watcher_token)
        finally:
            for probe in probes:
                call(probe.close())
        assert _ledger(live, users) == before
        report = live.store.audit()
        assert report.ok, report.problems
    assert errors == [], describe(errors)


def _fuzz(live: Live, call: Call[Any], probes: list[Probe], watcher_token: str) -> None:
    for frame in CORPUS:
        for probe in probes:
            _one_answer(call(probe.ask(frame)), frame)

    @settings(
        max_examples=300,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(frame=FRAMES, which=st.sampled_from([0, 1]))
    def fuzz_frame(frame: str | bytes, which: int) -> None:
        _one_answer(call(probes[which].ask(frame)), frame)

    fuzz_frame()

    async def get(path: str, token: str | None = None) -> int:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        async with aiohttp.ClientSession() as http:
            url = URL(live.base + path, encoded=True)
            async with http.get(url, allow_redirects=False, headers=headers) as resp:
                return resp.status

    async def post(path: str, body: bytes, content_type: str) -> int:
        async with (
            aiohttp.ClientSession() as http,
            http.post(live.base + path, data=body, headers={"Content-Type": content_type}) as resp,
        ):
            return resp.status

    @settings(max_examples=60, deadline=None, database=None)
    @given(path=PATHS)
    def fuzz_path(path: str) -> None:
        assert call(get(path)) < 500, path[:200]

    @settings(max_examples=60, deadline=None, database=None)
    @given(
        path=st.sampled_from(["/api/login", "/api/register", "/api/logout"]),
        body=BODIES,
        content_type=st.sampled_from(
            ["application/json", "text/plain", "application/json; charset=nope", ""]
        ),
    )
    def fuzz_body(path: str, body: bytes, content_type: str) -> None:
        assert call(post(path, body, content_type)) < 500, (path, body[:200])

    @settings(max_examples=60, deadline=None, database=None)
    @given(path=API_GETS)
    def fuzz_api_query(path: str) -> None:
        assert call(get(path, watcher_token)) < 500, path[:200]

    fuzz_path()
    fuzz_api_query()
    fuzz_body()
    for path in BAD_PATHS:
        assert call(get(path)) < 500, path[:200]
    for path in BAD_QUERIES:
        assert call(get(path, watcher_token)) < 500, path[:200]
    for request in BAD_RAW_REQUESTS:
        status = call(raw_status(live.base, request))
        assert status is None or status < 500, (request[:200], status)

    # Frames a library would not send (1 MB, not UTF-8, bad opcodes) close only their socket.
    for name, (frame, code) in BAD_WS_FRAMES.items():
        assert call(raw_frame_close_code(live.base, watcher_token, frame)) == code, name

    # Both sockets still answer.
    for probe in probes:
        answers = call(probe.ask(json.dumps({"type": "ping", "id": "after"})))
        assert answers[0]["type"] in ("ack", "error")

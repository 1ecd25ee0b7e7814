"""A connection's memory of answered command ids: a retry runs nothing, the memory is bounded."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from baccarat.protocol.codec import dumps
from baccarat.protocol.messages import ack, error
from baccarat.server.sockets.connection import ANSWERS_KEPT, Connection
from baccarat.server.sockets.frames import payload


def _connection() -> tuple[Connection, list[str]]:
    """A connection whose frames are read back by the test (no socket is needed here)."""
    conn = Connection(None, None, 1)  # type: ignore[arg-type]
    sent: list[str] = []
    original = conn.send_frame

    def send_frame(frame: bytes) -> None:
        sent.append(payload(frame).decode())
        original(frame)

    conn.send_frame = send_frame  # type: ignore[method-assign]
    return conn, sent


def _run(body: Any) -> None:
    async def main() -> None:
        body()

    asyncio.run(main())


def test_a_retry_gets_the_first_answer_and_does_not_run() -> None:
    def body() -> None:
        conn, sent = _connection()
        assert not conn.replay("a")
        conn.answer(ack("a", server_time=1.5))
        assert not conn.replay(7)
        conn.answer(error(7, "betting_closed", "Betting is closed."))
        assert conn.replay("a") and conn.replay(7) and conn.replay("a")
        assert sent[2:] == [sent[0], sent[1], sent[0]]
        # A plain ack is kept as its id alone and rebuilt the same.
        assert not conn.replay(8)
        conn.answer(ack(8))
        assert conn.replay(8)
        assert sent[-1] == sent[-2] == dumps(ack(8))

    _run(body)


def test_a_copy_that_arrives_while_the_first_runs_gets_the_answer_when_it_comes() -> None:
    def body() -> None:
        conn, sent = _connection()
        assert not conn.replay("sq")
        assert conn.replay("sq") and conn.replay("sq")
        assert sent == []
        conn.answer(ack("sq", coalesced=True))
        assert sent == [dumps(ack("sq", coalesced=True))] * 3

    _run(body)


def test_only_the_last_ids_are_remembered_and_their_memory_is_small() -> None:
    def body() -> None:
        conn, _ = _connection()
        for i in range(ANSWERS_KEPT + 10):
            assert not conn.replay(i)
            conn.answer(ack(i))
        # The oldest ids are forgotten (a command with one runs again), the newest kept.
        assert not conn.replay(0)
        assert conn.replay(ANSWERS_KEPT + 9)
        assert len(conn._answers) == ANSWERS_KEPT
        assert sys.getsizeof(conn._answers) < 4096

    _run(body)


def test_an_answer_to_an_id_never_started_is_sent_but_not_remembered() -> None:
    def body() -> None:
        conn, sent = _connection()
        conn.answer(error(5, "bad_message", "Not a command."))
        assert len(sent) == 1
        assert not conn.replay(5)

    _run(body)

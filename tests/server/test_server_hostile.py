"""Hostile input: each crash class found from outside, against a live server.

Nesting, lone surrogates, bad paths, bursts and slow readers: every one is answered with a
code (or the socket is closed with the documented code), nothing is logged as an exception,
and the socket keeps answering.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest
from hostile import (
    BAD_PATHS,
    BAD_QUERIES,
    BAD_RAW_REQUESTS,
    BAD_WS_FRAMES,
    Probe,
    describe,
    logged_errors,
    nested,
    oversized_frame_close_code,
    raw_frame_close_code,
    raw_status,
)
from server_live import Live, live_test
from test_server_connections import _frame, _stuck_socket
from yarl import URL

from baccarat.client import Client, CommandError

DEEP = nested(1000)


@live_test()
async def test_deep_nesting_over_the_socket_is_a_bad_message(live: Live) -> None:
    _, token = await live.user("alice")
    with logged_errors() as errors:
        probe = await Probe.open(live.base, token)
        for frame in (DEEP, '{"type":"ping","id":1,"x":' + DEEP + "}"):
            answers = await probe.ask(frame)
            assert [a["code"] for a in answers] == ["bad_message"]
        await probe.close()
    assert errors == [], describe(errors)


@pytest.mark.parametrize("path", ["/api/login", "/api/register"])
def test_deep_nesting_as_a_login_or_register_body_is_a_400(path: str, tmp_path: Any) -> None:
    @live_test()
    async def run(live: Live) -> None:
        with logged_errors() as errors:
            async with aiohttp.ClientSession() as http:
                for body in (
                    DEEP,
                    '{"username":' + DEEP + ',"password":"secret12"}',
                    # JSON is UTF-8 whatever charset a header claims.
                    '{"username":"a","password":"b"}',
                ):
                    resp = await http.post(
                        live.base + path,
                        data=body.encode(),
                        headers={"Content-Type": "application/json; charset=no-such-codec"},
                    )
                    assert resp.status < 500, (body[:40], resp.status)
                    if body != '{"username":"a","password":"b"}':
                        assert resp.status == 400
                        assert (await resp.json())["error"]["code"] == "bad_message"
        assert errors == [], describe(errors)

    run(tmp_path)


@live_test()
async def test_lone_surrogates_are_refused_and_the_socket_keeps_answering(live: Live) -> None:
    _, token = await live.user("alice")
    frames = [
        r'{"type":"ping","id":"\ud800"}',
        r'{"type":"ping","id":1,"\udfff":1}',
        r'{"type":"table.watch","id":2,"table_id":"\udbff"}',
        r'{"type":"\ud800","id":3}',
    ]
    with logged_errors() as errors:
        probe = await Probe.open(live.base, token)
        for frame in frames:
            answers = await probe.ask(frame)
            assert [a["code"] for a in answers] == ["bad_message"], frame
            # Whatever the server echoes is valid UTF-8 JSON.
            json.dumps(answers, ensure_ascii=False).encode("utf-8")
        # A well-formed pair of surrogates is one character, and fine as an id.
        assert (await probe.ask(r'{"type":"ping","id":"\ud83d\ude00"}'))[0]["id"] == "\U0001f600"
        await probe.close()
    assert errors == [], describe(errors)


@live_test()
async def test_lone_surrogates_in_a_login_name_or_display_name_are_a_400(live: Live) -> None:
    bodies = {
        "/api/login": r'{"username":"\ud800","password":"secret12"}',
        "/api/register": r'{"username":"newbie","password":"secret12","display_name":"\udfff"}',
    }
    with logged_errors() as errors:
        async with aiohttp.ClientSession() as http:
            for path, body in bodies.items():
                resp = await http.post(
                    live.base + path, data=body, headers={"Content-Type": "application/json"}
                )
                assert resp.status == 400, path
                assert (await resp.json())["error"]["code"] == "bad_message"
    assert errors == [], describe(errors)
    assert [u.username for u in live.store.list_users()] == []


@live_test()
async def test_bad_static_paths_are_a_4xx_never_a_5xx(live: Live) -> None:
    with logged_errors() as errors:
        async with aiohttp.ClientSession() as http:
            for path in BAD_PATHS:
                resp = await http.get(live.base + path)
                assert resp.status < 500, (path[:60], resp.status)
            for path in ("/%00", "/index.html%00", "/js/main.js%00.png", "/" + "a" * 5000):
                resp = await http.get(live.base + path)
                assert resp.status == 404, path[:60]
            # The client's own files are still served.
            for path in ("/", "/index.html", "/js/main.js"):
                assert (await http.get(live.base + path)).status == 200, path
    assert errors == [], describe(errors)


@live_test()
async def test_hostile_query_strings_of_the_logged_in_api_are_a_4xx(live: Live) -> None:
    _, token = await live.user("alice")
    headers = {"Authorization": f"Bearer {token}"}
    with logged_errors() as errors:
        async with aiohttp.ClientSession() as http:
            for path in BAD_QUERIES:
                url = URL(live.base + path, encoded=True)
                async with http.get(url, headers=headers) as resp:
                    assert resp.status < 500, (path[:60], resp.status)
            async with http.get(live.base + "/api/my/rounds?limit=%C2%B2", headers=headers) as resp:
                assert resp.status == 400
                assert (await resp.json())["error"]["code"] == "bad_limit"
    assert errors == [], describe(errors)


@live_test()
async def test_raw_malformed_requests_are_a_4xx_and_log_no_error(live: Live) -> None:
    with logged_errors() as errors:
        for request in BAD_RAW_REQUESTS:
            status = await raw_status(live.base, request)
            assert status is None or status < 500, (request[:60], status)
        # Raw bytes in a session cookie or bearer token name no session.
        assert await raw_status(live.base, BAD_RAW_REQUESTS[3]) == 401
        assert await raw_status(live.base, BAD_RAW_REQUESTS[4]) == 401
    assert errors == [], describe(errors)


@live_test()
async def test_a_writer_that_fails_closes_its_socket_with_1011_and_logs(live: Live) -> None:
    alice = await live.client("alice")
    (conn,) = live.server.hub.connections
    with logged_errors() as errors:
        # Text no socket can send (a lone surrogate): the writer fails on it.
        conn.send("\ud800")
        assert await alice.next_message(30) is None
    assert alice.close_code == 1011
    assert any("writer failed" in r.getMessage() for r in errors), describe(errors)
    await alice.close()


@live_test()
async def test_a_burst_of_600_commands_from_a_reading_client_is_all_answered(
    live: Live,
) -> None:
    _, token = await live.user("alice")
    probe = await Probe.open(live.base, token)
    for i in range(600):
        await probe.send(json.dumps({"type": "ping", "id": i}))
    answers = await probe.mark()
    assert [a["id"] for a in answers] == list(range(600))
    # The burst allowance passes, the rest is refused with a code; nobody is dropped.
    assert {a.get("code", "ack") for a in answers} == {"ack", "rate_limited"}
    assert not probe.ws.closed
    await probe.close()


@live_test(queue_limit=1, command_rate=10_000)
async def test_a_client_too_slow_for_its_queue_is_closed_with_4000(live: Live) -> None:
    # A client that asks and never reads: while its socket takes the answers they are written
    # at once; once its buffers are full they wait in its queue, and a queue of one is soon
    # over: the client is closed as too slow.
    user, token = await live.user("alice")
    _, writer = await _stuck_socket(live.base, token)
    writer.write(_frame({"type": "table.watch", "id": 0, "table_id": "t1"}))
    for i in range(1, 3001):
        writer.write(_frame({"type": "resync", "id": i}))
        if i % 200 == 0:
            await writer.drain()
    while live.server.hub.online(user.user_id):
        await asyncio.sleep(0.05)
    metrics = live.server.metrics.render().decode()
    assert 'baccarat_clients_dropped_total{reason="too_slow"} 1.0' in metrics
    writer.close()


@live_test()
async def test_integral_floats_are_integers_as_in_the_schema(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    alice = await live.client("alice")
    await dealer.sit("t1", 0.0)
    await alice.sit("t1", 1.0)
    await alice.wait_for(lambda m: m.get("event") == "betting_opened", 30)
    await alice.send_text(json.dumps({"type": "bet", "id": 70.0, "area": "player", "chip": 5.0}))
    placed = await alice.wait_for(lambda m: m.get("event") == "chip_placed", 30)
    assert placed["data"]["chip"] == 5
    assert isinstance(placed["data"]["chip"], int)
    with pytest.raises(CommandError) as err:
        await alice.bet("player", 5.5)
    assert err.value.code == "bad_message"
    await dealer.close()
    await alice.close()


@live_test()
async def test_a_command_sent_twice_with_one_id_runs_once_and_gets_the_first_answer(
    live: Live,
) -> None:
    dealer = await live.client("dealer", 1_000_000)
    alice = await live.client("alice")
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    await alice.wait_for(lambda m: m.get("event") == "betting_opened", 30)
    bet = json.dumps({"type": "bet", "id": "dup-1", "area": "player", "chip": 2})
    # Alice's second socket: the same id there is its own command (ids are per socket).
    probe = await Probe.open(live.base, alice_token(live, alice))
    first = await probe.ask(bet)
    again = await probe.ask(bet)
    assert first == again and first[0]["type"] == "ack"
    # A retry with other fields is still a retry: the first answer, nothing run.
    other = await probe.ask(json.dumps({"type": "bet", "id": "dup-1", "area": "tie", "chip": 1}))
    assert other == first
    # A refused command's retry gets the same refusal.
    refused = await probe.ask(json.dumps({"type": "sit", "id": 5, "table_id": "t2", "seat": 1}))
    assert refused[0]["code"] == "already_seated_elsewhere"
    assert await probe.ask(json.dumps({"type": "ping", "id": 5})) == refused
    # One chip of 2 on Player, not two.
    view = await alice.resync()
    me = view["seats"][1]
    assert me["bets"] == {"player": 2}, me
    await probe.close()
    await dealer.close()
    await alice.close()


def alice_token(live: Live, alice: Client) -> str:
    """A second session of alice's (a second socket of the same user)."""
    return live.store.create_session(alice.user_id)


@live_test()
async def test_a_retried_ping_gets_the_first_ack_with_its_clock(live: Live) -> None:
    _, token = await live.user("alice")
    probe = await Probe.open(live.base, token)
    ping = json.dumps({"type": "ping", "id": "p"})
    first = await probe.ask(ping)
    await asyncio.sleep(0.01)
    assert await probe.ask(ping) == first
    await probe.close()


@live_test()
async def test_raw_frames_close_with_their_rfc_code_and_the_server_serves_on(live: Live) -> None:
    _, token = await live.user("alice")
    with logged_errors() as errors:
        for name, (frame, code) in BAD_WS_FRAMES.items():
            assert await raw_frame_close_code(live.base, token, frame) == code, name
        # A frame over the 16 KiB limit (1 MB announced) is one of them: 1009.
        assert await oversized_frame_close_code(live.base, token) == 1009
        probe = await Probe.open(live.base, token)
        assert await probe.ask(json.dumps({"type": "ping", "id": 2})) != []
        await probe.close()
    assert errors == [], describe(errors)

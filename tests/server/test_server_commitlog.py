"""The commitment log over HTTP: the head, signed by the key published at the well-known
address; entries; inclusion and consistency proofs that check; and clear refusals."""

from __future__ import annotations

import base64
import json
from typing import Any

import aiohttp
from server_live import Live, live_test

from baccarat import merkle
from baccarat.logbook import SignedHead, head_signed, key_id
from baccarat.shoe import commitment


async def get(live: Live, path: str, **query: str) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as session, session.get(live.base + path, params=query) as r:
        return r.status, json.loads(await r.text())


def log_shoes(live: Live, n: int) -> None:
    for i in range(n):
        seed = bytes([i + 1]) * 32
        live.store.record_shoe_start(f"s{i}", "t1", commitment(seed), None, live.server.keys.signer)
        if i % 2 == 0:
            live.store.record_shoe_end(f"s{i}", seed.hex())


async def proofs(live: Live) -> None:
    log_shoes(live, 6)
    status, published = await get(live, "/.well-known/baccarat-log-key")
    assert status == 200 and published["algorithm"] == "Ed25519"
    keys = {k["key_id"]: base64.b64decode(k["public_key"]) for k in published["keys"]}
    assert all(key_id(raw) == kid for kid, raw in keys.items())

    status, raw_head = await get(live, "/api/log/head")
    head = SignedHead.from_json(raw_head)
    assert status == 200 and head.tree_size == 6 and head_signed(head, keys)

    status, page = await get(live, "/api/log/entries", start="0", end="6")
    entries = page["entries"]
    assert [e["index"] for e in entries] == list(range(6))
    assert [e["seed"] is not None for e in entries] == [True, False] * 3
    leaves = [bytes.fromhex(e["leaf_hash"]) for e in entries]
    assert merkle.root(leaves).hex() == head.root_hash

    status, proof = await get(live, "/api/log/proof", shoe="s3")
    assert status == 200 and proof["index"] == 3 and proof["tree_size"] == 6
    path = [bytes.fromhex(h) for h in proof["audit_path"]]
    assert merkle.verify_inclusion(3, 6, leaves[3], path, bytes.fromhex(head.root_hash))
    status, old = await get(live, "/api/log/head", tree_size="4")
    assert status == 200 and old["tree_size"] == 4
    status, ext = await get(live, "/api/log/consistency", first="4", second="6")
    assert status == 200
    assert merkle.verify_consistency(
        4,
        6,
        bytes.fromhex(old["root_hash"]),
        bytes.fromhex(head.root_hash),
        [bytes.fromhex(h) for h in ext["proof"]],
    )


@live_test()
async def test_the_log_gives_a_signed_head_entries_and_proofs_that_check(live: Live) -> None:
    await proofs(live)


@live_test(postgres=True)
async def test_the_log_gives_its_proofs_on_postgresql(live: Live) -> None:
    await proofs(live)


@live_test()
async def test_the_log_refuses_bad_questions_with_a_code_and_a_sentence(live: Live) -> None:
    log_shoes(live, 2)
    cases = [
        ("/api/log/entries", {"start": "-1"}, 400, "bad_number"),
        ("/api/log/entries", {"start": "5", "end": "2"}, 400, "bad_range"),
        ("/api/log/entries", {"start": "0", "end": "5000"}, 400, "bad_range"),
        ("/api/log/proof", {"shoe": "nope"}, 404, "not_logged"),
        ("/api/log/proof", {"shoe": ""}, 404, "unknown_shoe"),
        ("/api/log/proof", {"shoe": "s1", "tree_size": "1"}, 404, "not_in_head"),
        ("/api/log/head", {"tree_size": "99"}, 404, "unknown_head"),
        ("/api/log/head", {"tree_size": "１"}, 400, "bad_number"),
        ("/api/log/consistency", {"first": "0", "second": "2"}, 400, "bad_range"),
        ("/api/log/consistency", {"first": "1", "second": "9"}, 400, "bad_range"),
    ]
    for path, query, want, code in cases:
        status, body = await get(live, path, **query)
        assert (status, body["error"]["code"]) == (want, code), (path, query, body)
        assert body["error"]["message"].endswith(".")

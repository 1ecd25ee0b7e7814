"""The commitment log over HTTP, for anyone: its signed heads, its entries, inclusion and
consistency proofs, and the public keys that sign its heads (``docs/fairness.md``, "The
commitment log").

``GET /api/log/head`` is the newest signed head (``?tree_size=N``: the head signed at that
size); ``GET /api/log/entries?start=A&end=B`` the entries A to B-1 (at most 1,000), each with
its shoe's seed once revealed; ``GET /api/log/proof?shoe=ID`` a shoe's entry and its audit
path to the newest head (``&tree_size=N``: to that head); ``GET /api/log/consistency?first=M
&second=N`` the proof that the log of N entries extends the log of M;
``GET /.well-known/baccarat-log-key`` the Ed25519 public keys by id, the checkpoints' origin
and verifier keys, and the witnesses with the policy; ``GET /.well-known/baccarat-checkpoint``
the newest checkpoint its witnesses cosigned (a C2SP signed note). No login.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from aiohttp import web

from baccarat.errors import InvalidInput, NotFound
from baccarat.server.http import auth
from baccarat.server.http.keys import SERVER
from baccarat.server.http.mybets import MAX_ID, a_store_id
from baccarat.server.keyfile import Keys
from baccarat.store import Store
from baccarat.store.shoelog import MAX_ENTRIES, LoggedEntry

KEYS = web.AppKey("log_keys", Keys)
KEY_PATH = "/.well-known/baccarat-log-key"
CHECKPOINT_PATH = "/.well-known/baccarat-checkpoint"


def entry_json(e: LoggedEntry) -> dict[str, Any]:
    """An entry as the API gives it: the leaf's fields, its hash, and the seed once revealed."""
    return {
        "index": e.entry.index,
        "shoe_id": e.entry.shoe_id,
        "table_id": e.entry.table_id,
        "commitment": e.entry.commitment,
        "logged_at": e.entry.logged_at,
        "leaf_hash": e.leaf_hash,
        "seed": e.seed,
    }


def _count(request: web.Request, name: str, default: int | None = None) -> int:
    text = request.query.get(name)
    if text is None and default is not None:
        return default
    if text is None or not (text.isascii() and text.isdigit()) or len(text) > 12:
        raise InvalidInput("bad_number", f"'{name}' is a whole number of entries (0 or more).")
    return int(text)


async def _answer(job: Any, *args: Any) -> web.Response:
    try:
        return web.json_response(await asyncio.to_thread(job, *args))
    except NotFound as exc:
        return auth.fail(404, exc.code, exc.message)
    except InvalidInput as exc:
        return auth.fail(400, exc.code, exc.message)


def _head(store: Store, tree_size: int | None) -> dict[str, Any]:
    if tree_size is None:
        head = store.log_head()
        if head is None:
            raise NotFound("no_head", "The log has no signed head yet.")
        return head.json()
    return store.log_head_of_size(tree_size).json()


async def head(request: web.Request) -> web.Response:
    """GET /api/log/head: the newest signed head, or the one signed at ``tree_size``."""
    try:
        size = _count(request, "tree_size") if "tree_size" in request.query else None
    except InvalidInput as exc:
        return auth.fail(400, exc.code, exc.message)
    return await _answer(_head, request.app[auth.STORE], size)


def _entries(store: Store, start: int, end: int) -> dict[str, Any]:
    return {"entries": [entry_json(e) for e in store.log_entries(start, end)]}


async def entries(request: web.Request) -> web.Response:
    """GET /api/log/entries: entries ``start`` to ``end - 1``, in order."""
    try:
        start = _count(request, "start", 0)
        end = _count(request, "end", start + MAX_ENTRIES)
    except InvalidInput as exc:
        return auth.fail(400, exc.code, exc.message)
    return await _answer(_entries, request.app[auth.STORE], start, end)


def _proof(store: Store, shoe_id: str, tree_size: int | None) -> dict[str, Any]:
    entry, signed, path = store.log_inclusion(shoe_id, tree_size)
    return {
        "entry": entry_json(entry),
        "index": entry.entry.index,
        "tree_size": signed.tree_size,
        "audit_path": [node.hex() for node in path],
        "head": signed.json(),
    }


async def proof(request: web.Request) -> web.Response:
    """GET /api/log/proof: a shoe's entry and its audit path to a signed head."""
    shoe_id = request.query.get("shoe", "")
    try:
        if not a_store_id(shoe_id):
            raise NotFound("unknown_shoe", f"There is no shoe {shoe_id[:MAX_ID]!r}.")
        size = _count(request, "tree_size") if "tree_size" in request.query else None
    except NotFound as exc:
        return auth.fail(404, exc.code, exc.message)
    except InvalidInput as exc:
        return auth.fail(400, exc.code, exc.message)
    return await _answer(_proof, request.app[auth.STORE], shoe_id, size)


def _consistency(store: Store, first: int, second: int) -> dict[str, Any]:
    nodes = store.log_consistency(first, second)
    return {"first": first, "second": second, "proof": [node.hex() for node in nodes]}


async def consistency(request: web.Request) -> web.Response:
    """GET /api/log/consistency: the proof that the log at ``second`` extends it at ``first``."""
    try:
        first, second = _count(request, "first"), _count(request, "second")
    except InvalidInput as exc:
        return auth.fail(400, exc.code, exc.message)
    return await _answer(_consistency, request.app[auth.STORE], first, second)


async def public_keys(request: web.Request) -> web.Response:
    """GET /.well-known/baccarat-log-key: every key that signs (or signed) the log's heads."""
    keys = request.app[KEYS]
    witnesses = request.app[SERVER].witnesses
    return web.json_response(
        {
            "algorithm": "Ed25519",
            "signing_key_id": keys.signer.key_id,
            "keys": [
                {"key_id": kid, "public_key": base64.b64encode(raw).decode()}
                for kid, raw in keys.log_public_keys.items()
            ],
            "origin": keys.log_origin,
            "vkeys": [v.vkey() for v in keys.log_verifiers],
            "witnesses": [
                {"name": w.verifier.name, "vkey": w.verifier.vkey(), "url": w.url}
                for w in (witnesses.witnesses if witnesses else [])
            ],
            "quorum": witnesses.quorum if witnesses else 0,
        }
    )


async def cosigned(request: web.Request) -> web.Response:
    """GET /.well-known/baccarat-checkpoint: the newest checkpoint the witnesses cosigned."""
    witnesses = request.app[SERVER].witnesses
    if witnesses is None or witnesses.note is None:
        return auth.fail(404, "no_checkpoint", "No checkpoint has been cosigned yet.")
    return web.Response(text=witnesses.note, content_type="text/plain")


def add_routes(router: web.UrlDispatcher) -> None:
    """Route the log's endpoints."""
    router.add_get("/api/log/head", head)
    router.add_get("/api/log/entries", entries)
    router.add_get("/api/log/proof", proof)
    router.add_get("/api/log/consistency", consistency)
    router.add_get(KEY_PATH, public_keys)
    router.add_get(CHECKPOINT_PATH, cosigned)

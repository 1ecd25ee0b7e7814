"""The witness's HTTP service: ``POST /add-checkpoint`` as c2sp.org/tlog-witness defines it.

The body is ``old <size>``, up to 63 consistency proof lines (base64), an empty line, and the
checkpoint as a signed note. The witness answers 400 for a body it cannot read or an old
size above the checkpoint's, 404 for a log it does not know, 403 when no signature of the
log's keys verifies, 409 (``text/x.tlog.size``: its own size) when the old size is not the
size it last cosigned or the checkpoint has its size and another root, 422 when the proof
does not hold; else it records the checkpoint and answers with its cosignature line. Checking
and recording happen in one step of the event loop, so two requests cannot interleave. A
checkpoint that does not extend the one it cosigned is kept with it as evidence.
``GET /`` answers the witness's verifier key.
"""

from __future__ import annotations

import base64
import binascii
import logging
import time
from dataclasses import dataclass

from aiohttp import web

from baccarat import checkpoint, merkle
from baccarat.checkpoint import Checkpoint, Verifier
from baccarat.errors import InvalidInput
from baccarat.witness.book import Book, Evidence, Latest

log = logging.getLogger("baccarat.witness")

MAX_PROOF = 63
MAX_BODY = 64 * 1024


@dataclass(frozen=True, slots=True)
class Witness:
    """Who the witness is and which logs it witnesses."""

    name: str
    private_key: bytes
    logs: dict[str, list[Verifier]]
    """Each log's origin and its public keys."""
    book: Book

    @property
    def verifier(self) -> Verifier:
        """The witness's public key."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        public = Ed25519PrivateKey.from_private_bytes(self.private_key).public_key()
        return Verifier(self.name, checkpoint.COSIGNATURE, public.public_bytes_raw())


@dataclass(frozen=True, slots=True)
class Offer:
    """An add-checkpoint request read: the old size, the proof, the note and its parts."""

    old: int
    proof: list[bytes]
    note: str
    text: str
    signatures: list[str]
    checkpoint: Checkpoint


class Refusal(Exception):
    """An answer other than a cosignature: its status and body."""

    def __init__(self, status: int, text: str, content_type: str = "text/plain") -> None:
        super().__init__(text)
        self.status, self.text, self.content_type = status, text, content_type


def read_offer(body: str) -> Offer:
    """Read the request body; a 400 ``Refusal`` when it is not one."""
    head, sep, note = body.partition("\n\n")
    lines = head.split("\n")
    words = lines[0].split(" ")
    if not sep or len(words) != 2 or words[0] != "old" or not _decimal(words[1]):
        raise Refusal(400, "The body starts with 'old <size>', then proof lines, an empty line.")
    if len(lines) - 1 > MAX_PROOF:
        raise Refusal(400, f"At most {MAX_PROOF} consistency proof lines.")
    try:
        proof = [base64.b64decode(line, validate=True) for line in lines[1:]]
        text, signatures = checkpoint.split_note(note)
        cp = checkpoint.parse_body(text)
    except (binascii.Error, InvalidInput) as exc:
        raise Refusal(400, f"The body cannot be read: {exc}") from None
    return Offer(int(words[1]), proof, note, text, signatures, cp)


def _decimal(text: str) -> bool:
    return text.isdigit() and (text == "0" or text[0] != "0")


def judge(witness: Witness, offer: Offer) -> Latest:
    """Check an offer against the log's keys and what the witness cosigned; what to record
    (a ``Refusal`` otherwise, evidence kept when the log contradicts itself)."""
    cp = offer.checkpoint
    keys = witness.logs.get(cp.origin)
    if keys is None:
        raise Refusal(404, f"This witness does not witness the log {cp.origin!r}.")
    if not checkpoint.vouching(offer.text, offer.signatures, keys):
        raise Refusal(403, "No signature by a key of the log verifies.")
    if offer.old > cp.tree_size:
        raise Refusal(400, "The old size is above the checkpoint's size.")
    latest = witness.book.latest(cp.origin)
    _conflicts(witness, offer, latest)
    size = 0 if latest is None else latest.tree_size
    if offer.old != size:
        raise Refusal(409, f"{size}\n", "text/x.tlog.size")
    if not _proven(offer, latest):
        if latest is not None:
            _keep(witness, cp.origin, "bad_proof", latest, offer)
        raise Refusal(422, "The consistency proof does not hold.")
    return Latest(cp.tree_size, cp.root_hash, offer.note)


def _proven(offer: Offer, latest: Latest | None) -> bool:
    """Whether the offer's proof takes the cosigned tree to the offered one (none from 0)."""
    cp = offer.checkpoint
    old_root = merkle.EMPTY_ROOT if latest is None else latest.root_hash
    if offer.old == 0:
        return not offer.proof
    return merkle.verify_consistency(offer.old, cp.tree_size, old_root, cp.root_hash, offer.proof)


def _conflicts(witness: Witness, offer: Offer, latest: Latest | None) -> None:
    """Refuse, keeping both as evidence, a checkpoint that contradicts the one cosigned:
    another root at the same size, or a smaller tree (a view split from the one seen)."""
    cp = offer.checkpoint
    if latest is None:
        return
    if cp.tree_size == latest.tree_size and cp.root_hash != latest.root_hash:
        _keep(witness, cp.origin, "another_root", latest, offer)
        raise Refusal(409, f"{latest.tree_size}\n", "text/x.tlog.size")
    if cp.tree_size < latest.tree_size:
        _keep(witness, cp.origin, "smaller", latest, offer)
        raise Refusal(409, f"{latest.tree_size}\n", "text/x.tlog.size")


def _keep(witness: Witness, origin: str, reason: str, latest: Latest, offer: Offer) -> None:
    witness.book.conflict(Evidence(origin, reason, latest.note, offer.note))
    log.warning("conflicting checkpoint kept", extra={"origin": origin, "reason": reason})


async def add_checkpoint(request: web.Request) -> web.Response:
    """POST /add-checkpoint: cosign a checkpoint that extends the one cosigned before."""
    witness: Witness = request.app[WITNESS]
    try:
        raw = await request.content.read(MAX_BODY + 1)
        if len(raw) > MAX_BODY:
            raise Refusal(400, "The body is too long.")
        offer = read_offer(raw.decode("utf-8", errors="replace"))
        latest = judge(witness, offer)
    except Refusal as refusal:
        return web.Response(
            status=refusal.status, text=refusal.text, content_type=refusal.content_type
        )
    witness.book.cosigned(offer.checkpoint.origin, latest)
    line = checkpoint.cosign(offer.text, witness.name, witness.private_key, int(time.time()))
    return web.Response(text=line + "\n", content_type="text/plain")


async def verifier_key(request: web.Request) -> web.Response:
    """GET /: the witness's verifier key."""
    return web.Response(text=request.app[WITNESS].verifier.vkey() + "\n")


WITNESS = web.AppKey("witness", Witness)


def create_app(witness: Witness) -> web.Application:
    """The witness's HTTP application."""
    app = web.Application()
    app[WITNESS] = witness
    app.router.add_post("/add-checkpoint", add_checkpoint)
    app.router.add_get("/", verifier_key)
    return app

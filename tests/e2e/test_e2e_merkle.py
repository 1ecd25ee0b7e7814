"""The page checks the commitment log's proofs, in Chromium, as the server's Python does.

``web/js/merkle.js`` implements RFC 9162's checks of an inclusion path and of a consistency
proof with WebCrypto; it must accept every path and proof :mod:`baccarat.merkle` builds, and
refuse one with a hash changed. Every case goes to the page in one evaluation.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from e2e_support import DESKTOP, Server, needs_chromium, open_page

from baccarat.merkle import (
    EMPTY_ROOT,
    consistency_proof,
    inclusion_path,
    leaf_hash,
    node_hash,
    root,
    verify_consistency,
    verify_inclusion,
)

pytestmark = [pytest.mark.browser, needs_chromium]

VERIFY = """async (cases) => {
  const { verifyInclusion, verifyConsistency } = await import('/js/merkle.js');
  const out = [];
  for (const [kind, args] of cases) {
    out.push(await (kind === 'inclusion' ? verifyInclusion : verifyConsistency)(...args));
  }
  return out;
}"""

MAX_SIZE = 33


def _flip(hashes: list[bytes], at: int) -> list[bytes]:
    """The hashes with one bit of the one at ``at`` changed."""
    changed = list(hashes)
    changed[at] = bytes([changed[at][0] ^ 0x80]) + changed[at][1:]
    return changed


def _inclusion(index: int, size: int, leaf: bytes, path: list[bytes], top: bytes) -> Any:
    args = [index, size, leaf.hex(), [p.hex() for p in path], top.hex()]
    return ["inclusion", args], verify_inclusion(index, size, leaf, path, top)


def _consistency(m: int, n: int, first: bytes, second: bytes, proof: list[bytes]) -> Any:
    args = [m, n, first.hex(), second.hex(), [p.hex() for p in proof]]
    return ["consistency", args], verify_consistency(m, n, first, second, proof)


def _inclusion_cases(leaves: list[bytes], rng: random.Random) -> list[Any]:
    """Every leaf's path in every tree of 1 to MAX_SIZE leaves, and each with a hash changed."""
    cases = []
    for n in range(1, MAX_SIZE + 1):
        top = root(leaves[:n])
        for m in range(n):
            path = inclusion_path(m, leaves[:n])
            cases.append(_inclusion(m, n, leaves[m], path, top))
            if path:
                cases.append(
                    _inclusion(m, n, leaves[m], _flip(path, rng.randrange(len(path))), top)
                )
            cases.append(_inclusion(m, n, _flip([leaves[m]], 0)[0], path, top))
    return cases


def _consistency_cases(leaves: list[bytes], rng: random.Random) -> list[Any]:
    """Every proof between trees of 1 to MAX_SIZE leaves, and each with a hash changed."""
    roots = [root(leaves[:n]) for n in range(MAX_SIZE + 1)]
    cases = [_consistency(0, MAX_SIZE, EMPTY_ROOT, roots[-1], [])]
    for n in range(1, MAX_SIZE + 1):
        for m in range(1, n + 1):
            proof = consistency_proof(m, leaves[:n])
            cases.append(_consistency(m, n, roots[m], roots[n], proof))
            if proof:
                changed = _flip(proof, rng.randrange(len(proof)))
                cases.append(_consistency(m, n, roots[m], roots[n], changed))
            cases.append(_consistency(m, n, _flip([roots[m]], 0)[0], roots[n], proof))
    return cases


def _beyond_32_bits(rng: random.Random) -> list[Any]:
    """Trees too large to build, with paths and proofs made up to their roots, at sizes whose
    bits a 32-bit shift would lose."""
    leaf, big = leaf_hash(b"last shoe"), 2**40
    subtree = rng.randbytes(32)
    path = [rng.randbytes(32) for _ in range(33)]
    first_leaf_root = leaf
    for p in path:
        first_leaf_root = node_hash(first_leaf_root, p)
    return [
        _inclusion(big, big + 1, leaf, [subtree], node_hash(subtree, leaf)),
        _inclusion(big, big + 1, leaf, [subtree], node_hash(leaf, subtree)),
        _inclusion(0, 2**33, leaf, path, first_leaf_root),
        _inclusion(0, 2**33 + 1, leaf, path, first_leaf_root),
        _consistency(big, big + 1, subtree, node_hash(subtree, leaf), [leaf]),
        _consistency(big, big + 1, subtree, node_hash(leaf, subtree), [leaf]),
    ]


def test_the_page_accepts_every_python_proof_and_refuses_a_changed_one(
    server: Server, browser: Any
) -> None:
    rng = random.Random(6962)
    leaves = [leaf_hash(f"commitment {i}".encode()) for i in range(MAX_SIZE)]
    cases = _inclusion_cases(leaves, rng) + _consistency_cases(leaves, rng)
    cases += _beyond_32_bits(rng)
    expected = [valid for _, valid in cases]
    # Python's own checks: every proof built holds, every changed one fails.
    assert expected.count(True) == MAX_SIZE * (MAX_SIZE + 1) + 1 + 3
    page = open_page(browser, server, DESKTOP)
    try:
        got = page.evaluate(VERIFY, [case for case, _ in cases])
        wrong = [
            case for (case, _), want, seen in zip(cases, expected, got, strict=True) if want != seen
        ]
        assert wrong == []
        assert not page.js_errors
    finally:
        page.context.close()

"""The Merkle tree of the commitment log: hashes, proofs and their checks, and its frontier.

The tree, its inclusion paths and its consistency proofs are those of Certificate
Transparency, RFC 6962 §2.1, checked by the algorithms of RFC 9162 §2.1.3.2 and §2.1.4.2, so
that any CT tool can check the log. They are written here from the RFCs' text because no
Python library that is maintained and permissively licensed speaks the RFC's proof format.
Every hash is SHA-256: a leaf is ``SHA-256(0x00 || leaf)``, an interior node
``SHA-256(0x01 || left || right)``, the empty tree ``SHA-256()``. Sizes and indexes count
leaves from 0, and a leaf here is always given as its leaf hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

HASH_BYTES = 32
EMPTY_ROOT: bytes = hashlib.sha256(b"").digest()

_LEAF = b"\x00"
_NODE = b"\x01"


def leaf_hash(leaf: bytes) -> bytes:
    """The hash of a leaf: SHA-256 of 0x00 and the leaf's bytes."""
    return hashlib.sha256(_LEAF + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an interior node: SHA-256 of 0x01, its left child and its right child."""
    return hashlib.sha256(_NODE + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (``n`` > 1): where MTH splits ``n`` leaves."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaf_hashes: Sequence[bytes]) -> bytes:
    """The Merkle Tree Hash (MTH) of the leaves whose hashes are given, in order."""
    level = list(leaf_hashes)
    if not level:
        return EMPTY_ROOT
    # Pairing each level from the left, and carrying an odd last node up as it is, builds
    # exactly the tree of MTH's split at the largest power of two, each node hashed once.
    while len(level) > 1:
        paired = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


def inclusion_path(index: int, leaf_hashes: Sequence[bytes]) -> list[bytes]:
    """RFC 6962's PATH(m, D[n]): the audit path of leaf ``index`` in the tree of all leaves.

    Raises ValueError when ``index`` is not a leaf of the tree."""
    if not 0 <= index < len(leaf_hashes):
        raise ValueError(f"leaf {index} is not in a tree of {len(leaf_hashes)} leaves")
    # From the root down: the subtree beside the leaf's, at each split; the path lists them
    # from the leaf up.
    path: list[bytes] = []
    lo, hi = 0, len(leaf_hashes)
    while hi - lo > 1:
        mid = lo + _split(hi - lo)
        if index < mid:
            path.append(root(leaf_hashes[mid:hi]))
            hi = mid
        else:
            path.append(root(leaf_hashes[lo:mid]))
            lo = mid
    path.reverse()
    return path


def consistency_proof(first_size: int, leaf_hashes: Sequence[bytes]) -> list[bytes]:
    """RFC 6962's PROOF(m, D[n]) that the tree of the first ``first_size`` leaves is a prefix
    of the tree of all of them; empty when the two are the same tree.

    Raises ValueError when ``first_size`` is 0 or more than the number of leaves."""
    if not 0 < first_size <= len(leaf_hashes):
        raise ValueError(f"no proof from {first_size} leaves to {len(leaf_hashes)}")
    # SUBPROOF(m, D[lo:hi], whole) unrolled from the root down: ``m`` counts the old tree's
    # leaves from ``lo``, ``whole`` is the SUBPROOF's boolean (still on the old tree's root).
    proof: list[bytes] = []
    lo, hi, m, whole = 0, len(leaf_hashes), first_size, True
    while m != hi - lo:
        mid = lo + _split(hi - lo)
        if m <= mid - lo:
            proof.append(root(leaf_hashes[mid:hi]))
            hi = mid
        else:
            proof.append(root(leaf_hashes[lo:mid]))
            lo, m, whole = mid, m - (mid - lo), False
    if not whole:
        proof.append(root(leaf_hashes[lo:hi]))
    proof.reverse()
    return proof


def _climb(fn: int, sn: int) -> tuple[int, int]:
    """Right-shift ``fn`` and ``sn`` together until ``fn``'s lowest bit is set or it is 0."""
    while fn and not fn & 1:
        fn >>= 1
        sn >>= 1
    return fn, sn


def _below_ones(fn: int, sn: int) -> tuple[int, int]:
    """Right-shift ``fn`` and ``sn`` together past ``fn``'s low bits that are set."""
    while fn & 1:
        fn >>= 1
        sn >>= 1
    return fn, sn


def verify_inclusion(
    index: int, size: int, leaf: bytes, path: Sequence[bytes], root: bytes
) -> bool:
    """Whether ``path`` proves the leaf hash ``leaf`` at ``index`` in the tree of ``size``
    leaves whose root is ``root`` (RFC 9162 §2.1.3.2)."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            fn, sn = _climb(fn, sn)
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(
    first_size: int,
    second_size: int,
    first_root: bytes,
    second_root: bytes,
    proof: Sequence[bytes],
) -> bool:
    """Whether ``proof`` shows the tree of ``first_size`` leaves with root ``first_root`` to be
    a prefix of the tree of ``second_size`` leaves with root ``second_root`` (RFC 9162
    §2.1.4.2).

    The RFC's algorithm is for 0 < first_size < second_size. Equal sizes need an empty proof
    and equal roots; the empty tree (its root ``EMPTY_ROOT``) is a prefix of every tree, with
    an empty proof."""
    if not 0 <= first_size <= second_size:
        return False
    if first_size == second_size:
        return not proof and first_root == second_root
    if first_size == 0:
        return not proof and first_root == EMPTY_ROOT
    return _verify_extension(first_size, second_size, first_root, second_root, proof)


def _verify_extension(
    first_size: int,
    second_size: int,
    first_root: bytes,
    second_root: bytes,
    proof: Sequence[bytes],
) -> bool:
    """RFC 9162 §2.1.4.2's steps, for 0 < first_size < second_size."""
    if not proof:
        return False
    path = list(proof)
    if first_size & (first_size - 1) == 0:
        # The old tree is a perfect subtree of the new one, so its root starts the proof.
        path.insert(0, first_root)
    fn, sn = _below_ones(first_size - 1, second_size - 1)
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            fn, sn = _climb(fn, sn)
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == first_root and sr == second_root


@dataclass(frozen=True)
class Frontier:
    """An append-only tree kept as the roots of its perfect subtrees, largest first (CT's
    compact range): one node for each bit set in ``size``, so O(log n) to keep and to append.
    """

    size: int = 0
    nodes: tuple[bytes, ...] = ()

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError(f"a tree cannot have {self.size} leaves")
        if len(self.nodes) != self.size.bit_count():
            raise ValueError(
                f"a tree of {self.size} leaves has {self.size.bit_count()} perfect subtrees,"
                f" not {len(self.nodes)}"
            )
        if any(len(node) != HASH_BYTES for node in self.nodes):
            raise ValueError(f"a node is a {HASH_BYTES}-byte hash")

    def append(self, leaf_hash: bytes) -> Frontier:
        """The frontier of this tree with one more leaf, given as its leaf hash."""
        if len(leaf_hash) != HASH_BYTES:
            raise ValueError(f"a leaf hash is {HASH_BYTES} bytes, not {len(leaf_hash)}")
        nodes = list(self.nodes)
        carry, size = leaf_hash, self.size
        # Each low bit set in the size is a perfect subtree of the new leaf's height: merge.
        while size & 1:
            carry = node_hash(nodes.pop(), carry)
            size >>= 1
        nodes.append(carry)
        return Frontier(self.size + 1, tuple(nodes))

    def root(self) -> bytes:
        """The tree's Merkle Tree Hash, as :func:`root` gives it from all its leaves."""
        if not self.nodes:
            return EMPTY_ROOT
        r = self.nodes[-1]
        for node in reversed(self.nodes[:-1]):
            r = node_hash(node, r)
        return r

    def to_json(self) -> list[str]:
        """The nodes in lowercase hex, largest subtree first (the size is kept beside them)."""
        return [node.hex() for node in self.nodes]

    @classmethod
    def from_json(cls, size: int, nodes: list[str]) -> Frontier:
        """The frontier of ``size`` leaves from its nodes in hex, as :meth:`to_json` wrote them.

        Raises ValueError when a node is not a hash in hex or their number is not the number
        of bits set in ``size``."""
        return cls(size, tuple(bytes.fromhex(node) for node in nodes))

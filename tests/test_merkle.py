"""The commitment log's Merkle tree: RFC 6962 §2.1's hashes and proofs, RFC 9162's checks."""

import hashlib
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat.merkle import (
    EMPTY_ROOT,
    Frontier,
    consistency_proof,
    inclusion_path,
    leaf_hash,
    node_hash,
    root,
    verify_consistency,
    verify_inclusion,
)

# Certificate Transparency's reference tree (the test data of its reference implementations):
# eight leaves, and the root of the tree of the first n of them for n = 1..8.
CT_LEAVES_HEX = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657"]
CT_LEAVES = [bytes.fromhex(h) for h in [*CT_LEAVES_HEX, "606162636465666768696a6b6c6d6e6f"]]
CT_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
CT_PATH_OF_LEAF_0_IN_8 = [
    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
]


def _leaves(n: int, salt: int = 0) -> list[bytes]:
    return [leaf_hash(f"shoe {salt}-{i}".encode()) for i in range(n)]


def _k(n: int) -> int:
    """The largest power of two smaller than ``n``, found by counting up as the RFC says it."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def _mth(d: Sequence[bytes]) -> bytes:
    """MTH from RFC 6962 §2.1 word for word, over leaf hashes."""
    if not d:
        return hashlib.sha256(b"").digest()
    if len(d) == 1:
        return d[0]
    k = _k(len(d))
    return hashlib.sha256(b"\x01" + _mth(d[:k]) + _mth(d[k:])).digest()


def _path(m: int, d: Sequence[bytes]) -> list[bytes]:
    """PATH(m, D[n]) from RFC 6962 §2.1.1 word for word."""
    if len(d) == 1:
        return []
    k = _k(len(d))
    if m < k:
        return [*_path(m, d[:k]), _mth(d[k:])]
    return [*_path(m - k, d[k:]), _mth(d[:k])]


def _subproof(m: int, d: Sequence[bytes], b: bool) -> list[bytes]:
    """SUBPROOF(m, D[n], b) from RFC 6962 §2.1.2 word for word."""
    if m == len(d):
        return [] if b else [_mth(d)]
    k = _k(len(d))
    if m <= k:
        return [*_subproof(m, d[:k], b), _mth(d[k:])]
    return [*_subproof(m - k, d[k:], False), _mth(d[:k])]


def _sides(m: int, n: int) -> list[bool]:
    """For each split above leaf ``m`` of a tree of ``n`` leaves, from the root down, whether
    the leaf is in the left subtree: where the tree puts the leaf."""
    sides, lo = [], 0
    while n > 1:
        k = _k(n)
        sides.append(m - lo < k)
        lo, n = (lo, k) if m - lo < k else (lo + k, n - k)
    return sides


def _flip(h: bytes) -> bytes:
    return bytes([h[0] ^ 1]) + h[1:]


def test_the_empty_tree_root_is_the_sha256_of_nothing() -> None:
    assert EMPTY_ROOT == root([]) == hashlib.sha256(b"").digest()
    assert EMPTY_ROOT.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_a_one_leaf_tree_root_is_its_leaf_hash() -> None:
    h = leaf_hash(b"commitment")
    assert root([h]) == h == hashlib.sha256(b"\x00commitment").digest()


def test_three_leaves_hash_as_written_out_by_hand() -> None:
    a, b, c = (hashlib.sha256(b"\x00" + d).digest() for d in (b"a", b"b", b"c"))
    ab = hashlib.sha256(b"\x01" + a + b).digest()
    assert [leaf_hash(d) for d in (b"a", b"b", b"c")] == [a, b, c]
    assert node_hash(a, b) == ab
    assert root([a, b, c]) == hashlib.sha256(b"\x01" + ab + c).digest()
    assert inclusion_path(2, [a, b, c]) == [ab]
    assert inclusion_path(0, [a, b, c]) == [b, c]
    assert consistency_proof(2, [a, b, c]) == [c]
    assert consistency_proof(1, [a, b, c]) == [b, c]


def test_the_certificate_transparency_reference_tree_has_its_published_roots() -> None:
    hashes = [leaf_hash(d) for d in CT_LEAVES]
    assert [root(hashes[:n]).hex() for n in range(1, 9)] == CT_ROOTS
    assert [p.hex() for p in inclusion_path(0, hashes)] == CT_PATH_OF_LEAF_0_IN_8


def test_the_root_is_the_rfc_mth_for_every_size_to_70() -> None:
    hashes = _leaves(70)
    for n in range(1, 71):
        assert root(hashes[:n]) == _mth(hashes[:n]), n


def test_inclusion_paths_and_consistency_proofs_are_the_rfc_definitions() -> None:
    hashes = _leaves(40)
    for n in range(1, 41):
        d = hashes[:n]
        assert [inclusion_path(m, d) for m in range(n)] == [_path(m, d) for m in range(n)]
        proofs = [consistency_proof(m, d) for m in range(1, n + 1)]
        assert proofs == [_subproof(m, d, True) for m in range(1, n + 1)], n


def test_every_inclusion_path_verifies_and_a_changed_path_leaf_or_root_does_not() -> None:
    hashes = _leaves(40)
    for n in range(1, 41):
        top = root(hashes[:n])
        for m in range(n):
            path = inclusion_path(m, hashes[:n])
            assert verify_inclusion(m, n, hashes[m], path, top), (m, n)
            for i in range(len(path)):
                changed = [*path[:i], _flip(path[i]), *path[i + 1 :]]
                assert not verify_inclusion(m, n, hashes[m], changed, top), (m, n, i)
            assert not verify_inclusion(m, n, _flip(hashes[m]), path, top)
            assert not verify_inclusion(m, n, hashes[m], path, _flip(top))
            assert not verify_inclusion(m, n, hashes[m], [*path, top], top)
            if path:
                assert not verify_inclusion(m, n, hashes[m], path[:-1], top)


def test_an_inclusion_path_proves_its_leaf_at_its_index_only() -> None:
    hashes = _leaves(40)
    for n in range(1, 41):
        top = root(hashes[:n])
        for m in range(n):
            path = inclusion_path(m, hashes[:n])
            others = [i for i in range(-1, n + 1) if i != m]
            assert not any(verify_inclusion(i, n, hashes[m], path, top) for i in others)


def test_an_inclusion_path_holds_only_at_sizes_that_put_the_leaf_in_the_same_place() -> None:
    # The path does not commit to the size (the signed tree head does): a size whose tree
    # reaches the leaf by the same turns takes the same path to the same root.
    hashes = _leaves(40)
    for n in range(1, 41):
        top = root(hashes[:n])
        for m in range(n):
            path = inclusion_path(m, hashes[:n])
            for size in range(-1, 45):
                if size == n:
                    continue
                same_place = size > m and _sides(m, size) == _sides(m, n)
                assert verify_inclusion(m, size, hashes[m], path, top) == same_place, (m, n, size)
    assert not verify_inclusion(0, 3, hashes[0], inclusion_path(0, hashes[:3]), root(hashes[:4]))


def test_every_consistency_proof_verifies_and_a_changed_root_or_proof_does_not() -> None:
    hashes = _leaves(40)
    roots = [root(hashes[:n]) for n in range(41)]
    for n in range(1, 41):
        for m in range(1, n + 1):
            proof = consistency_proof(m, hashes[:n])
            assert verify_consistency(m, n, roots[m], roots[n], proof), (m, n)
            assert not verify_consistency(m, n, _flip(roots[m]), roots[n], proof), (m, n)
            assert not verify_consistency(m, n, roots[m], _flip(roots[n]), proof), (m, n)
            for i in range(len(proof)):
                changed = [*proof[:i], _flip(proof[i]), *proof[i + 1 :]]
                assert not verify_consistency(m, n, roots[m], roots[n], changed), (m, n, i)
            assert not verify_consistency(m, n, roots[m], roots[n], [*proof, roots[n]])
            if proof:
                assert not verify_consistency(m, n, roots[m], roots[n], proof[:-1])


def test_a_consistency_proof_is_refused_for_sizes_that_do_not_grow() -> None:
    hashes = _leaves(8)
    r3, r8 = root(hashes[:3]), root(hashes)
    proof = consistency_proof(3, hashes)
    assert not verify_consistency(8, 3, r8, r3, proof)
    assert not verify_consistency(-1, 8, r3, r8, proof)
    assert not verify_consistency(3, 8, r3, r8, [])
    assert verify_consistency(8, 8, r8, r8, [])
    assert not verify_consistency(8, 8, r8, r8, [r8])
    assert not verify_consistency(8, 8, r3, r8, [])


def test_the_empty_tree_is_a_prefix_of_every_tree_with_an_empty_proof() -> None:
    r8 = root(_leaves(8))
    assert verify_consistency(0, 8, EMPTY_ROOT, r8, [])
    assert verify_consistency(0, 0, EMPTY_ROOT, EMPTY_ROOT, [])
    assert not verify_consistency(0, 8, EMPTY_ROOT, r8, [r8])
    assert not verify_consistency(0, 8, r8, r8, [])


def test_a_path_or_proof_outside_the_tree_is_a_value_error() -> None:
    hashes = _leaves(5)
    for index in (-1, 5):
        with pytest.raises(ValueError):
            inclusion_path(index, hashes)
    for first in (0, 6):
        with pytest.raises(ValueError):
            consistency_proof(first, hashes)
    assert consistency_proof(5, hashes) == []
    assert not verify_inclusion(0, 0, hashes[0], [], hashes[0])


@settings(max_examples=40)
@given(st.integers(2, 3000).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))))
def test_proofs_in_larger_trees_verify(sizes: tuple[int, int]) -> None:
    n, m = sizes
    hashes = _leaves(n, salt=n)
    top = root(hashes)
    path = inclusion_path(m - 1, hashes)
    assert verify_inclusion(m - 1, n, hashes[m - 1], path, top)
    assert not verify_inclusion(m - 1, n, hashes[m - 1], path, root(hashes[:-1]))
    proof = consistency_proof(m, hashes)
    assert verify_consistency(m, n, root(hashes[:m]), top, proof)
    assert not verify_consistency(m, n, root(hashes[: m - 1]), top, proof)


def test_a_frontier_appended_leaf_by_leaf_has_the_root_of_all_its_leaves() -> None:
    hashes = _leaves(300)
    frontier = Frontier()
    assert frontier.root() == EMPTY_ROOT
    for n, h in enumerate(hashes, start=1):
        frontier = frontier.append(h)
        assert frontier.size == n and len(frontier.nodes) == n.bit_count()
        assert frontier.root() == root(hashes[:n]), n


def test_a_frontier_of_a_large_log_keeps_its_root() -> None:
    hashes = _leaves(100_000)
    frontier = Frontier()
    for h in hashes:
        frontier = frontier.append(h)
    assert frontier.root() == root(hashes) == _mth_by_frontier_nodes(frontier)
    assert len(frontier.nodes) == 6  # 100,000 is 0b11000011010100000


def _mth_by_frontier_nodes(frontier: Frontier) -> bytes:
    """The root folded from the perfect subtrees right to left, as MTH's splits nest."""
    r = frontier.nodes[-1]
    for node in frontier.nodes[-2::-1]:
        r = hashlib.sha256(b"\x01" + node + r).digest()
    return r


def test_a_frontier_round_trips_through_json() -> None:
    frontier = Frontier()
    for n, h in enumerate(_leaves(40), start=1):
        frontier = frontier.append(h)
        saved = frontier.to_json()
        assert all(isinstance(node, str) and len(node) == 64 for node in saved)
        assert Frontier.from_json(n, saved) == frontier
    assert Frontier.from_json(0, []) == Frontier()


def test_a_frontier_needs_one_node_for_each_bit_set_in_its_size() -> None:
    saved = Frontier.from_json(5, [bytes(32).hex(), bytes(32).hex()]).to_json()
    with pytest.raises(ValueError):
        Frontier.from_json(5, saved[:1])
    with pytest.raises(ValueError):
        Frontier.from_json(4, saved)
    with pytest.raises(ValueError):
        Frontier.from_json(0, saved[:1])
    with pytest.raises(ValueError):
        Frontier.from_json(-1, [])
    with pytest.raises(ValueError):
        Frontier.from_json(1, ["not hex"])
    with pytest.raises(ValueError):
        Frontier.from_json(1, ["00" * 31])
    with pytest.raises(ValueError):
        Frontier().append(b"short")

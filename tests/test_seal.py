"""The sealed seed: only a key the nodes hold opens it, only for its own shoe, unaltered."""

from __future__ import annotations

import pytest

from baccarat.seal import Sealer, SealError, SealKey, sealed_key_id

SEED = bytes(range(32))
OLD = SealKey("old1", b"\x01" * 32)
NEW = SealKey("new2", b"\x02" * 32)


def test_a_sealed_seed_opens_to_the_seed_and_does_not_show_it() -> None:
    sealer = Sealer([OLD])
    sealed = sealer.seal(SEED, "shoe-a")
    assert SEED.hex() not in sealed and SEED not in sealed.encode()
    assert sealer.open(sealed, "shoe-a") == SEED


def test_two_seals_of_one_seed_differ_by_their_nonce() -> None:
    sealer = Sealer([OLD])
    assert sealer.seal(SEED, "shoe-a") != sealer.seal(SEED, "shoe-a")


def test_a_seed_sealed_for_one_shoe_does_not_open_for_another() -> None:
    sealer = Sealer([OLD])
    with pytest.raises(SealError) as err:
        sealer.open(sealer.seal(SEED, "shoe-a"), "shoe-b")
    assert err.value.code == "seal_broken"


@pytest.mark.parametrize("at", [10, 20, 40, -2])
def test_an_altered_sealed_seed_does_not_open(at: int) -> None:
    sealer = Sealer([OLD])
    sealed = sealer.seal(SEED, "shoe-a")
    flipped = "A" if sealed[at] != "A" else "B"
    altered = sealed[:at] + flipped + sealed[at + 1 :] if at != -1 else sealed[:-1] + flipped
    with pytest.raises(SealError) as err:
        sealer.open(altered, "shoe-a")
    assert err.value.code in {"seal_broken", "seal_key_missing"}


def test_a_node_without_the_key_cannot_open_and_says_which_key_it_lacks() -> None:
    sealed = Sealer([OLD]).seal(SEED, "shoe-a")
    with pytest.raises(SealError) as err:
        Sealer([NEW]).open(sealed, "shoe-a")
    assert err.value.code == "seal_key_missing" and "old1" in err.value.message


def test_after_a_rotation_the_new_key_seals_and_the_old_still_opens() -> None:
    before = Sealer([OLD]).seal(SEED, "shoe-a")
    rotated = Sealer([NEW, OLD])
    after = rotated.seal(SEED, "shoe-b")
    assert sealed_key_id(before) == "old1" and sealed_key_id(after) == "new2"
    assert rotated.open(before, "shoe-a") == SEED == rotated.open(after, "shoe-b")


@pytest.mark.parametrize("key", [b"short", b"x" * 33])
def test_a_key_of_the_wrong_length_is_refused(key: bytes) -> None:
    with pytest.raises(Exception, match="32 bytes"):
        SealKey("k1", key)

"""The provably fair shoe: the algorithm of docs/fairness.md, its test vector, uniformity."""

import hashlib
import hmac
from collections import Counter
from collections.abc import Iterator

import pytest

from baccarat import shoe as shoe_module
from baccarat.cards import deck
from baccarat.errors import InvalidInput, RuleViolation
from baccarat.shoe import Shoe, commitment, parse_seed, shuffled_cards

# The test vector published in docs/fairness.md.
VECTOR_SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
VECTOR_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
VECTOR_FIRST_TEN = ["TC", "TC", "5C", "8H", "KH", "TS", "QC", "TD", "8C", "8C"]


def test_fairness_test_vector() -> None:
    seed = parse_seed(VECTOR_SEED)
    assert commitment(seed) == VECTOR_COMMITMENT
    assert [str(c) for c in shuffled_cards(seed)[:10]] == VECTOR_FIRST_TEN


def _from_the_documentation(seed: bytes, decks: int) -> list[str]:
    """The algorithm re-read from docs/fairness.md, written independently of shoe.py."""
    cards = [r + s for s in "SHDC" for r in "A23456789TJQK"] * decks
    stream = b""
    counter = 0
    offset = 0

    def take4() -> int:
        nonlocal stream, counter, offset
        while len(stream) - offset < 4:
            stream += hmac.new(seed, counter.to_bytes(8, "big"), hashlib.sha256).digest()
            counter += 1
        x = int.from_bytes(stream[offset : offset + 4], "big")
        offset += 4
        return x

    for i in range(len(cards) - 1, 0, -1):
        m = i + 1
        limit = 2**32 - 2**32 % m
        x = take4()
        while x >= limit:
            x = take4()
        j = x % m
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.mark.parametrize("seed", [bytes(32), bytes([255] * 32), hashlib.sha256(b"shoe").digest()])
def test_shuffle_matches_the_documented_algorithm(seed: bytes) -> None:
    assert [str(c) for c in shuffled_cards(seed)] == _from_the_documentation(seed, 8)


def test_shoe_holds_exactly_eight_decks() -> None:
    cards = shuffled_cards(bytes(range(32)))
    assert len(cards) == 416
    assert Counter(cards) == Counter(deck() * 8)


def test_rejection_sampling_rejects_the_biased_tail(monkeypatch: pytest.MonkeyPatch) -> None:
    # One deck: the first draw is for i = 51, m = 52; 2**32 % 52 == 48, so the values
    # 2**32 - 48 and above are rejected and the next 4 bytes are read instead.
    limit = 2**32 - 48
    words = [limit, limit - 1] + [0] * 60

    def fake_stream(seed: bytes) -> Iterator[int]:
        for w in words:
            yield from w.to_bytes(4, "big")

    monkeypatch.setattr(shoe_module, "byte_stream", fake_stream)
    cards = shuffled_cards(bytes(32), decks=1)
    # limit - 1 is accepted: j = (2**32 - 49) % 52 = 51, position 51 keeps its card (KC);
    # had ``limit`` been accepted, j would be 0 and AS would sit last.
    assert (limit - 1) % 52 == 51
    assert str(cards[51]) == "KC"


def test_commitment_is_sha256_of_the_seed_bytes() -> None:
    seed = bytes(range(32))
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()


@pytest.mark.parametrize("text", ["xyz", "00" * 31, "00" * 33, ""])
def test_bad_seed_is_rejected(text: str) -> None:
    with pytest.raises(InvalidInput) as err:
        parse_seed(text)
    assert err.value.code == "bad_seed"


def test_a_seed_of_the_wrong_length_is_told_its_length_not_that_it_is_not_hex() -> None:
    with pytest.raises(InvalidInput) as err:
        parse_seed("a" * 63)
    assert "hexadecimal" not in err.value.message
    assert "64 hex digits" in err.value.message and "not 63" in err.value.message


def test_shoe_deals_from_position_zero_and_reports_what_is_left() -> None:
    seed = bytes(range(32))
    shoe = Shoe.from_seed(seed)
    order = shuffled_cards(seed)
    assert [shoe.draw() for _ in range(3)] == order[:3]
    assert shoe.dealt == 3
    assert shoe.remaining == 413
    assert shoe.commitment == commitment(seed)
    assert shoe.seed == seed


def test_empty_shoe_refuses_to_deal() -> None:
    shoe = Shoe(deck()[:1])
    shoe.draw()
    with pytest.raises(RuleViolation) as err:
        shoe.draw()
    assert err.value.code == "shoe_empty"


def test_fresh_shoes_have_fresh_seeds() -> None:
    assert Shoe.fresh(decks=1).commitment != Shoe.fresh(decks=1).commitment


def _chi_square(observed: Counter[int], cells: int, draws: int) -> float:
    expected = draws / cells
    return sum((observed.get(k, 0) - expected) ** 2 / expected for k in range(cells))


def test_shuffle_is_uniform_over_positions() -> None:
    # 2,600 fixed seeds, one deck: where the ace of spades lands, and which card comes
    # first. Each of the 52 cells expects 50. With 51 degrees of freedom the chi-square
    # exceeds 114 with probability about 1e-6, so the test is deterministic and generous.
    seeds = [hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(2600)]
    ace = deck()[0]
    where_ace: Counter[int] = Counter()
    first: Counter[int] = Counter()
    canonical = {c: k for k, c in enumerate(deck())}
    for seed in seeds:
        cards = shuffled_cards(seed, decks=1)
        where_ace[cards.index(ace)] += 1
        first[canonical[cards[0]]] += 1
    assert _chi_square(where_ace, 52, len(seeds)) < 114
    assert _chi_square(first, 52, len(seeds)) < 114

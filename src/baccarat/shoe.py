"""The shoe: decks shuffled by a provably fair, deterministic algorithm.

The algorithm (``docs/fairness.md`` gives it in full, with a test vector):

1. Start from ``decks`` copies of the canonical deck (:func:`baccarat.cards.deck`).
2. The byte stream is HMAC-SHA256 in counter mode: block ``i`` (from 0) is
   ``HMAC-SHA256(key=seed, msg=i as 8 bytes big-endian)``; the blocks are concatenated.
3. Fisher-Yates from the end: for ``i`` from ``n-1`` down to ``1``, draw ``j`` uniform in
   ``[0, i]`` and swap positions ``i`` and ``j``. To draw, read 4 bytes as a big-endian
   unsigned integer ``x``; with ``m = i + 1`` and ``limit = 2**32 - (2**32 % m)``, reject
   ``x >= limit`` and read again, otherwise ``j = x % m``. No modulo bias.
4. The cards are dealt from position 0 upwards.

The commitment is the lowercase hex SHA-256 of the seed bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string
from collections.abc import Iterator

from baccarat.cards import Card, deck
from baccarat.errors import InvalidInput, RuleViolation

DECKS = 8
SEED_BYTES = 32
ROUNDS_PER_SHOE = 78
MIN_CARDS_TO_DEAL = 6

_TWO32 = 1 << 32


def new_seed() -> bytes:
    """A fresh secret seed from the operating system's secure generator."""
    return secrets.token_bytes(SEED_BYTES)


def parse_seed(text: str) -> bytes:
    """Read a seed written as 64 hex digits."""
    clean = text.strip()
    if any(ch not in string.hexdigits for ch in clean):
        raise InvalidInput("bad_seed", "The seed must be written in hexadecimal digits (0-9, a-f).")
    if len(clean) != 2 * SEED_BYTES:
        raise InvalidInput(
            "bad_seed",
            f"The seed is {2 * SEED_BYTES} hex digits ({SEED_BYTES} bytes), not {len(clean)}.",
        )
    return bytes.fromhex(clean)


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: SHA-256 of the seed bytes, as lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def byte_stream(seed: bytes) -> Iterator[int]:
    """HMAC-SHA256 in counter mode, yielding one byte at a time."""
    counter = 0
    while True:
        block = hmac.new(seed, counter.to_bytes(8, "big"), hashlib.sha256).digest()
        yield from block
        counter += 1


def shuffled_cards(seed: bytes, decks: int = DECKS) -> list[Card]:
    """The shoe's full card order for ``seed``, in dealing order."""
    cards = deck() * decks
    stream = byte_stream(seed)
    for i in range(len(cards) - 1, 0, -1):
        m = i + 1
        limit = _TWO32 - (_TWO32 % m)
        while True:
            x = int.from_bytes(bytes(next(stream) for _ in range(4)), "big")
            if x < limit:
                break
        j = x % m
        cards[i], cards[j] = cards[j], cards[i]
    return cards


class Shoe:
    """Cards dealt in order from a shuffled shoe.

    The seed stays inside; only its commitment is public until the shoe ends.
    """

    def __init__(self, cards: list[Card], seed: bytes | None = None, dealt: int = 0) -> None:
        if not 0 <= dealt <= len(cards):
            raise InvalidInput(
                "bad_position", f"A shoe of {len(cards)} cards has no position {dealt}."
            )
        self._cards = list(cards)
        self._next = dealt
        self._seed = seed
        self.commitment = commitment(seed) if seed is not None else None

    @classmethod
    def from_seed(cls, seed: bytes, decks: int = DECKS, dealt: int = 0) -> Shoe:
        """A shoe shuffled from ``seed`` by the documented algorithm, its first ``dealt``
        cards already out (a shoe dealt on after a restart)."""
        return cls(shuffled_cards(seed, decks), seed, dealt)

    @classmethod
    def fresh(cls, decks: int = DECKS) -> Shoe:
        """A shoe shuffled from a new secret seed."""
        return cls.from_seed(new_seed(), decks)

    @property
    def seed(self) -> bytes | None:
        """The secret seed (to reveal once the shoe ends)."""
        return self._seed

    @property
    def dealt(self) -> int:
        """How many cards have been dealt."""
        return self._next

    @property
    def remaining(self) -> int:
        """How many cards are left."""
        return len(self._cards) - self._next

    def draw(self) -> Card:
        """Deal the next card."""
        if self._next >= len(self._cards):
            raise RuleViolation("shoe_empty", "The shoe has no cards left.")
        card = self._cards[self._next]
        self._next += 1
        return card

"""Whole numbers: the one check that a value is an ``int`` and not a ``bool``.

Python counts ``True`` as the integer 1, so ``isinstance(value, int)`` alone lets a flag
through where a count of coins, a seat or a level belongs.
"""

from __future__ import annotations

from typing import TypeGuard


def whole(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a whole number (an ``int``, never a ``bool``)."""
    return isinstance(value, int) and not isinstance(value, bool)

"""A wallet the platform keeps (the seamless wallet): what a table asks of it.

The built-in wallet is the ledger: a table reads balances from the store and its rounds'
stakes move in the store. With a platform that keeps its players' coins, the table asks that
platform instead, for the users it launched: their balances when they sit and when betting
opens, their stakes (and a dealer's cover) when betting closes, and the coins back when the
round lands. ``baccarat.platform.seamless`` carries it out.

A balance the platform did not give (an error, no answer in time), or gave while a credit or
rollback of the user's is still owed to it, is not confirmed: the table keeps the last balance
it knew and takes no stake on it until the platform confirms one (``balances.confirmed``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Protocol


class Wallet(Protocol):
    """The platform's wallet, as a table uses it."""

    async def keeps(self, user_id: int) -> bool:
        """Whether the platform keeps this user's coins (a user it launched)."""
        ...

    async def balances(self, user_ids: Collection[int]) -> dict[int, int]:
        """The platform's balance of each of ``user_ids`` it keeps and could tell now (a user
        it does not keep, or whose balance it did not give in time, is left out)."""
        ...

    async def owing(self, user_ids: Collection[int]) -> set[int]:
        """The users of ``user_ids`` with a call the platform has not answered yet (a credit
        or rollback still being sent): its balance of theirs is not final."""
        ...

    def known(self, user_id: int) -> int | None:
        """The last balance the platform gave of the user on this node (None: none yet)."""
        ...

    async def take(self, round_id: str, stakes: Mapping[int, int]) -> set[int]:
        """Debit each user's stakes of the round; the users the platform keeps whose coins it
        did not give (refused, or no answer in time: those debits are rolled back)."""
        ...

    async def give_back(self, round_id: str) -> None:
        """The round landed (settled or voided): record what goes back to the platform and
        send it, in the background, until the platform has taken it."""
        ...

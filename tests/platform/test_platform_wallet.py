"""The transfer wallet as the reference platform uses it: coins moved in and out through
its pages' calls, never coins in play; after each, nothing is lost, the audit is clean and
``baccarat reconcile`` finds no difference."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from platform_support import Stack, http

from baccarat.client import Client, CommandError
from baccarat.store import open_store
from serving import wait_until


def _id() -> str:
    return f"t-{uuid.uuid4().hex}"


def _move(stack: Stack, user: str, amount: int) -> dict[str, object]:
    moved: dict[str, object] = stack.admin("/admin/transfer", {"user": user, "amount": amount})
    return moved


def test_the_reference_platform(stack: Stack) -> None:
    stack.session("u1002")
    coins = stack.platform_coins("u1002")
    game = stack.balance("u1002")
    moved = _move(stack, "u1002", 30_000)
    assert moved["status"] == "done", moved
    back = _move(stack, "u1002", -10_000)
    assert back["status"] == "done", back
    assert stack.platform_coins("u1002") == coins - 20_000
    assert stack.balance("u1002") == game + 20_000
    stack.assert_sound()


def _hook(stack: Stack, body: dict[str, object]) -> object:
    return http("POST", f"{stack.game}/api/test/tables/t1", json.dumps(body).encode()).body


def _phase(stack: Stack) -> str:
    return str(http("GET", f"{stack.game}/api/test/tables/t1").body["phase"])


def test_a_withdrawal_cannot_take_coins_in_play(stack: Stack) -> None:
    dealer_session, bettor_session = stack.session("u1002"), stack.session("u1001")
    assert _move(stack, "u1002", 40_000)["status"] == "done"
    assert _move(stack, "u1001", 5_000)["status"] == "done"
    dealer_coins, bettor_coins = stack.balance("u1002"), stack.balance("u1001")

    async def scene() -> None:
        dealer = await Client.connect(stack.game, dealer_session)
        bettor = await Client.connect(stack.game, bettor_session)
        try:
            await dealer.sit("t1", 0)
            _hook(stack, {"hold": "betting"})
            await bettor.sit("t1", 1)
            await asyncio.to_thread(wait_until, lambda: _phase(stack) == "betting", "betting")
            await bettor.bet("player", 10)
            await bettor.bet("player", 10)
            # The bettor's 2,000 on the table and the dealer's cover of it stay.
            out = await asyncio.to_thread(stack.transfer, _id(), "u1001", -(bettor_coins - 1_000))
            assert (out.status, out.body["error"]["code"]) == (409, "coins_below_stake")
            out = await asyncio.to_thread(stack.transfer, _id(), "u1002", -(dealer_coins - 1_000))
            assert (out.status, out.body["error"]["code"]) == (409, "dealer_cannot_cover")
            # What is not in play may go.
            done = await asyncio.to_thread(_move, stack, "u1001", -(bettor_coins - 2_000))
            assert done["status"] == "done", done
            # ... and the table knows: a chip beyond what is left is refused.
            with pytest.raises(CommandError) as refused:
                await bettor.bet("tie", 1)
            assert refused.value.code == "insufficient_coins"
            _hook(stack, {"hold": None})
            await bettor.wait_for(lambda m: m.get("event") == "round_settled", 60)
            await dealer.stand()
            try:
                await bettor.stand()
            except CommandError as gone:
                # A bettor who lost every coin left the seat at the settlement (the floor).
                assert gone.code == "not_seated"
                assert stack.balance("u1001") == 0
        finally:
            await dealer.close()
            await bettor.close()

    asyncio.run(scene())
    with open_store(stack.db) as store:
        assert store.void_unfinished() == []
    for user in ("u1001", "u1002"):
        left = stack.balance(user)
        if left:
            assert _move(stack, user, -left)["status"] == "done"
        assert stack.balance(user) == 0
    stack.assert_sound()

"""The seamless wallet against the reference platform: the platform keeps the coins, each
round's stakes are debited from it at the close and paid back at the settlement, whatever the
platform does (answers late, answers 500, takes a call and loses its answer, is down at the
settlement). After each round: the platform's balances moved by exactly the round's results,
every debit is matched by a credit or a rollback, the audit is clean and ``baccarat
reconcile`` finds no difference."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from http.cookies import SimpleCookie
from typing import Any

import pytest
from platform_support import Stack, http, running_stack

from baccarat.client import Client, CommandError
from baccarat.store import open_store
from baccarat.store.wallet import DEBIT, PENDING
from serving import wait_until

DEALER, BETTOR = "u1002", "u1001"
TIMEOUT = 1.0
"""The game's wait for one wallet call (a slow answer is one that comes later)."""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The reference platform in seamless mode and the game asking its wallet."""
    with running_stack(
        tmp_path_factory.mktemp("seamless"),
        "--test-hooks",
        "--speed",
        "3",
        wallet="seamless",
        game_file=f"wallet_timeout = {TIMEOUT}\n",
    ) as running:
        yield running


def _hook(stack: Stack, body: dict[str, object]) -> None:
    http("POST", f"{stack.game}/api/test/tables/t1", json.dumps(body).encode())


def _phase(stack: Stack) -> str:
    return str(http("GET", f"{stack.game}/api/test/tables/t1").body["phase"])


def _faults(stack: Stack, faults: dict[str, Any]) -> None:
    stack.admin("/admin/faults", faults)


def _calls(stack: Stack) -> list[Any]:
    with open_store(stack.db) as store:
        return store.wallet_calls_between(0.0, 1e12)


def _settled_calls(stack: Stack) -> bool:
    """No call pending, and every debit the platform took given back."""
    calls = _calls(stack)
    closing = {c.refers_to for c in calls if c.kind != DEBIT}
    return all(c.state != PENDING for c in calls) and all(
        c.call_id in closing for c in calls if c.kind == DEBIT
    )


def play(stack: Stack, chips: int, faults: dict[str, Any] | None = None) -> dict[str, Any]:
    """The dealer and one bettor sit, the bettor stakes ``chips`` on Player while the table
    holds its betting, ``faults`` are set at the platform, the round plays out; the events
    the bettor saw of it, by name (the last of each)."""
    dealer_session, bettor_session = stack.session(DEALER), stack.session(BETTOR)
    seen: dict[str, Any] = {}

    async def scene() -> None:
        dealer = await Client.connect(stack.game, dealer_session)
        bettor = await Client.connect(stack.game, bettor_session)
        try:
            _hook(stack, {"hold": "betting"})
            await dealer.sit("t1", 0)
            await bettor.sit("t1", 1)
            await asyncio.to_thread(wait_until, lambda: _phase(stack) == "betting", "betting")
            await bettor.bet("player", chips)
            _faults(stack, faults or {})
            _hook(stack, {"hold": None})

            def landed(m: Any) -> bool:
                if m.get("type") == "event":
                    seen[m["event"]] = m["data"]
                return m.get("event") in ("round_settled", "round_voided")

            await bettor.wait_for(landed, 60)
            for client in (bettor, dealer):
                try:
                    await client.stand()
                except CommandError as gone:
                    assert gone.code == "not_seated"  # a loser below the floor has left
        finally:
            await dealer.close()
            await bettor.close()

    asyncio.run(scene())
    _faults(stack, {})
    return seen


def _delta(seen: dict[str, Any], user_id: int) -> int:
    settled = seen.get("round_settled")
    if settled is None:
        return 0
    return int(settled["settlement"]["deltas"].get(str(user_id), 0))


def _ids(stack: Stack) -> tuple[int, int]:
    with open_store(stack.db) as store:
        dealer = store.platform_account(DEALER).user_id
        bettor = store.platform_account(BETTOR).user_id
    return dealer, bettor


def _round(stack: Stack, faults: dict[str, Any] | None, chips: int = 10) -> dict[str, Any]:
    """Play a round; check the platform's coins moved by the round's results exactly, every
    debit was matched and the two sides agree."""
    stack.session(DEALER), stack.session(BETTOR)  # both launched once, so linked
    dealer_id, bettor_id = _ids(stack)
    before = {u: stack.platform_coins(u) for u in (DEALER, BETTOR)}
    seen = play(stack, chips, faults)
    wait_until(lambda: _settled_calls(stack), "every wallet call answered", 60)
    assert stack.platform_coins(DEALER) == before[DEALER] + _delta(seen, dealer_id)
    assert stack.platform_coins(BETTOR) == before[BETTOR] + _delta(seen, bettor_id)
    with open_store(stack.db) as store:
        # Outside a round a launched user's coins are all at the platform.
        assert store.balance(dealer_id) == store.balance(bettor_id) == 0
    stack.assert_sound()
    return seen


def test_a_round_debits_the_stakes_and_pays_the_result_back(stack: Stack) -> None:
    seen = _round(stack, None)
    assert "round_settled" in seen
    _, bettor_id = _ids(stack)
    # The Player bet wins or loses, or a tie pushes it (about one shoe's round in ten).
    tie = seen["round_settled"]["outcome"]["winner"] == "tie"
    assert (_delta(seen, bettor_id) == 0) == tie, seen["round_settled"]
    # The game shows the platform's balance: its own wallet is empty between rounds.
    assert stack.me(stack.session(BETTOR))["coins"] == stack.platform_coins(BETTOR)
    kinds = sorted(
        (t["kind"], t["user"], t["status"])
        for t in stack.admin("/admin/users")["wallet"]
        if t["round_id"] == seen["round_settled"]["round_id"]
    )
    assert kinds == [
        ("credit", BETTOR, 200),
        ("credit", DEALER, 200),
        ("debit", BETTOR, 200),
        ("debit", DEALER, 200),
    ]


def test_a_debit_answered_late_returns_the_stakes_and_is_rolled_back(stack: Stack) -> None:
    seen = _round(stack, {"debit": {"mode": "slow", "delay": TIMEOUT + 1.5, "times": 1}})
    assert seen["stakes_returned"]["reason"] == "not_debited"
    # The platform took the debit after the game had given up on it: the rollback undid it.
    kinds = [
        (t["kind"], t["amount"])
        for t in stack.admin("/admin/users")["wallet"]
        if t["round_id"] == seen["stakes_returned"]["round_id"]
    ]
    assert kinds == [("debit", -1_000), ("rollback", 1_000)]


def test_a_debit_answered_500_returns_the_stakes(stack: Stack) -> None:
    seen = _round(stack, {"debit": {"mode": "error", "times": 1}})
    assert seen["stakes_returned"]["coins"] == 1_000


def test_a_credit_taken_but_answered_500_is_sent_again_and_paid_once(stack: Stack) -> None:
    seen = _round(stack, {"credit": {"mode": "after", "times": 2}})
    round_id = seen["round_settled"]["round_id"]
    credits = [
        t for t in stack.admin("/admin/users")["wallet"]
        if t["round_id"] == round_id and t["kind"] == "credit"
    ]  # fmt: skip
    assert len(credits) == 2  # one a user, each applied once
    with open_store(stack.db) as store:
        tries = {c.call_id: c.attempts for c in store.wallet_calls_of(round_id)}
    assert max(tries.values()) >= 2


def test_a_platform_down_at_the_settlement_is_paid_once_it_is_back(stack: Stack) -> None:
    seen = _round(stack, {"credit": {"mode": "error", "times": 4}})
    assert "round_settled" in seen


def test_a_dealers_cover_not_given_calls_the_round_off(stack: Stack) -> None:
    seen = _round(stack, {"debit": {"mode": "error", "times": 1, "user": DEALER}})
    assert "round_voided" in seen and "round_settled" not in seen


THIRD = "u1003"
SEATED = (DEALER, BETTOR, THIRD)
"""The dealer and two bettors (seats 0, 1, 2) of the tests of a platform away."""


def _session(stack: Stack, user: str) -> str:
    """Launch ``user`` at the room's level (the sandbox's Newbie is below it)."""
    answer = stack.launch(stack.token(user, level=60))
    assert answer.status == 200, answer.body
    cookie: SimpleCookie = SimpleCookie(answer.headers["Set-Cookie"])
    return cookie["baccarat_session"].value


def _wait_phase(stack: Stack, phase: str) -> None:
    wait_until(lambda: _phase(stack) == phase, phase, 30)


async def _stake_until_taken(bettor: Client, limit: float) -> list[str]:
    """Place one chip on Player until the table takes it; the codes it was refused with."""
    refused: list[str] = []
    until = asyncio.get_running_loop().time() + limit
    while True:
        try:
            await bettor.bet("player", 1)
            return refused
        except CommandError as no:
            refused.append(no.code)
            if asyncio.get_running_loop().time() > until:
                raise
        await asyncio.sleep(0.2)


async def _landed(client: Client, start: int) -> dict[str, Any]:
    """Wait until a round lands in what ``client`` was sent after its frame ``start``; the
    events from there, by name (the last of each)."""
    seen: dict[str, Any] = {}
    async with asyncio.timeout(60):
        while not {"round_settled", "round_voided"} & set(seen):
            await asyncio.sleep(0.05)
            for m in client.frames[start:]:
                if m.get("type") == "event":
                    seen[m["event"]] = m["data"]
    return seen


def _away(
    stack: Stack, faults: dict[str, Any], played_away: bool
) -> tuple[dict[str, Any], list[Any], list[str]]:
    """Seat the three, hold the table at a result, set ``faults`` at the platform, and hold
    the next betting that opens (with ``played_away``, the bettor's chip is refused there,
    and a round is dealt before the next betting is held): the bettor stakes one chip until
    the table takes it, and the round plays out. What the bettor saw, by event name (the last
    of each), every frame the three were sent, and the codes the chip was refused with."""
    sessions = [_session(stack, u) for u in SEATED]
    seen: dict[str, Any] = {}
    frames: list[Any] = []
    refused: list[str] = []

    async def scene() -> None:
        clients = [await Client.connect(stack.game, s) for s in sessions]
        try:
            for c in clients:
                c.record = True
            _hook(stack, {"hold": "result"})
            for seat, client in enumerate(clients):
                await client.sit("t1", seat)
            await asyncio.to_thread(_wait_phase, stack, "result")
            _faults(stack, faults)
            _hook(stack, {"hold": "betting"})
            await asyncio.to_thread(_wait_phase, stack, "betting")
            if played_away:
                with pytest.raises(CommandError) as no:
                    await clients[1].bet("player", 1)
                refused.append(no.value.code)
                # A round is dealt while the platform is away, nobody's stakes in it.
                _hook(stack, {"hold": None})
                await _landed(clients[1], len(clients[1].frames))
                _hook(stack, {"hold": "betting"})
                await asyncio.to_thread(_wait_phase, stack, "betting")
            refused.extend(await _stake_until_taken(clients[1], 30))
            start = len(clients[1].frames)
            _hook(stack, {"hold": None})
            seen.update(await _landed(clients[1], start))
            for client in clients:
                await client.stand()  # all three still seated
        finally:
            for client in clients:
                frames.extend(client.frames)
                await client.close()

    asyncio.run(scene())
    _faults(stack, {})
    return seen, frames, refused


def _kept_every_seat(stack: Stack, frames: list[Any]) -> None:
    """Nobody lost a seat but by standing up, and no balance shown fell to nothing."""
    freed = [f["data"]["reason"] for f in frames if f.get("event") == "seat_freed"]
    assert set(freed) <= {"stood_up"}, freed
    shown = [f["data"]["me"]["coins"] for f in frames if f.get("event") == "me"]
    shown += [f["data"]["coins"] for f in frames if f.get("event") == "coins_set"]
    assert shown and 0 not in shown, shown


def _round_away(
    stack: Stack, faults: dict[str, Any], played_away: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """``_away``, then check every seat was kept, the platform's coins moved by the round's
    results exactly, every call was answered and the two sides agree."""
    for user in SEATED:
        _session(stack, user)  # launched once, so linked
    before = {u: stack.platform_coins(u) for u in SEATED}
    seen, frames, refused = _away(stack, faults, played_away)
    _kept_every_seat(stack, frames)
    wait_until(lambda: _settled_calls(stack), "every wallet call answered", 60)
    with open_store(stack.db) as store:
        ids = {u: store.platform_account(u).user_id for u in SEATED}
    for user in SEATED:
        assert stack.platform_coins(user) == before[user] + _delta(seen, ids[user])
    stack.assert_sound()
    return seen, refused


def test_a_balance_answered_500_at_the_betting_open_keeps_every_seat_and_balance(
    stack: Stack,
) -> None:
    seen, refused = _round_away(stack, {"balance": {"mode": "error", "times": len(SEATED)}})
    assert "round_settled" in seen
    # The chip waited, if at all, for the platform to confirm the balances again.
    assert set(refused) <= {"wallet_unavailable"}, refused


def test_stakes_wait_out_a_platform_away_and_nobody_loses_a_seat(stack: Stack) -> None:
    # Every call fails for a while, each after the game's wait for it: at the --speed of
    # the stack, a round or two of play.
    away = {"mode": "down", "delay": TIMEOUT + 0.5, "seconds": 6.0}
    seen, refused = _round_away(stack, {"any": away}, played_away=True)
    assert refused and set(refused) == {"wallet_unavailable"}, refused
    assert "round_settled" in seen

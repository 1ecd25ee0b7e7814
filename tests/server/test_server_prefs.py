"""The squeeze preference (自動開牌) over a real socket: remembered per user, used at the table."""

from __future__ import annotations

from typing import Any

from server_live import Live, is_event, live_test


@live_test()
async def test_auto_open_is_remembered_and_opens_the_controllers_cards_at_once(
    live: Live,
) -> None:
    dealer = await live.client("dealer", 1_000_000)
    alice = await live.client("alice")
    await alice.set_auto_open(True)  # before sitting: kept in the database
    assert live.store.auto_open(alice.user_id) is True
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    view = await alice.resync()
    assert view["me"]["auto_open"] is True
    await alice.wait_for(is_event("betting_opened"), 10)
    await alice.bet("banker", 1)
    # Alice controls both hands and never opens a card herself: every card opens at once.
    seen: list[dict[str, Any]] = []

    def settled(msg: dict[str, Any]) -> bool:
        seen.append(msg)
        return is_event("round_settled")(msg)

    await alice.wait_for(settled, 30)
    opened = [m for m in seen if is_event("card_opened")(m)]
    assert len(opened) >= 2 and all(m["data"]["forced"] is False for m in opened)
    assert not [m for m in seen if is_event("squeeze_started")(m)]
    await alice.set_auto_open(False)
    assert (await alice.resync())["me"]["auto_open"] is False
    assert live.store.auto_open(alice.user_id) is False
    await alice.close()
    await dealer.close()


@live_test()
async def test_a_seated_users_preference_reaches_their_kept_view(live: Live) -> None:
    # 自動開牌 has no event of its own: the table's answer is the private ``me`` it changes,
    # written before the ack, so a client that keeps its view from events sees it at once.
    alice = await live.client("alice")
    await alice.sit("t1", 1)
    view = await alice.wait_view()
    assert view["me"]["auto_open"] is False
    for on in (True, False):
        await alice.set_auto_open(on)
        assert alice.view is not None
        assert alice.view["me"]["auto_open"] is on
    assert alice.snapshots == 1
    await alice.close()

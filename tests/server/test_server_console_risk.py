"""The console's risk view over real HTTP: a hedging pair that logged in from one address is
listed first, by name, with its rounds; the metric counts it; a game session is refused."""

from __future__ import annotations

import time

import aiohttp
from server_live import Live, live_test
from test_server_console import call, console

from baccarat.cards import parse_cards
from baccarat.protocol import values
from baccarat.rules import deal
from baccarat.settlement import settle
from baccarat.store import BetRecord, Store

PLAYER_WINS = ["4S", "5H", "4H", "KC"]
BANKER_WINS = ["5S", "5H", "KH", "3C"]


def hedge(store: Store, dealer: int, a: int, b: int, rounds: int) -> None:
    """``rounds`` settled rounds with a and b on opposite sides, 500 coins each."""
    for n in range(rounds):
        sides = ("player", "banker") if n % 2 else ("banker", "player")
        bets = [
            BetRecord(a, sides[0], 5, 500, time.time()),
            BetRecord(b, sides[1], 5, 500, time.time()),
        ]
        rid = f"hedge-{n}"
        store.escrow_round(rid, "t9", "s9", n + 1, dealer, bets)
        cards = PLAYER_WINS if n % 3 else BANKER_WINS
        outcome = deal(iter(parse_cards(cards)).__next__)
        stakes = {a: {sides[0]: 500}, b: {sides[1]: 500}}
        done = settle(outcome, dealer, stakes)  # type: ignore[arg-type]
        store.settle_round(
            rid, cards, values.outcome(outcome), done.deltas, done.commission, done.house
        )


async def login(live: Live, name: str) -> None:
    """A game login over HTTP, which notes the address it came from."""
    async with aiohttp.ClientSession() as http:
        status, _ = await call(
            http, "POST", f"{live.base}/api/login", {"username": name, "password": "password1"}
        )
    assert status == 200


@live_test(metrics_token="t0k3n")
async def test_a_hedging_pair_from_one_address_is_listed_first_by_name(live: Live) -> None:
    dealer, _ = await live.user("dealer")
    mei, _ = await live.user("Mei")
    kai, token = await live.user("Kai")
    await login(live, "Mei")
    await login(live, "Kai")
    hedge(live.store, dealer.user_id, mei.user_id, kai.user_id, 24)
    http = await console(live)
    try:
        status, body = await call(http, "GET", f"{live.base}/api/admin/risk?days=7")
        assert status == 200
        top = body["pairs"][0]
        assert (top["pattern"], top["a_name"], top["b_name"]) == ("hedge", "Mei", "Kai")
        assert (top["rounds"], top["hits"], top["flagged"]) == (24, 24, True)
        assert top["addresses"] == ["127.0.0.1"] and top["shared_address"]
        assert len(top["evidence"]) == 24 and top["evidence"][0]["round_id"] == "hedge-23"
        assert body["flagged"] == {"hedge": 1, "dumping": 0}
        assert body["thresholds"]["hedge_flag"] == 5.0
        metrics = {"Authorization": "Bearer t0k3n"}
        async with http.get(f"{live.base}/metrics", headers=metrics) as resp:
            page = await resp.text()
        assert 'baccarat_risk_pairs_flagged{pattern="hedge"} 1.0' in page
        assert 'baccarat_risk_pairs_flagged{pattern="dumping"} 0.0' in page
        status, body = await call(http, "GET", f"{live.base}/api/admin/risk?days=0")
        assert (status, body["error"]["code"]) == (400, "bad_days")
    finally:
        await http.close()
    async with aiohttp.ClientSession() as game:
        status, body = await call(
            game, "GET", f"{live.base}/api/admin/risk", Authorization=f"Bearer {token}"
        )
    assert status in (401, 403)

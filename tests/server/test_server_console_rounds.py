"""The console's rounds over real HTTP: a table's rounds found by time a page at a time, a
round's record naming its users and splitting its cards by hand, a shoe's rounds by hand,
the rooms named in both languages, ledger memos by their parts and log targets by name."""

from __future__ import annotations

import time
from typing import Any

import aiohttp
import sqlalchemy as sa
from server_live import ROOMS, Live, live_test
from test_server_console import call, console

from baccarat.cards import parse_cards
from baccarat.protocol import values
from baccarat.rules import deal
from baccarat.server.http.console_names import memo_parts
from baccarat.server.http.console_rounds import hands_of
from baccarat.settlement import settle
from baccarat.store import BetRecord, Store
from baccarat.store import schema as s

NAMED: dict[str, Any] = {
    **ROOMS,
    "rooms": [
        {
            **ROOMS["rooms"][0],
            "name": {"zh-TW": "一般區", "en": "Standard"},
            "tables": ["t1", {"id": "t2", "name": {"zh-TW": "貴賓桌", "en": "Velvet"}}],
        }
    ],
}
THIRD_CARDS = ["2H", "KD", "3C", "6S", "7D", "9C"]
"""Player 2 3 (5) draws a 7; Banker K 6 (6) draws against a 7, a 9: Player 2 to Banker 5."""
NATURAL = ["9H", "2C", "KD", "5S"]
"""Player 9 against Banker 7: no third card."""


def play(
    store: Store, table_id: str, shoe_id: str, n: int, dealer: int, bettor: int, at: float
) -> str:
    """Round ``n`` of ``shoe_id`` at ``table_id``, 200 on Player, settled; its betting closed
    at ``at``. Its id."""
    rid = f"{shoe_id}-r{n}"
    cards = THIRD_CARDS if n % 2 else NATURAL
    bets = [BetRecord(bettor, "player", 2, 200, at)]
    epoch = store.epoch_of(table_id)
    store.escrow_round(rid, table_id, shoe_id, n, dealer, bets, epoch=epoch)
    outcome = deal(iter(parse_cards(cards)).__next__)
    done = settle(outcome, dealer, {bettor: {"player": 200}})
    store.settle_round(
        rid, cards, values.outcome(outcome), done.deltas, done.commission, done.house, epoch=epoch
    )
    with store.engine.begin() as conn:
        conn.execute(sa.update(s.rounds).where(s.rounds.c.id == rid).values(escrowed_at=at))
    return rid


async def people(live: Live) -> tuple[int, int]:
    """A dealer 阿德 and a bettor 小美 (usernames ade and mei); their ids."""
    dealer, _ = await live.user("ade")
    bettor, _ = await live.user("mei")
    for user, name in ((dealer, "阿德"), (bettor, "小美")):
        with live.store.engine.begin() as conn:
            conn.execute(
                sa.update(s.users).where(s.users.c.id == user.user_id).values(display_name=name)
            )
    return dealer.user_id, bettor.user_id


async def search_rounds(live: Live, http: aiohttp.ClientSession) -> None:
    dealer, bettor = await people(live)
    day = 1_700_000_000.0
    live.store.record_shoe_start("shoe-a", "t2", "ab" * 32)
    made = [play(live.store, "t2", "shoe-a", n, dealer, bettor, day + n * 60) for n in range(1, 56)]
    live.store.record_shoe_start("shoe-b", "t1", "cd" * 32)
    play(live.store, "t1", "shoe-b", 1, dealer, bettor, day + 600)
    # From the 4th round's minute to before the 56th's: rounds 4 to 55, newest first.
    span = f"table=t2&from={day + 4 * 60}&to={day + 56 * 60}"
    status, got = await call(http, "GET", f"{live.base}/api/admin/rounds?{span}")
    assert status == 200
    assert [r["round_id"] for r in got["rounds"]] == made[54:4:-1]
    first = got["rounds"][0]
    assert (first["dealer"], first["bettors"], first["stakes"], first["winner"]) == (
        "阿德",
        1,
        200,
        "banker",
    )
    assert first["hands"] == {"player": ["2H", "3C", "7D"], "banker": ["KD", "6S", "9C"]}
    status, rest = await call(
        http, "GET", f"{live.base}/api/admin/rounds?{span}&before={got['next']}"
    )
    assert [r["round_id"] for r in rest["rounds"]] == made[4:2:-1] and rest["next"] is None
    for query, code in (
        (f"table=t2&from={day}&to={day}", "bad_span"),
        ("table=nowhere", "unknown_table"),
        ("table=t2&from=yesterday", "bad_since"),
        ("from=1", "bad_table"),
    ):
        status, body = await call(http, "GET", f"{live.base}/api/admin/rounds?{query}")
        assert (status, body["error"]["code"]) in ((400, code), (404, code)), query


@live_test(rooms=NAMED)
async def test_a_tables_rounds_are_found_by_time_newest_first_a_page_at_a_time(live: Live) -> None:
    http = await console(live)
    try:
        await search_rounds(live, http)
    finally:
        await http.close()


@live_test(rooms=NAMED, postgres=True)
async def test_the_round_search_reads_postgresql_alike(live: Live) -> None:
    http = await console(live)
    try:
        await search_rounds(live, http)
    finally:
        await http.close()


@live_test(rooms=NAMED)
async def test_a_rounds_record_names_its_users_and_splits_its_cards_by_hand(live: Live) -> None:
    dealer, bettor = await people(live)
    live.store.record_shoe_start("shoe-c", "t1", "ef" * 32)
    rid = play(live.store, "t1", "shoe-c", 1, dealer, bettor, time.time())
    # A round voided after three cards: two were the Player's, one the Banker's.
    stake = [BetRecord(bettor, "banker", 1, 100, time.time())]
    epoch = live.store.epoch_of("t1")
    live.store.escrow_round("void-1", "t1", "shoe-c", 2, dealer, stake, epoch=epoch)
    live.store.void_round("void-1", epoch=epoch)
    with live.store.engine.begin() as conn:
        conn.execute(sa.update(s.rounds).where(s.rounds.c.id == "void-1").values(cards=NATURAL[:3]))
    http = await console(live)
    try:
        status, got = await call(http, "GET", f"{live.base}/api/admin/rounds/{rid}")
        assert status == 200
        assert got["hands"] == {"player": ["2H", "3C", "7D"], "banker": ["KD", "6S", "9C"]}
        assert got["names"] == {str(dealer): "阿德", str(bettor): "小美"}
        status, got = await call(http, "GET", f"{live.base}/api/admin/rounds/void-1")
        assert got["hands"] == {"player": ["9H", "KD"], "banker": ["2C"]}
        status, shoe = await call(http, "GET", f"{live.base}/api/admin/shoes/shoe-c")
        assert status == 200 and shoe["table_id"] == "t1" and shoe["seed"] is None
        assert [r["hands"]["player"] for r in shoe["rounds"]] == [["2H", "3C", "7D"], ["9H", "KD"]]
        status, body = await call(http, "GET", f"{live.base}/api/admin/shoes/no-such-shoe")
        assert (status, body["error"]["code"]) == (404, "unknown_shoe")
        status, body = await call(http, "GET", f"{live.base}/api/admin/rooms")
        assert body["rooms"] == [
            {
                "room_id": "standard",
                "names": {"zh-TW": "一般區", "en": "Standard"},
                "tables": [
                    {"table_id": "t1", "names": {"zh-TW": "一般區 1", "en": "Standard 1"}},
                    {"table_id": "t2", "names": {"zh-TW": "貴賓桌", "en": "Velvet"}},
                ],
            }
        ]
    finally:
        await http.close()
    async with aiohttp.ClientSession() as game:
        _, token = await live.user("nosy")
        for path in ("rooms", "rounds?table=t1", f"rounds/{rid}", "shoes/shoe-c"):
            status, _ = await call(
                game, "GET", f"{live.base}/api/admin/{path}", Authorization=f"Bearer {token}"
            )
            assert status in (401, 403), path


@live_test(rooms=NAMED)
async def test_ledger_memos_come_with_their_parts_and_log_targets_with_names(live: Live) -> None:
    dealer, bettor = await people(live)
    live.store.record_shoe_start("shoe-d", "t2", "01" * 32)
    rid = play(live.store, "t2", "shoe-d", 4, dealer, bettor, time.time())  # Player wins
    http = await console(live)
    try:
        status, _ = await call(
            http, "POST", f"{live.base}/api/admin/users/{bettor}/grant",
            {"coins": 500, "reason": "補償斷線"},
        )  # fmt: skip
        assert status == 200
        status, got = await call(http, "GET", f"{live.base}/api/admin/users/{bettor}")
        # (the round's two entries may share a time: the grant is the newest)
        memos = [(e["kind"], e["memo"], e["parts"]) for e in got["ledger"]]
        assert memos[0] == ("grant", "補償斷線", None)
        assert sorted(memos[1:3], key=lambda m: m[0], reverse=True) == [
            ("settle", f"round {rid}", {
                "what": "settle", "round_id": rid, "table_id": "t2", "round_no": 4}),
            ("escrow", "table t2 shoe shoe-d round 4", {
                "what": "stakes", "table_id": "t2", "shoe_id": "shoe-d", "round_no": 4}),
        ]  # fmt: skip
        assert got["names"] == {f"user:{bettor}": "小美"}
        status, got = await call(http, "GET", f"{live.base}/api/admin/log?action=grant")
        assert got["log"][0]["target"] == f"user:{bettor}"
        assert got["names"][f"user:{bettor}"] == "小美"
    finally:
        await http.close()


def test_a_memo_a_person_wrote_has_no_parts_and_a_refused_stake_says_so() -> None:
    refused = "table vip-1 shoe s1 round 12: stakes refused"
    assert memo_parts("void", refused) == {
        "what": "stakes_refused", "table_id": "vip-1", "shoe_id": "s1", "round_no": 12,
    }  # fmt: skip
    assert memo_parts("void", "round r-9") == {"what": "void", "round_id": "r-9"}
    assert memo_parts("grant", "round r-9") is None
    assert memo_parts("settle", "paid by hand") is None


def test_cards_split_by_the_tableau_whatever_the_deal_stopped_at() -> None:
    assert hands_of(None) == {"player": [], "banker": []}
    assert hands_of(["9H"]) == {"player": ["9H"], "banker": []}
    # Player stands on 7; Banker 3 draws: the fifth card is the Banker's.
    assert hands_of(["4H", "2C", "3D", "AS", "5C"]) == {
        "player": ["4H", "3D"],
        "banker": ["2C", "AS", "5C"],
    }

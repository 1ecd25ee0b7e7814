"""Settlement through the table: the worked example of docs/rules.md ("Settlement"), escrow,
and exactly-once."""

from __future__ import annotations

import json

from tablekit import Game

from baccarat.cards import parse_cards
from baccarat.protocol import values
from baccarat.protocol.events import event_data
from baccarat.rules import deal
from baccarat.settlement import settle
from baccarat.table.events import RoundSettled


def test_worked_example_of_the_spec_through_the_table() -> None:
    # A deals; B bets banker 200; C bets player 100; Player wins (9 against 5).
    g = Game(["9S", "2H", "KH", "3C", "4D", "5S"])
    a, b, c = 1, 2, 3
    g.sit(a, 0, coins=35_000)
    g.sit(b, 1, coins=10_000)
    g.sit(c, 2, coins=10_000)
    g.bet(b, "banker", 2)
    g.bet(c, "player", 1)
    g.to_deadline()
    g.open_all()
    [settled] = g.of(RoundSettled)
    assert settled.outcome.winner == "player"
    assert settled.settlement.deltas == {1: 99, 2: -200, 3: 99}
    assert settled.settlement.house == 2
    assert (g.coins(a), g.coins(b), g.coins(c)) == (35_099, 9_800, 10_099)


def test_a_settled_round_replays_from_its_record() -> None:
    # Player 2S+3D=5 draws 9C; Banker KH+4H=4 stands on a 9: a tie at 4.
    g = Game(["2S", "KH", "3D", "4H", "9C"])
    g.sit(1, 0)
    for uid in (2, 3, 4):
        g.sit(uid, uid)
    g.bet(2, "player", 7)
    g.bet(2, "tie", 2)
    g.bet(3, "banker", 4)
    g.bet(3, "player_pair", 1)
    g.bet(4, "banker_pair", 3)
    g.to_deadline()
    g.open_all()
    [record] = g.of(RoundSettled)
    # The record as it is written: the wire's JSON, read back.
    data = json.loads(json.dumps(event_data(record, g.now)))
    cards = iter(parse_cards(data["cards"]))
    outcome = deal(lambda: next(cards))
    stakes: dict[int, dict[str, int]] = {}
    for bet in data["bets"]:
        stakes.setdefault(bet["user_id"], {})[bet["area"]] = bet["coins"]
    again = settle(outcome, data["dealer"], stakes)  # type: ignore[arg-type]
    assert values.outcome(outcome) == data["outcome"]
    assert {str(k): v for k, v in again.deltas.items()} == data["settlement"]["deltas"]
    assert again.house == data["settlement"]["house"]
    assert sum(again.deltas.values()) + again.house == 0


def test_each_bettor_gets_the_stake_back_with_the_delta() -> None:
    g = Game(["2S", "KH", "3D", "4H", "9C"])  # a tie: Player and Banker push
    g.sit(1, 0)
    g.sit(2, 1, coins=5_000)
    g.bet(2, "player", 10)
    g.bet(2, "tie", 1)
    g.to_deadline()
    assert g.coins(2) == 5_000 - 1_100
    g.open_all()
    assert g.coins(2) == 5_000 + 800 - 8
    assert g.coins(1) == 100_000


def test_a_round_with_no_bets_settles_to_nothing() -> None:
    g = Game(["2S", "3H", "4D", "4C"])
    g.sit(1, 0)
    g.sit(2, 1)
    g.to_deadline()
    [record] = g.of(RoundSettled)
    assert record.bets == ()
    s = record.settlement
    assert (s.deltas, s.commission, s.house) == ({1: 0}, {}, 0)

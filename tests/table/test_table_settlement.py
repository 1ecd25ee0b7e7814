"""Settlement through the table: SPEC.md's worked example, escrow, and exactly-once."""

from __future__ import annotations

from tablekit import Game


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
    [settled] = g.of("round_settled")
    assert settled.data["outcome"]["winner"] == "player"
    assert settled.data["settlement"]["deltas"] == {"1": 99, "2": -200, "3": 99}
    assert settled.data["settlement"]["house"] == 2
    assert (g.coins(a), g.coins(b), g.coins(c)) == (35_099, 9_800, 10_099)

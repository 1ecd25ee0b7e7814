"""Settlement: SPEC.md's worked example."""

from baccarat.cards import parse_cards
from baccarat.rules import deal
from baccarat.settlement import settle


def test_worked_example_of_the_spec() -> None:
    cards = iter(parse_cards(["9S", "2H", "KH", "3C", "4D", "5S"]))
    outcome = deal(lambda: next(cards))
    result = settle(outcome, "A", {"B": {"banker": 200}, "C": {"player": 100}})
    assert outcome.winner == "player"
    assert result.deltas == {"A": 99, "B": -200, "C": 99}
    assert result.house == 2

"""Stakes a seamless wallet did not give: after the close a bettor's bets go back, the round
plays on for the rest, and a card they were to squeeze passes on."""

from __future__ import annotations

from tablekit import Game, rejects

from baccarat.table import Unstake
from baccarat.table.events import BettingClosed, RoundSettled, StakesReturned


def closed_round() -> Game:
    g = Game(["2S", "3H", "5D", "4C", "KS", "KH"])  # Player 7, Banker 7: a tie, both stand
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    g.sit(4, 3)
    g.bet(2, "player", 10)
    g.bet(3, "player", 2)
    g.bet(4, "banker", 1)
    g.to_deadline()
    return g


def test_a_bettor_whose_stakes_were_not_debited_gets_them_back_and_the_round_plays_on() -> None:
    g = closed_round()
    [closed] = g.of(BettingClosed)
    assert g.view(None)["controllers"]["player"] == 2
    assert g.coins(2) == 99_000
    events = g.do(Unstake(closed.round_id, 2))
    assert [e.kind for e in events][:2] == ["stakes_returned", "controllers"]
    [back] = g.of(StakesReturned)
    assert (back.seat, back.user_id, back.coins, back.reason) == (1, 2, 1_000, "not_debited")
    assert g.coins(2) == 100_000
    # The Player hand's card passes to the next bettor by the same rule.
    assert g.view(None)["controllers"]["player"] == 3
    assert g.view(2)["me"]["bets"] == {}
    g.open_all()
    [settled] = g.of(RoundSettled)
    assert 2 not in settled.settlement.deltas
    assert sorted(b.user_id for b in settled.bets) == [3, 4]
    assert g.coins(2) == 100_000


def test_stakes_are_returned_once_and_only_for_the_round_that_closed() -> None:
    g = closed_round()
    [closed] = g.of(BettingClosed)
    rejects(g, Unstake("another-round", 2), "not_in_round")
    rejects(g, Unstake(closed.round_id, 1), "not_in_round")  # the dealer books, never bets
    g.do(Unstake(closed.round_id, 3))
    rejects(g, Unstake(closed.round_id, 3), "not_in_round")


def test_stakes_the_book_leans_on_are_refused_and_the_round_is_left_as_it_was() -> None:
    # The dealer's 1,000 cover Player 1,500 against Banker 1,000; without the Banker stakes
    # they would owe 1,500 on a Player win.
    g = Game(["2S", "3H", "5D", "4C", "KS", "KH"], dealer_floor=1_000)
    g.sit(1, 0, coins=1_000)
    g.sit(2, 1)
    g.sit(3, 2)
    g.bet(3, "banker", 10)
    g.bet(2, "player", 15)
    g.to_deadline()
    [closed] = g.of(BettingClosed)
    assert sorted((b.user_id, b.chips) for b in closed.bets) == [(2, 15), (3, 10)]
    rejects(g, Unstake(closed.round_id, 3), "dealer_cannot_cover")
    g.do(Unstake(closed.round_id, 2))  # without the Player stakes the book is smaller

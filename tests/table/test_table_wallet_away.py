"""A balance the platform's wallet could not confirm (``WalletAway``): the table keeps the
last one it knew, takes no stake that counts on it, and holds nothing against its user that
the platform caused: no idle round, no floor."""

from __future__ import annotations

from tablekit import Game, rejects

from baccarat.table import Double, PlaceChip, Rebet, WalletAway
from baccarat.table.events import RoundSettled, SeatFreed

TIE = ["2S", "3H", "5D", "4C", "KS", "KH"]
"""Player 7, Banker 7: a tie, both stand."""


def seated(g: Game, dealer: int = 100_000, bettor: int = 100_000) -> Game:
    """Dealer 1 at seat 0, bettors 2 and 3 at seats 1 and 2; betting is open."""
    g.sit(1, 0, coins=dealer)
    g.sit(2, 1, coins=bettor)
    g.sit(3, 2, coins=bettor)
    assert g.table.phase == "betting"
    return g


def finish(g: Game) -> None:
    """Close betting, open every card, and end the result."""
    g.to_deadline()
    g.open_all()
    g.until("betting")


def test_a_bettor_whose_balance_is_not_confirmed_may_not_stake_until_it_is() -> None:
    g = seated(Game(TIE * 3))
    g.bet(2, "player", 2)
    finish(g)
    g.do(WalletAway(2, True))
    assert g.coins(2) == 100_000  # the last balance known stays
    details = rejects(g, PlaceChip(2, "player", 1), "wallet_unavailable")
    assert details == {}
    rejects(g, Rebet(2), "wallet_unavailable")
    assert g.view(2)["me"]["can_bet"] is False
    assert g.view(2)["me"]["can_rebet"] is False
    g.bet(3, "banker", 1)  # the others bet on
    g.do(WalletAway(2, False))
    assert g.view(2)["me"]["can_bet"] is True
    g.do(Rebet(2))
    g.do(WalletAway(2, True))
    rejects(g, Double(2), "wallet_unavailable")


def test_a_dealer_whose_balance_is_not_confirmed_takes_no_bets() -> None:
    g = seated(Game(TIE))
    g.do(WalletAway(1, True))
    for uid in (2, 3):
        rejects(g, PlaceChip(uid, "tie", 1), "wallet_unavailable")
        assert g.view(uid)["me"]["can_bet"] is False
    g.do(WalletAway(1, False))
    g.bet(2, "tie", 1)


def test_rounds_the_wallet_kept_a_bettor_out_of_are_not_idle_rounds() -> None:
    g = seated(Game(TIE * 8, idle_rounds_limit=2))
    g.bet(3, "player", 1)
    finish(g)
    g.do(WalletAway(2, True))
    for _ in range(3):
        g.bet(3, "player", 1)
        finish(g)
    assert g.table.seat_of(2) == 1
    assert g.view(None)["seats"][1]["idle_rounds"] == 1  # the first round only
    g.do(WalletAway(1, True))  # the dealer's too: nobody could bet
    g.do(WalletAway(2, False))
    finish(g)
    assert g.table.seat_of(3) == 2 and g.table.seat_of(2) == 1
    assert not g.of(SeatFreed)


def test_a_balance_not_confirmed_below_the_floor_keeps_its_seat() -> None:
    banker = ["2S", "3H", "4D", "4C"]  # Player 6, Banker 7: Banker wins
    g = seated(Game(banker, banker), dealer=35_000, bettor=1_500)
    g.bet(2, "player", 6)  # loses 600
    g.bet(3, "banker", 10)  # wins 950 of the dealer's
    g.to_deadline()
    g.do(WalletAway(1, True))
    g.do(WalletAway(2, True))
    g.open_all()
    assert g.of(RoundSettled)
    assert g.coins(1) < 35_000 and g.coins(2) < 1_000
    g.until("betting")
    assert not g.of(SeatFreed)
    g.do(WalletAway(1, False))
    g.do(WalletAway(2, False))
    g.to_deadline()
    g.open_all()
    g.to_deadline()
    freed = [(e.user_id, e.reason) for e in g.of(SeatFreed)]
    assert freed == [(2, "below_floor"), (1, "dealer_below_floor")]

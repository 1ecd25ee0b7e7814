"""Rebet, double and undo: one command each, applied whole or refused whole."""

from __future__ import annotations

from tablekit import Game, rejects

from baccarat.protocol.events import event_data
from baccarat.table import Double, PlaceChip, Rebet, SetCoins, Undo
from baccarat.table.events import BetsChanged


def after_one_round(**settings: object) -> Game:
    """Dealer 1, bettors 2 and 3; 2 bet Player 7 and Tie 2 last round; betting is open again."""
    g = Game(**settings)  # type: ignore[arg-type]
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    g.bet(2, "player", 7)
    g.bet(2, "tie", 2)
    g.bet(3, "banker", 1)
    g.to_deadline()
    g.open_all()
    g.until("betting")
    return g


def test_rebet_places_last_rounds_bets_again_as_one_command() -> None:
    g = after_one_round()
    assert g.view(2)["me"]["rebet"] == {"player": 7, "tie": 2}
    assert g.view(2)["me"]["can_rebet"] is True
    [changed] = g.do(Rebet(2))
    assert changed.kind == "bets_changed"
    assert event_data(changed, g.now) == {
        "round_id": g.table.round.round_id if g.table.round else None,
        "seat": 1,
        "user_id": 2,
        "action": "rebet",
        "bets": {"player": 7, "tie": 2},
        "stake": 900,
    }
    assert g.view(None)["seats"][1]["bets"] == {"player": 7, "tie": 2}
    assert g.view(2)["me"]["can_rebet"] is False


def test_rebet_needs_earlier_bets_and_an_empty_slip() -> None:
    g = after_one_round()
    rejects(g, Rebet(1), "dealer_cannot_bet")
    g.sit(4, 3)
    rejects(g, Rebet(4), "nothing_to_rebet")
    g.bet(2, "tie", 1)
    rejects(g, Rebet(2), "already_bet")


def test_a_rebet_the_coins_cannot_pay_is_refused_whole() -> None:
    g = after_one_round()
    g.do(SetCoins(2, 1_500))
    # 9 chips = 900 coins fit; the refusal would come only at the whole slip's stake.
    g.do(Rebet(2))
    g.do(Undo(2))
    g.do(SetCoins(2, 800))
    rejects(g, Rebet(2), "insufficient_coins")


def test_a_rebet_the_dealer_could_not_cover_is_refused_whole() -> None:
    g = after_one_round(dealer_floor=500)
    g.do(SetCoins(1, 600))
    details = rejects(g, Rebet(2), "dealer_cannot_cover")
    assert details["liability"] == 700
    assert g.view(None)["seats"][1]["bets"] == {}


def test_double_doubles_every_area_or_nothing() -> None:
    g = after_one_round()
    rejects(g, Double(2), "no_bets")
    g.bet(2, "player", 20)
    g.bet(2, "banker_pair", 6)
    details = rejects(g, Double(2), "over_limit")
    assert details == {"area": "banker_pair", "limit": 10}
    assert g.view(None)["seats"][1]["bets"] == {"player": 20, "banker_pair": 6}
    g.do(Undo(2))  # the last chip: 1 of the 6 (a 5 and a 1)
    [changed] = g.do(Double(2))
    assert isinstance(changed, BetsChanged)
    assert changed.bets == {"player": 40, "banker_pair": 10}
    assert changed.stake == 5_000


def test_undo_takes_back_the_last_chip_or_the_last_rebet_or_double_whole() -> None:
    g = after_one_round()
    g.do(Rebet(2))
    g.do(PlaceChip(2, "banker_pair", 3))
    g.do(Double(2))
    assert g.view(2)["me"]["bets"] == {"player": 14, "tie": 4, "banker_pair": 6}
    g.do(Undo(2))
    assert g.view(2)["me"]["bets"] == {"player": 7, "tie": 2, "banker_pair": 3}
    g.do(Undo(2))
    assert g.view(2)["me"]["bets"] == {"player": 7, "tie": 2}
    [changed] = g.do(Undo(2))
    assert isinstance(changed, BetsChanged)
    assert changed.bets == {} and changed.stake == 0
    assert 2 not in g.table.round.bettors if g.table.round else False
    rejects(g, Undo(2), "no_bets")


def test_rebet_double_and_undo_need_open_betting() -> None:
    g = after_one_round()
    g.do(Rebet(2))
    g.to_deadline()
    for command in (Rebet(2), Double(2), Undo(2)):
        rejects(g, command, "betting_closed")
    assert g.view(2)["me"]["can_undo"] is False


def test_the_last_bets_are_the_latest_round_bet_in() -> None:
    g = after_one_round()
    g.bet(2, "banker", 3)
    g.to_deadline()
    g.open_all()
    g.until("betting")
    # A round without bets leaves the last bets as they were.
    g.to_deadline()
    g.open_all()
    g.until("betting")
    assert g.view(2)["me"]["rebet"] == {"banker": 3}

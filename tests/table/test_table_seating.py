"""Table and seats: entry level, floors, seat numbers, one seat each, quorum, late joiners."""

from __future__ import annotations

import pytest
from tablekit import Game, rejects, user

from baccarat.errors import RuleViolation
from baccarat.table import PlaceChip, Sit, StandUp
from baccarat.table.events import BettingOpened, RoundCancelled, ShoeStarted


def test_users_below_the_room_level_cannot_sit() -> None:
    g = Game()
    details = rejects(g, Sit(1, user(1, level=49), 1), "level_too_low")
    assert details["min_level"] == 50
    g.sit(1, 1, level=50)
    assert g.table.seat_of(1) == 1


def test_entering_the_room_to_watch_or_sit_needs_the_level() -> None:
    g = Game(min_level=55)
    assert not g.table.can_enter(54) and g.table.can_enter(55)
    with pytest.raises(RuleViolation) as err:
        g.table.verify_entry(54)
    assert err.value.code == "level_too_low" and err.value.details == {"min_level": 55}


def test_a_bettor_needs_the_bettor_floor() -> None:
    g = Game()
    rejects(g, Sit(1, user(1, coins=999), 1), "coins_below_floor")
    g.sit(1, 1, coins=1_000)
    assert g.table.seat_of(1) == 1


def test_the_dealer_needs_the_dealer_floor() -> None:
    g = Game()
    details = rejects(g, Sit(1, user(1, coins=34_999), 0), "coins_below_floor")
    assert details["floor"] == 35_000
    g.sit(1, 0, coins=35_000)
    assert g.table.dealer is not None


def test_a_taken_seat_cannot_be_taken() -> None:
    g = Game()
    g.sit(1, 3)
    rejects(g, Sit(2, user(2), 3), "seat_taken")


def test_seats_run_from_zero_to_seven() -> None:
    g = Game()
    for seat in (-1, 8, True):
        rejects(g, Sit(1, user(1), seat), "bad_seat")
    g.sit(1, 7)
    assert g.table.seat_of(1) == 7


def test_a_user_holds_one_seat_at_a_table() -> None:
    g = Game()
    g.sit(1, 2)
    rejects(g, Sit(1, user(1), 3), "already_seated")
    g.sit(2, 0)
    rejects(g, Sit(2, user(2), 4), "already_seated")


def test_the_user_sitting_must_be_the_one_asking() -> None:
    rejects(Game(), Sit(1, user(2), 1), "user_mismatch")


def test_commands_of_users_without_a_seat_are_refused() -> None:
    g = Game()
    rejects(g, StandUp(9), "not_seated")
    rejects(g, PlaceChip(9, "player", 1), "not_seated")


def test_without_a_dealer_and_a_bettor_the_table_waits() -> None:
    g = Game()
    g.sit(1, 1)
    g.sit(2, 2)
    assert g.table.phase == "waiting" and g.table.next_deadline is None
    g.sit(3, 0)
    assert g.table.phase == "betting"
    assert g.of(ShoeStarted) and g.of(BettingOpened)


def test_a_dealer_alone_waits_for_a_bettor() -> None:
    g = Game()
    g.sit(1, 0)
    assert g.table.phase == "waiting"
    g.sit(2, 5)
    assert g.table.phase == "betting"


def test_the_last_bettor_leaving_during_betting_cancels_the_round() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    g.bet(2, "player", 3)
    g.stand(2)
    assert g.of(RoundCancelled)[0].reason == "no_bettors"
    assert g.table.phase == "waiting" and g.table.round is None


def test_a_user_who_sits_during_betting_may_bet_at_once() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    g.tick(5)
    g.sit(3, 2)
    assert g.view(3)["me"]["can_bet"] is True
    g.bet(3, "tie", 1)
    assert g.view(3)["me"]["bets"] == {"tie": 1}


def test_a_user_who_sits_while_a_round_is_dealt_waits_for_the_next_round() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    g.bet(2, "player", 1)
    g.to_deadline()
    assert g.table.phase == "squeeze"
    g.sit(3, 2)
    assert g.view(3)["seats"][2]["waiting_next_round"] is True
    assert g.view(3)["me"]["can_bet"] is False
    rejects(g, PlaceChip(3, "player", 1), "betting_closed")
    g.open_all()
    g.until("betting")
    assert g.view(3)["seats"][2]["waiting_next_round"] is False
    g.bet(3, "player", 1)
    # The late joiner's first round does not count as an idle round.
    assert g.view(None)["seats"][2]["idle_rounds"] == 0


def test_a_bettor_may_move_to_the_free_dealer_seat_between_rounds() -> None:
    g = Game()
    g.sit(1, 1)
    g.sit(2, 2)
    assert g.table.phase == "waiting"
    events = g.do(Sit(1, user(1), 0))
    assert [e.kind for e in events[:2]] == ["seat_freed", "seated"]
    assert events[0].reason == "moved"
    assert g.table.seat_of(1) == 0 and g.table.seats[1] is None
    assert g.table.phase == "betting"


def test_a_bettor_cannot_move_to_the_dealer_seat_during_a_round() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    g.bet(2, "player", 1)
    g.to_deadline()
    g.stand(1)  # the dealer leaves after betting closed: the seat frees at settlement
    g.open_all()
    assert g.table.phase == "result" and g.table.dealer is None
    rejects(g, Sit(3, user(3), 0), "round_in_play")
    g.until("waiting")
    g.do(Sit(3, user(3), 0))
    assert g.table.seat_of(3) == 0


def test_standing_then_sitting_at_the_dealer_seat_follows_the_same_rule_as_a_move() -> None:
    # In the result of a round whose dealer was freed, a stand then a sit at seat 0 is a
    # move by another path: refused alike, and the seat never shows the settled round's bets.
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    g.bet(3, "banker", 2)
    g.to_deadline()
    g.stand(1)
    g.open_all()
    assert g.table.phase == "result" and g.table.dealer is None
    g.stand(3)
    rejects(g, Sit(3, user(3), 0), "round_in_play")
    assert g.view(None)["seats"][0] is None
    g.until("waiting")
    [seated] = [e for e in g.do(Sit(3, user(3), 0)) if e.kind == "seated"]
    assert seated.seat == 0 and seated.bets == {} and not seated.waiting_next_round


def test_a_bettor_who_sits_again_during_the_result_shows_no_settled_bets() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    g.bet(2, "player", 3)
    g.to_deadline()
    g.open_all()
    assert g.table.phase == "result"
    g.stand(2)
    [seated] = [e for e in g.sit(2, 4) if e.kind == "seated"]
    assert seated.waiting_next_round and seated.bets == {}
    assert g.view(None)["seats"][4]["bets"] == {}


def test_a_bettor_moving_to_the_dealer_seat_needs_the_dealer_floor() -> None:
    g = Game()
    g.sit(1, 1, coins=20_000)
    rejects(g, Sit(1, user(1, coins=20_000), 0), "coins_below_floor")

"""Betting: chips, limits, the dealer's cover, clearing, standing up, urging, idle bettors."""

from __future__ import annotations

from tablekit import Game, rejects

from baccarat.table import ClearBets, PlaceChip, SetCoins, Urge
from baccarat.table.events import (
    Bet,
    BetsChanged,
    BetsCleared,
    BettingClosed,
    ChipPlaced,
    RoundCancelled,
    RoundSettled,
    SeatFreed,
    Urged,
    recipient,
)


def started(**settings: object) -> Game:
    """A dealer (1) and two bettors (2, 3), betting open."""
    g = Game(**settings)  # type: ignore[arg-type]
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    assert g.table.phase == "betting"
    return g


def test_chips_are_the_five_denominations_and_areas_the_five_areas() -> None:
    g = started()
    rejects(g, PlaceChip(2, "player", 4), "bad_chip")
    rejects(g, PlaceChip(2, "player", True), "bad_chip")  # type: ignore[arg-type]
    rejects(g, PlaceChip(2, "dragon", 1), "unknown_area")
    for chip in (1, 2, 3, 5, 10):
        g.do(PlaceChip(2, "player", chip))
    assert g.view(2)["me"]["bets"] == {"player": 21}
    assert g.of(ChipPlaced)[-1].chips == 21


def test_the_dealer_cannot_bet() -> None:
    rejects(started(), PlaceChip(1, "player", 1), "dealer_cannot_bet")


def test_bets_are_refused_without_an_open_round() -> None:
    g = Game()
    g.sit(2, 1)
    rejects(g, PlaceChip(2, "player", 1), "not_betting")


def test_a_bet_after_the_close_is_refused_even_before_the_driver_advances() -> None:
    g = started()
    g.now += g.config.betting_seconds  # the deadline passed; advance not called yet
    rejects(g, PlaceChip(2, "player", 1), "betting_closed")
    g.tick(0)
    rejects(g, PlaceChip(2, "player", 1), "betting_closed")


def test_player_and_banker_are_exclusive_per_bettor() -> None:
    g = started()
    g.bet(2, "player", 1)
    rejects(g, PlaceChip(2, "banker", 1), "player_banker_exclusive")
    g.bet(3, "banker", 1)


def test_area_limits_per_bettor_and_round() -> None:
    g = started()
    g.bet(2, "player", 50)
    details = rejects(g, PlaceChip(2, "player", 1), "over_limit")
    assert details["limit"] == 50
    g.bet(2, "tie", 10)
    rejects(g, PlaceChip(2, "tie", 1), "over_limit")
    g.bet(2, "player_pair", 10)
    g.bet(2, "banker_pair", 10)
    rejects(g, PlaceChip(2, "banker_pair", 1), "over_limit")
    assert g.view(2)["me"]["remaining"] == {
        "player": 0,
        "banker": 0,
        "tie": 0,
        "player_pair": 0,
        "banker_pair": 0,
    }


def test_a_bettors_stake_never_exceeds_their_coins() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1, coins=1_500)
    g.bet(2, "banker", 15)
    rejects(g, PlaceChip(2, "tie", 1), "insufficient_coins")


def test_a_player_or_banker_bet_the_dealer_could_not_cover_is_refused() -> None:
    g = Game(dealer_floor=1_000)
    g.sit(1, 0, coins=1_500)
    g.sit(2, 1)
    g.sit(3, 2)
    g.sit(4, 3)
    g.bet(2, "player", 10)
    g.bet(3, "player", 5)
    details = rejects(g, PlaceChip(3, "player", 1), "dealer_cannot_cover")
    assert details == {"dealer_coins": 1_500, "liability": 1_600}
    # The house books Tie and the Pairs, so they stay open.
    g.bet(3, "tie", 10)
    assert g.view(1)["book"]["totals"]["player"] == {"chips": 15, "coins": 1_500}


def test_the_cover_check_takes_the_worse_outcome_not_the_sum_of_both_sides() -> None:
    g = Game(dealer_floor=1_000)
    g.sit(1, 0, coins=1_500)
    g.sit(2, 1)
    g.sit(3, 2)
    g.bet(2, "player", 15)
    # Banker bets offset Player bets: if Player wins the dealer pays 15 and collects 15.
    g.bet(3, "banker", 30)
    assert g.table.round is not None and g.table.round.liability(100) == 1_500
    details = rejects(g, PlaceChip(3, "banker", 1), "dealer_cannot_cover")
    assert details["liability"] == 1_600
    g.bet(2, "player", 1)
    assert g.view(1)["book"]["totals"]["banker"]["coins"] == 3_000


def test_what_the_dealer_cannot_cover_at_the_close_goes_back_latest_first() -> None:
    g = Game(dealer_floor=1_000)
    g.sit(1, 0, coins=2_500)
    g.sit(2, 1)
    g.sit(3, 2)
    g.sit(4, 3)
    g.bet(2, "player", 10)
    g.bet(3, "banker", 10)
    g.bet(4, "player", 15)
    g.bet(4, "tie", 2)
    g.bet(2, "player", 10)  # seat 1's Player bet began before seat 3's
    # Seat 2 clears its Banker bet, which offset the Player bets: 35 Player chips (3,500)
    # against the dealer's 2,500. The 10 chips lacking go back from the latest Player bet,
    # seat 3's; its tie stays (the house books it), and seat 1's bet is untouched.
    g.do(ClearBets(3))
    g.to_deadline()
    assert not g.of(RoundCancelled)
    back = [(e.user_id, e.action, dict(e.bets), e.stake) for e in g.of(BetsChanged)]
    assert back == [(4, "uncovered", {"player": 5, "tie": 2}, 700)]
    [closed] = g.of(BettingClosed)
    assert sorted((b.user_id, b.area, b.chips) for b in closed.bets) == [
        (2, "player", 20),
        (4, "player", 5),
        (4, "tie", 2),
    ]
    assert g.table.round is not None and g.table.round.liability(100) == 2_500
    # Only what stays in the round is staked; nobody whose bets went back counts as idle.
    assert (g.coins(2), g.coins(3), g.coins(4)) == (98_000, 100_000, 99_300)
    assert dict(closed.idle_rounds) == {1: 0, 2: 1, 3: 0}


def test_a_bettor_whose_whole_slip_goes_back_at_the_close_hears_it_and_the_round_is_dealt() -> None:
    g = Game(dealer_floor=1_000)
    g.sit(1, 0, coins=1_000)
    g.sit(2, 1)
    g.sit(3, 2)
    g.sit(4, 3)
    g.bet(2, "player", 10)
    g.bet(3, "banker", 5)
    g.bet(4, "player", 5)
    g.do(ClearBets(3))
    g.to_deadline()
    assert [(e.user_id, e.reason) for e in g.of(BetsCleared)][-1] == (4, "uncovered")
    [closed] = g.of(BettingClosed)
    assert [(b.user_id, b.area, b.chips) for b in closed.bets] == [(2, "player", 10)]
    assert (g.coins(2), g.coins(4)) == (99_000, 100_000)


def test_a_bettor_clears_their_own_bets_while_betting_is_open() -> None:
    g = started()
    rejects(g, ClearBets(2), "no_bets")
    g.bet(2, "player", 3)
    g.bet(3, "banker", 2)
    g.do(ClearBets(2))
    assert g.view(2)["me"]["bets"] == {}
    assert g.view(3)["me"]["bets"] == {"banker": 2}
    g.bet(2, "banker", 1)  # cleared: the other side is open again
    g.to_deadline()
    rejects(g, ClearBets(2), "betting_closed")


def test_standing_up_during_betting_gives_the_bets_back() -> None:
    g = started()
    g.bet(2, "player", 5)
    events = g.stand(2)
    assert [e.kind for e in events] == ["bets_cleared", "seat_freed"]
    assert events[1].coins == 100_000  # no coin moved before the close
    g.to_deadline()
    assert all(b["user_id"] != 2 for b in g.of(BettingClosed)[0].bets)


def test_standing_up_after_the_close_leaves_the_bets_in_play() -> None:
    g = Game(["2S", "3H", "5D", "4C", "KS", "KH"])  # Player 7 stands, Banker 7 stands: a tie
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    g.bet(2, "tie", 2)
    g.bet(3, "banker", 1)
    g.to_deadline()
    events = g.stand(2)
    # They controlled the Player hand (the largest stake, nobody on Player): it passes on.
    assert [e.kind for e in events] == ["seat_freed", "controllers", "squeeze_started"]
    assert g.view(None)["controllers"] == {"player": 3, "banker": 3}
    assert events[0].coins == 100_000 - 200  # the stake is in escrow
    assert g.table.seats[1] is None
    g.open_all()
    [settled] = g.of(RoundSettled)
    assert settled.outcome.winner == "tie"
    assert settled.settlement.deltas[2] == 1_600 - 16
    [mine] = [r for r in settled.results if r.user_id == 2]
    assert mine.seat is None and mine.areas == {"tie": 1_600}


def test_stakes_go_into_escrow_when_betting_closes() -> None:
    g = started()
    g.bet(2, "player", 7)
    assert g.coins(2) == 100_000
    g.to_deadline()
    assert g.coins(2) == 100_000 - 700
    [closed] = g.of(BettingClosed)
    assert closed.bets == (Bet(user_id=2, seat=1, area="player", chips=7, coins=700, at=1000.0),)


def test_only_the_dealer_urges() -> None:
    g = started()
    rejects(g, Urge(2), "not_dealer")
    rejects(g, Urge(9), "not_dealer")


def test_an_urge_reminds_every_bettor_who_has_not_bet() -> None:
    g = started()
    g.sit(4, 3)
    g.bet(3, "player", 1)
    events = g.do(Urge(1))
    [urged, *private] = events
    assert isinstance(urged, Urged) and urged.seats == (1, 3)
    assert sorted((e.kind, recipient(e)) for e in private) == [("urge", 2), ("urge", 4)]


def test_the_urge_button_cools_down() -> None:
    g = started()
    g.do(Urge(1))
    g.now += 4
    details = rejects(g, Urge(1), "urge_cooling_down")
    assert details["seconds_left"] == 6
    assert g.view(1)["me"]["urge_ready_at"] == 1010
    g.now += 6
    g.do(Urge(1))
    assert len(g.of(Urged)) == 2


def test_urging_needs_open_betting() -> None:
    g = Game()
    g.sit(1, 0)
    rejects(g, Urge(1), "not_betting")


def test_five_rounds_in_a_row_without_a_bet_frees_the_seat() -> None:
    g = started()
    for round_no in range(1, 6):
        g.bet(2, "player", 1)
        g.to_deadline()
        g.open_all()
        idle = g.view(None)["seats"][2]
        if round_no < 5:
            assert idle is not None and idle["idle_rounds"] == round_no
        g.until("betting")
    freed = g.of(SeatFreed)
    assert [(e.user_id, e.reason) for e in freed] == [(3, "idle")]
    assert g.view(None)["seats"][1]["idle_rounds"] == 0


def test_a_bet_resets_the_idle_count() -> None:
    g = started()
    for _ in range(4):
        g.bet(2, "player", 1)
        g.to_deadline()
        g.open_all()
        g.until("betting")
    g.bet(3, "tie", 1)
    g.to_deadline()
    assert g.view(None)["seats"][2]["idle_rounds"] == 0


def test_standing_up_and_sitting_again_keeps_the_idle_count() -> None:
    g = started()
    for _ in range(3):
        g.bet(2, "player", 1)
        g.to_deadline()
        g.open_all()
        g.until("betting")
    assert g.view(None)["seats"][2]["idle_rounds"] == 3
    g.stand(3)
    g.sit(3, 5)
    assert g.view(None)["seats"][5]["idle_rounds"] == 3
    g.bet(2, "player", 1)
    g.to_deadline()
    assert g.view(None)["seats"][5]["idle_rounds"] == 4
    g.open_all()
    g.until("betting")
    g.bet(2, "player", 1)
    g.to_deadline()
    assert [(e.user_id, e.reason) for e in g.of(SeatFreed)][-1] == (3, "idle")


def test_set_coins_changes_a_seated_balance_but_never_below_the_stake() -> None:
    g = started()
    g.bet(2, "player", 10)
    rejects(g, SetCoins(2, 999), "coins_below_stake")
    rejects(g, SetCoins(2, -1), "bad_coins")
    rejects(g, SetCoins(1, 999), "dealer_cannot_cover")
    g.bet(3, "banker", 4)
    g.do(SetCoins(1, 600))
    rejects(g, SetCoins(1, 599), "dealer_cannot_cover")
    rejects(g, SetCoins(9, 1), "not_seated")
    g.do(SetCoins(2, 5_000))
    assert g.coins(2) == 5_000

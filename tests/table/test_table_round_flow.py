"""Round flow and timers, the shoe's life, the rules after settlement, dealer departures."""

from __future__ import annotations

from tablekit import Game, rejects, shoe

from baccarat.shoe import Shoe, commitment
from baccarat.table import Disconnect, PlaceChip, Reconnect, StandUp, Table, TableConfig
from baccarat.table.events import (
    BettingClosed,
    BettingOpened,
    DealerLeaving,
    RoundCancelled,
    RoundSettled,
    SeatFreed,
    ShoeEnded,
    ShoeStarted,
    Waiting,
)


def seated(g: Game, bettors: int = 2, **coins: int) -> Game:
    """Dealer 1 and bettors 2.. at seats 1.."""
    g.sit(1, 0, coins=coins.get("dealer", 100_000))
    for uid in range(2, 2 + bettors):
        g.sit(uid, uid - 1, coins=coins.get("bettor", 100_000))
    return g


def play_round(g: Game, bets: dict[int, dict[str, int]] | None = None) -> None:
    """From open betting to the start of the next phase after the result."""
    assert g.table.phase == "betting"
    for uid, slip in (bets or {2: {"player": 1}}).items():
        for area, chips in slip.items():
            g.bet(uid, area, chips)
    g.to_deadline()
    g.open_all()
    assert g.table.phase == "result"
    g.to_deadline()


def test_round_flow_follows_the_timers() -> None:
    g = seated(Game())
    start = g.now
    assert g.table.next_deadline == start + 15
    g.bet(2, "player", 1)
    g.bet(3, "banker", 1)
    g.to_deadline()
    assert g.table.phase == "squeeze" and g.table.next_deadline == start + 25
    g.to_deadline()
    assert g.table.next_deadline == start + 35
    g.to_deadline()
    while g.table.phase == "squeeze":
        g.to_deadline()
    assert g.table.phase == "result"
    settled_at = g.now
    assert g.table.next_deadline == settled_at + 5
    g.to_deadline()
    assert g.table.phase == "betting" and g.table.next_deadline == settled_at + 5 + 15
    assert g.of(BettingOpened)[-1].round_no == 2


def test_each_round_settles_exactly_once() -> None:
    g = seated(Game())
    for _ in range(4):
        play_round(g)
    ids = [e.round_id for e in g.of(RoundSettled)]
    assert len(ids) == 4 and len(set(ids)) == 4
    closed = [e.round_id for e in g.of(BettingClosed)]
    assert closed == ids
    assert g.table.rounds_settled == 4


def test_a_new_shoe_after_rounds_per_shoe_with_a_shuffle_and_the_seed_revealed() -> None:
    seeds = [bytes([n]) * 32 for n in (1, 2)]
    shoes = iter(Shoe.from_seed(s) for s in seeds)
    table = Table(TableConfig("t", rounds_per_shoe=3), lambda: next(shoes))
    g = Game(rounds_per_shoe=3)
    g.table = table
    seated(g)
    first = g.of(ShoeStarted)[0]
    assert first.commitment == commitment(seeds[0])
    for _ in range(3):
        play_round(g)
    assert g.table.phase == "shuffling"
    [ended] = g.of(ShoeEnded)
    assert ended == ShoeEnded(
        first.shoe_id, commitment(seeds[0]), seeds[0].hex(), tuple(g.table.history)
    )
    view = g.view(None)
    assert view["shoe"] is None and view["last_shoe"]["seed"] == seeds[0].hex()
    assert len(view["history"]) == 3
    g.to_deadline()
    assert g.table.phase == "betting"
    assert g.of(ShoeStarted)[1].commitment == commitment(seeds[1])
    assert g.view(None)["history"] == []
    # The previous shoe's results stay with it (上一靴), for its roads.
    assert len(g.view(None)["last_shoe"]["history"]) == 3 and len(ended.history) == 3
    assert g.of(BettingOpened)[-1].round_no == 1


def test_a_shoe_dealt_on_numbers_its_rounds_after_every_round_it_recorded() -> None:
    # Three rounds settled, then two voided by crashes (numbers 4 and 5): the rounds dealt on
    # take 6 and 7, and the shoe ends after round 7, the last of its rounds, the voided ones
    # counted.
    before = seated(Game())
    for _ in range(3):
        play_round(before)
    g = Game(rounds_per_shoe=7)
    g.table.resume_shoe("s1", Shoe.from_seed(bytes(32), dealt=40), before.table.history, 5)
    seated(g)
    assert not g.of(ShoeStarted) and g.of(BettingOpened)[-1].round_no == 6
    play_round(g)
    assert g.of(BettingOpened)[-1].round_no == 7 and not g.of(ShoeEnded)
    play_round(g)
    assert [e.round_no for e in g.of(RoundSettled)] == [6, 7]
    assert g.table.rounds_in_shoe == 5 and g.of(ShoeEnded) and g.table.phase == "shuffling"


def test_the_shoe_also_ends_when_fewer_than_min_cards_remain() -> None:
    # Nine cards: the first round takes four, leaving five, fewer than six.
    cards = ["2S", "3H", "4D", "4C", "AS", "AH", "AD", "AC", "2D"]
    g = Game()
    g.table = Table(g.config, lambda: shoe(*cards, pad=False))
    seated(g)
    play_round(g)
    assert g.table.rounds_in_shoe == 1 < g.config.rounds_per_shoe
    assert g.of(ShoeEnded) and g.table.phase == "shuffling"


def test_history_keeps_this_shoes_results_as_road_marks() -> None:
    g = seated(Game(["2S", "3H", "4D", "4C", "KS", "KH", "9S", "9D", "AS"]))
    play_round(g)  # Player 6, Banker 7
    play_round(g)  # KS 9S against KH 9D: two naturals of 9, a tie
    assert g.view(None)["history"] == [
        {
            "winner": "banker",
            "points": 7,
            "player_pair": False,
            "banker_pair": False,
            "natural": False,
        },
        {"winner": "tie", "points": 9, "player_pair": False, "banker_pair": False, "natural": True},
    ]


def test_a_bettor_below_the_floor_after_settlement_loses_the_seat() -> None:
    # Player 6, Banker 7: Banker wins.
    g = seated(Game(["2S", "3H", "4D", "4C"]), bettor=1_500)
    play_round(g, {2: {"player": 6}, 3: {"banker": 1}})
    freed = [(e.user_id, e.reason) for e in g.of(SeatFreed)]
    assert freed == [(2, "below_floor")]
    assert g.table.seat_of(3) == 2


def test_a_dealer_below_the_floor_leaves_and_the_table_waits_for_a_dealer() -> None:
    g = seated(Game(["2S", "3H", "4D", "4C"]), dealer=35_000)
    play_round(g, {2: {"banker": 1}})
    freed = [(e.user_id, e.reason) for e in g.of(SeatFreed)]
    assert freed == [(1, "dealer_below_floor")]
    assert g.table.phase == "waiting" and g.table.dealer is None
    assert g.of(Waiting)[-1].dealer_needed is True


def test_a_dealer_standing_up_during_betting_leaves_after_the_settlement() -> None:
    g = seated(Game(["2S", "3H", "4D", "4C"]))  # Banker wins
    g.bet(2, "player", 5)
    [leaving] = g.stand(1)
    assert leaving == DealerLeaving(seat=0, user_id=1, reason="stood_up")
    assert not g.of(RoundCancelled)
    # The round goes on: bettors keep betting, the book stays the dealer's.
    g.bet(2, "player", 5)
    rejects(g, StandUp(1), "already_leaving")
    g.to_deadline()
    g.open_all()
    [settled] = g.of(RoundSettled)
    assert settled.settlement.deltas[1] == 1_000 - 10
    [freed] = g.of(SeatFreed)
    assert freed.reason == "stood_up" and freed.user_id == 1
    assert g.events.index(freed) > g.events.index(settled)
    assert g.table.dealer is None


def test_a_leaving_dealer_goes_at_once_when_the_last_bettor_leaves_during_betting() -> None:
    g = seated(Game(), bettors=1)
    g.bet(2, "player", 5)
    g.stand(1)
    events = g.stand(2)
    assert [(e.kind, getattr(e, "reason", None)) for e in events] == [
        ("bets_cleared", "stood_up"),
        ("seat_freed", "stood_up"),
        ("round_cancelled", "no_bettors"),
        ("seat_freed", "stood_up"),
        ("waiting", None),
    ]
    assert g.table.dealer is None


def test_the_dealer_leaving_after_the_close_keeps_the_book_until_settlement() -> None:
    g = seated(Game(["2S", "3H", "4D", "4C"]))  # Banker wins
    g.bet(2, "player", 5)
    g.to_deadline()
    [leaving] = g.stand(1)
    assert leaving.kind == "dealer_leaving" and leaving.reason == "stood_up"
    assert g.table.seat_of(1) == 0 and g.view(None)["seats"][0]["leaving"] is True
    rejects(g, StandUp(1), "already_leaving")
    g.open_all()
    [settled] = g.of(RoundSettled)
    assert settled.dealer == 1
    assert settled.settlement.deltas[1] == 500 - 5
    [freed] = g.of(SeatFreed)
    assert freed == SeatFreed(seat=0, user_id=1, reason="stood_up", coins=100_495)
    assert g.events.index(freed) > g.events.index(settled)
    assert g.table.dealer is None
    g.to_deadline()
    assert g.table.phase == "waiting"


def test_a_reconnect_within_the_grace_keeps_the_seat() -> None:
    g = seated(Game())
    g.do(Disconnect(2))
    assert g.view(None)["seats"][1]["connected"] is False
    rejects(g, Disconnect(2), "already_disconnected")
    g.tick(59)
    g.do(Reconnect(2))
    rejects(g, Reconnect(2), "not_disconnected")
    g.tick(10)
    assert g.table.seat_of(2) == 1


def test_a_reconnect_after_the_grace_is_refused() -> None:
    g = seated(Game(reconnect_grace_seconds=5))
    g.bet(2, "player", 3)
    g.do(Disconnect(2))
    g.now += 5  # the grace ran out; the driver has not advanced yet
    rejects(g, Reconnect(2), "grace_expired")
    g.tick(0)
    assert g.table.seat_of(2) is None


def test_a_disconnected_bettor_loses_the_seat_when_the_grace_runs_out() -> None:
    g = Game(reconnect_grace_seconds=5)
    seated(g)
    g.bet(2, "player", 3)
    g.do(Disconnect(2))
    assert g.table.next_deadline == g.now + 5
    events = g.tick(5)
    assert [(e.kind, e.reason) for e in events] == [
        ("bets_cleared", "disconnected"),
        ("seat_freed", "disconnected"),
    ]


def test_bets_in_play_of_a_bettor_whose_grace_ran_out_still_settle() -> None:
    g = Game(["2S", "3H", "4D", "4C"], reconnect_grace_seconds=5)
    seated(g)
    g.bet(2, "banker", 3)
    g.to_deadline()
    g.do(Disconnect(2))
    g.tick(5)
    assert g.table.seat_of(2) is None
    while g.table.phase == "squeeze":
        g.to_deadline()
    [settled] = g.of(RoundSettled)
    assert settled.settlement.deltas[2] == 300 - 3


def test_a_dealer_whose_grace_runs_out_mid_round_leaves_after_the_settlement() -> None:
    g = Game(["2S", "3H", "4D", "4C"], reconnect_grace_seconds=5)
    seated(g)
    g.bet(2, "player", 1)
    g.to_deadline()
    g.do(Disconnect(1))
    g.tick(5)
    assert g.of(DealerLeaving)[0].reason == "disconnected"
    assert g.table.seat_of(1) == 0
    g.open_all()
    assert [e.reason for e in g.of(SeatFreed)] == ["disconnected"]


def test_a_dealer_whose_grace_runs_out_during_betting_leaves_after_the_settlement() -> None:
    g = Game(["2S", "3H", "4D", "4C"], reconnect_grace_seconds=5)
    seated(g)
    g.bet(2, "player", 3)
    g.do(Disconnect(1))
    g.tick(5)
    assert g.of(DealerLeaving)[0].reason == "disconnected"
    assert not g.of(RoundCancelled)
    g.to_deadline()
    g.open_all()
    assert len(g.of(RoundSettled)) == 1
    assert [e.reason for e in g.of(SeatFreed)] == ["disconnected"]
    assert g.table.dealer is None


def test_rejected_commands_raise_with_a_code_and_change_nothing_in_every_phase() -> None:
    g = seated(Game())
    g.bet(2, "player", 1)
    phases = []
    while len(g.of(BettingOpened)) < 3:
        phases.append(g.table.phase)
        rejects(g, PlaceChip(1, "player", 1), "dealer_cannot_bet")
        rejects(g, PlaceChip(9, "player", 1), "not_seated")
        rejects(g, PlaceChip(2, "player", 7), "bad_chip")
        rejects(g, Reconnect(2), "not_disconnected")
        g.to_deadline()
    assert set(phases) == {"betting", "squeeze", "result"}


def test_shoe_without_a_seed_reports_a_null_commitment() -> None:
    g = seated(Game(["2S", "3H", "4D", "4C"]))
    assert g.of(ShoeStarted)[0].commitment is None

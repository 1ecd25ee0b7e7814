"""Views: an allow-list projection per viewer; the dealer's book; nothing secret leaks."""

from __future__ import annotations

import json

from tablekit import Game

from baccarat.protocol.view import view
from baccarat.shoe import Shoe
from baccarat.table import Table, TableConfig

TOP_LEVEL = {
    "table_id",
    "room",
    "chip_unit",
    "chips",
    "limits",
    "timers",
    "phase",
    "closing",
    "suspended",
    "deadline",
    "remaining_ms",
    "round_id",
    "round_no",
    "dealer",
    "shoe",
    "last_shoe",
    "seats",
    "hands",
    "squeeze",
    "controllers",
    "result",
    "history",
    "dealer_queue",
    "chat",
    "me",
    "book",
}


def betting_table() -> Game:
    g = Game(["2S", "3H", "4D", "4C"])
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 4)
    g.bet(2, "player", 12)
    g.bet(2, "tie", 2)
    g.bet(3, "banker", 5)
    return g


def test_every_view_has_exactly_the_allowed_keys_and_is_json() -> None:
    g = betting_table()
    for viewer in (None, 1, 2, 3, 99):
        seen = g.view(viewer)
        assert set(seen) == TOP_LEVEL
        assert json.loads(json.dumps(seen)) == seen


def test_the_view_never_shows_the_shoes_cards_or_its_seed() -> None:
    seed = bytes(range(32))
    table = Table(TableConfig("t"), lambda: Shoe.from_seed(seed))
    g = Game()
    g.table = table
    g.sit(1, 0)
    g.sit(2, 1)
    g.bet(2, "player", 1)
    g.to_deadline()
    assert table.shoe is not None and table.round is not None
    assert g.view(None)["shoe"]["cards_left"] == 416 - 4
    dealt = {str(c) for c in table.round.player + table.round.banker}
    upcoming = {str(table.shoe.draw()) for _ in range(12)} - dealt
    assert upcoming
    for viewer in (None, 1, 2):
        text = json.dumps(g.view(viewer))
        assert seed.hex() not in text
        assert "_cards" not in text
        assert not any(f'"{c}"' in text for c in upcoming)


def test_seats_show_each_bettors_chips_on_the_areas() -> None:
    g = betting_table()
    seats = g.view(None)["seats"]
    assert len(seats) == 8
    assert seats[0]["user_id"] == 1 and seats[0]["bets"] == {}
    assert seats[1]["bets"] == {"player": 12, "tie": 2}
    assert seats[4]["bets"] == {"banker": 5}
    assert seats[2] is None


def test_only_the_dealer_sees_the_book_with_totals_and_exposure() -> None:
    g = betting_table()
    assert g.view(2)["book"] is None and g.view(None)["book"] is None
    book = g.view(1)["book"]
    assert book["per_seat"] == {"1": {"player": 12, "tie": 2}, "4": {"banker": 5}}
    assert book["totals"] == {
        "player": {"chips": 12, "coins": 1_200},
        "banker": {"chips": 5, "coins": 500},
    }
    assert book["exposure"] == {"if_player_wins": -700, "if_banker_wins": 700, "if_tie": 0}


def test_me_tells_each_viewer_their_role_coins_and_what_they_may_still_bet() -> None:
    g = betting_table()
    dealer, bettor, spectator = g.view(1)["me"], g.view(2)["me"], g.view(None)["me"]
    assert (dealer["role"], dealer["seat"], dealer["can_bet"]) == ("dealer", 0, False)
    assert dealer["urge_ready_at"] is None
    assert bettor["role"] == "bettor" and bettor["coins"] == 100_000
    assert bettor["bets"] == {"player": 12, "tie": 2} and bettor["stake"] == 1_400
    assert bettor["remaining"] == {
        "player": 38,
        "banker": 0,
        "tie": 8,
        "player_pair": 10,
        "banker_pair": 10,
    }
    assert bettor["can_bet"] is True
    assert spectator["role"] == "spectator" and spectator["coins"] is None
    assert g.view(42)["me"]["role"] == "spectator"


def test_deadline_is_absolute_and_remaining_is_milliseconds() -> None:
    g = betting_table()
    assert g.view(None)["deadline"] == 1015.0
    g.now += 2.5
    assert g.view(None)["remaining_ms"] == 12_500
    g.now += 100
    assert g.view(None)["remaining_ms"] == 0


def test_the_result_of_the_last_round_stays_in_the_view() -> None:
    g = betting_table()
    g.to_deadline()
    g.open_all()
    result = g.view(None)["result"]
    assert result["outcome"]["winner"] == "banker"
    assert result["settlement"]["deltas"] == {"1": 1_200 - 500 - 7, "2": -1_400, "3": 495}
    assert g.view(None)["history"][-1]["winner"] == "banker"


def test_view_is_a_copy_that_cannot_change_the_table() -> None:
    g = betting_table()
    g.to_deadline()
    g.open_all()
    seen = view(g.table, 2, g.now)
    seen["result"]["settlement"]["deltas"]["2"] = 10**9
    seen["history"].clear()
    seen["seats"][1]["coins"] = 0
    assert view(g.table, 2, g.now)["result"]["settlement"]["deltas"]["2"] == -1_400
    assert g.view(None)["history"] and g.coins(2) == 100_000 - 1_400

"""Squeeze: who controls each hand, the peel, the shared face, forced opening, third cards."""

from __future__ import annotations

import json

from tablekit import Game, rejects

from baccarat.protocol.events import event_data
from baccarat.table import Disconnect, OpenCard, SetAutoOpen, Sit, SqueezeProgress, UserInfo
from baccarat.table.events import (
    CardDealt,
    CardOpened,
    Controllers,
    RoundSettled,
    SqueezeMoved,
    SqueezeStarted,
    recipient,
)
from baccarat.table.reducer import apply
from baccarat.table.squeeze import choose_controller

# P1 2S, B1 3H, P2 4D (face down), B2 4C (face down): Player 6 stands, Banker 7 stands.
NO_THIRD = ["2S", "3H", "4D", "4C"]
# P 2S+3D=5 draws 9C (Player 4); B KH+4H=4 with a 9: stands. Player 4 vs Banker 4: a tie.
PLAYER_THIRD = ["2S", "KH", "3D", "4H", "9C"]
# P 2S+4D=6 stands; B 3H+2C=5 draws 5S.
BANKER_THIRD = ["2S", "3H", "4D", "2C", "5S"]


def table_with_bets(cards: list[str], bets: dict[int, dict[str, int]]) -> Game:
    """Dealer 1; bettors 2-5 at seats 1-4 (level 60 + seat); ``bets`` placed in order."""
    g = Game(cards)
    g.sit(1, 0)
    for uid in (2, 3, 4, 5):
        g.sit(uid, uid - 1, level=60 + uid)
    for uid, slip in bets.items():
        for area, chips in slip.items():
            g.bet(uid, area, chips)
    g.to_deadline()
    return g


def test_the_controller_is_the_bettor_with_most_chips_on_the_hands_area() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 5}, 3: {"player": 6}, 4: {"banker": 2}})
    assert g.view(None)["controllers"] == {"player": 3, "banker": 4}


def test_with_nobody_on_the_area_the_largest_total_stake_controls() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 5}, 3: {"tie": 3, "player_pair": 4}})
    assert g.view(None)["controllers"] == {"player": 2, "banker": 3}


def test_controller_ties_go_to_the_higher_level_then_to_the_first_bet() -> None:
    slips = {2: {"player": 4}, 3: {"player": 4}, 4: {"player": 4}}
    order = {2: 0, 3: 1, 4: 2}
    assert choose_controller("player", slips, {2: 60, 3: 70, 4: 70}, order) == 3
    assert choose_controller("player", slips, {2: 60, 3: 60, 4: 60}, order) == 2
    assert choose_controller("banker", {}, {}, {}) is None
    # Through the table: seats have levels 62, 63...; the higher level wins a tie.
    g = table_with_bets(NO_THIRD, {2: {"banker": 3}, 3: {"banker": 3}})
    assert g.view(None)["controllers"]["banker"] == 3


def test_with_no_bets_at_all_the_cards_open_by_themselves() -> None:
    g = table_with_bets(NO_THIRD, {})
    assert g.table.phase == "result"
    assert [e.forced for e in g.of(CardOpened)] == [True, True]
    assert not g.of(SqueezeStarted)
    assert len(g.of(RoundSettled)) == 1


def test_the_second_cards_are_squeezed_players_first_each_in_its_own_window() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 1}, 3: {"banker": 1}})
    dealt = g.of(CardDealt)
    assert [(e.hand, e.face_down) for e in dealt] == [
        ("player", False),
        ("banker", False),
        ("player", True),
        ("banker", True),
    ]
    assert g.view(None)["squeeze"]["hand"] == "player"
    assert g.table.next_deadline == g.now + 10
    g.to_deadline()
    assert g.view(None)["squeeze"]["hand"] == "banker"
    assert g.table.next_deadline == g.now + 10
    g.to_deadline()
    assert [e.forced for e in g.of(CardOpened)] == [True, True]
    assert g.table.phase == "result"


def test_only_the_controller_squeezes_or_opens() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 1}, 3: {"banker": 1}})
    rejects(g, SqueezeProgress(3, "player", 0.5, "tl"), "not_controller")
    rejects(g, OpenCard(1, "player"), "not_controller")
    rejects(g, OpenCard(2, "banker"), "nothing_to_squeeze")  # the Banker's turn comes next
    g.do(SqueezeProgress(2, "player", 0.25, "br"))
    g.do(OpenCard(2, "player"))
    rejects(g, OpenCard(2, "player"), "nothing_to_squeeze")
    g.do(OpenCard(3, "banker"))
    assert [e.forced for e in g.of(CardOpened)] == [False, False]


def test_squeeze_input_is_checked() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 1}})
    rejects(g, SqueezeProgress(2, "player", 1.5, "tl"), "bad_progress")
    rejects(g, SqueezeProgress(2, "player", float("nan"), "tl"), "bad_progress")
    rejects(g, SqueezeProgress(2, "player", 0.5, "middle"), "bad_corner")
    rejects(g, SqueezeProgress(2, "dealer", 0.5, "tl"), "bad_hand")


def test_every_screen_sees_the_peel_move() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 1}})
    [event] = g.do(SqueezeProgress(2, "player", 0.4, "tr"))
    assert recipient(event) is None
    assert event_data(event, g.now) == {
        "round_id": "id2",
        "hand": "player",
        "position": 1,
        "progress": 0.4,
        "corner": "tr",
    }
    assert g.view(None)["squeeze"]["progress"] == 0.4
    assert g.view(None)["squeeze"]["corner"] == "tr"


def test_a_peel_move_in_the_last_seconds_leaves_the_controller_three_seconds() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 1}})
    began = g.now
    g.tick(6.5)
    [early] = g.do(SqueezeProgress(2, "player", 0.2, "tl"))
    assert isinstance(early, SqueezeMoved) and early.deadline is None
    assert g.table.next_deadline == began + 10
    g.tick(2.5)
    before = g.view(None)
    [late] = g.do(SqueezeProgress(2, "player", 0.3, "tl"))
    assert g.table.next_deadline == began + 12 == g.now + 3
    data = event_data(late, g.now)
    assert data["deadline"] == began + 12 and data["remaining_ms"] == 3000
    # Every screen's countdown follows: the view, and the view a client reduces.
    after = g.view(None)
    assert after["remaining_ms"] == 3000 and after["squeeze"]["deadline"] == began + 12
    assert apply(before, "squeeze_progress", data) == after
    g.tick(2.5)
    assert not g.of(CardOpened)
    g.tick(0.5)
    [opened] = g.of(CardOpened)
    assert opened.forced is True


def test_a_bettor_who_peels_lets_go_and_peels_again_is_not_cut_off() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 1}})
    began = g.now
    g.tick(9)
    g.do(SqueezeProgress(2, "player", 0.4, "br"))
    g.tick(2.5)
    g.do(SqueezeProgress(2, "player", 0.0, "br"))  # let go: the card springs back
    assert g.table.next_deadline == began + 14.5
    g.tick(2.25)
    g.do(SqueezeProgress(2, "player", 0.5, "br"))  # and peels again
    assert not g.of(CardOpened)
    # The third grip would have left 3 s; the cap of 5 s over the 10 s ends it sooner.
    assert g.table.next_deadline == began + 15


def test_peeling_holds_the_card_at_most_five_seconds_past_its_squeeze_time() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 1}})
    began = g.now
    for _ in range(30):
        g.tick(0.5)
        if g.of(CardOpened):
            break
        g.do(SqueezeProgress(2, "player", 0.5, "tr"))
    [opened] = g.of(CardOpened)
    assert opened.forced is True and g.now == began + 15
    assert max(e.deadline or 0 for e in g.of(SqueezeMoved)) == began + 15


def test_the_peel_time_and_its_cap_are_the_rooms_settings() -> None:
    g = Game(NO_THIRD, squeeze_seconds=6.0, squeeze_peel_seconds=2.0, squeeze_extra_seconds=1.0)
    g.sit(1, 0)
    g.sit(2, 1)
    g.bet(2, "player", 1)
    g.to_deadline()
    began = g.now
    g.tick(5)
    g.do(SqueezeProgress(2, "player", 0.5, "tl"))
    assert g.table.next_deadline == began + 7  # 2 s from the move, capped at 6 + 1


def test_a_face_down_card_is_shown_to_every_viewer_when_its_squeeze_starts() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 1}, 3: {"banker": 1}})
    [started] = g.of(SqueezeStarted)
    assert recipient(started) is None and str(started.card) == "4D"
    assert not [e for e in g.events if recipient(e) is not None], "nothing private about cards"
    for viewer in (None, 1, 2, 3, 4, 5):
        seen = g.view(viewer)
        assert seen["hands"]["player"][1] == {"face_down": True, "card": "4D"}
        assert seen["squeeze"]["card"] == "4D"
        # The Banker's face-down card waits for its own turn, hidden from everyone.
        assert seen["hands"]["banker"][1] == {"face_down": True}
        assert '"4C"' not in json.dumps(seen)
    assert '"4C"' not in json.dumps([event_data(e, g.now) for e in g.events])
    g.do(OpenCard(2, "player"))
    for viewer in (None, 1, 2, 3):
        assert g.view(viewer)["hands"]["banker"][1] == {"face_down": True, "card": "4C"}
        assert g.view(viewer)["hands"]["player"][1] == {"card": "4D"}


def test_no_card_is_named_while_betting_is_open() -> None:
    g = Game(NO_THIRD)
    g.sit(1, 0)
    g.sit(2, 1, level=62)
    g.bet(2, "player", 1)
    for viewer in (None, 1, 2):
        seen = g.view(viewer)
        assert seen["hands"] == {"player": [], "banker": []} and seen["squeeze"] is None
    assert not [e for e in g.events if "card" in event_data(e, g.now)]


def test_a_peel_may_start_from_a_long_side() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 1}})
    [event] = g.do(SqueezeProgress(2, "player", 0.3, "l"))
    assert event.corner == "l"
    assert g.view(None)["squeeze"]["corner"] == "l"


def test_a_disconnected_controller_still_controls_and_the_countdown_forces_the_card_open() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 1}})
    g.do(Disconnect(2))
    assert g.view(None)["squeeze"]["controller_user_id"] == 2
    g.tick(9.9)
    assert not g.of(CardOpened)
    g.tick(0.1)
    [opened] = g.of(CardOpened)
    assert opened.forced is True and str(opened.card) == "4D"


def test_when_the_controller_stands_up_control_passes_at_once_to_the_next_bettor() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 5}, 3: {"player": 3}, 4: {"banker": 1}})
    assert g.view(None)["squeeze"]["controller_user_id"] == 2
    g.tick(8)
    g.stand(2)
    squeeze = g.view(None)["squeeze"]
    assert (squeeze["hand"], squeeze["controller_user_id"]) == ("player", 3)
    # The new controller gets a whole countdown at once.
    assert g.table.next_deadline == g.now + 10
    restarted = g.of(SqueezeStarted)[-1]
    assert (restarted.controller_user_id, str(restarted.card)) == (3, "4D")
    assert g.of(Controllers)[-1] == Controllers("id2", player=3, banker=4)
    assert not g.of(CardOpened)
    g.do(OpenCard(3, "player"))
    assert g.of(CardOpened)[-1].forced is False


def test_a_controller_leaving_hands_over_their_hand_before_its_turn() -> None:
    g = table_with_bets(NO_THIRD, {2: {"player": 1}, 3: {"banker": 2}, 4: {"banker": 1}})
    g.stand(3)
    assert g.view(None)["controllers"] == {"player": 2, "banker": 4}
    g.do(OpenCard(2, "player"))
    assert g.view(None)["squeeze"]["controller_user_id"] == 4


def test_when_the_last_bettor_stands_up_mid_squeeze_the_cards_open_by_themselves() -> None:
    g = table_with_bets(BANKER_THIRD, {2: {"player": 1}})
    g.stand(2)
    assert [e.forced for e in g.of(CardOpened)] == [True, True, True]
    assert g.table.phase == "result"
    [settled] = g.of(RoundSettled)
    # The bettor's stake stays in play and settles normally.
    assert settled.settlement.deltas[2] == 99


def test_third_cards_are_dealt_face_down_and_squeezed_by_the_same_controller() -> None:
    g = table_with_bets(BANKER_THIRD, {2: {"player": 1}, 3: {"banker": 1}})
    g.open_all()
    third = g.of(CardDealt)[4:]
    assert [(e.hand, e.position, e.face_down) for e in third] == [("banker", 2, True)]
    squeezes = [(e.hand, e.position, e.controller_user_id) for e in g.of(SqueezeStarted)]
    assert squeezes == [("player", 1, 2), ("banker", 1, 3), ("banker", 2, 3)]
    [settled] = g.of(RoundSettled)
    assert [str(c) for c in settled.cards] == BANKER_THIRD


def test_the_players_third_card_comes_before_the_bankers() -> None:
    g = table_with_bets(PLAYER_THIRD, {2: {"player": 1}, 3: {"banker": 1}})
    g.open_all()
    squeezes = [(e.hand, e.position) for e in g.of(SqueezeStarted)]
    assert squeezes == [("player", 1), ("banker", 1), ("player", 2)]
    [settled] = g.of(RoundSettled)
    assert [str(c) for c in settled.cards] == PLAYER_THIRD
    assert settled.outcome.winner == "tie"


def test_a_controller_who_chose_auto_open_has_their_cards_opened_at_once() -> None:
    g = Game(BANKER_THIRD)
    g.sit(1, 0)
    g.do(Sit(2, UserInfo(2, "u2", 62, 100_000, auto_open=True), 1))
    g.sit(3, 2, level=63)
    assert g.view(2)["me"]["auto_open"] is True and g.view(3)["me"]["auto_open"] is False
    g.bet(2, "player", 1)
    g.bet(3, "banker", 1)
    g.to_deadline()
    # The Player card opens by itself, not forced; the Banker's controller squeezes theirs.
    [opened] = g.of(CardOpened)
    assert (opened.hand, opened.forced) == ("player", False)
    assert g.view(None)["squeeze"]["controller_user_id"] == 3
    g.do(SetAutoOpen(3, True))
    g.do(OpenCard(3, "banker"))
    # The Banker's third card: its controller now opens at once too.
    assert g.table.phase == "result"
    assert [e.forced for e in g.of(CardOpened)] == [False, False, False]
    g.do(SetAutoOpen(3, False))
    assert g.view(3)["me"]["auto_open"] is False
    rejects(g, SetAutoOpen(9, True), "not_seated")

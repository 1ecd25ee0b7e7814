"""The dealer queue (上莊排隊): who waits, who takes the free dealer seat, the 連莊 limit."""

from __future__ import annotations

from tablekit import Game, rejects, user

from baccarat.protocol.events import event_data
from baccarat.table import JoinQueue, LeaveQueue, Sit, StandUp
from baccarat.table.events import DealerQueueChanged, DealerTurn, SeatFreed


def join(g: Game, uid: int, coins: int = 100_000) -> None:
    g.do(JoinQueue(uid, user(uid, coins)))


def queue_ids(g: Game) -> list[int]:
    return [w["user_id"] for w in g.view(None)["dealer_queue"]]


def finish_round(g: Game) -> None:
    """Close betting, open every card, and run on to the next round's betting or waiting."""
    g.to_deadline()
    g.open_all()
    while g.table.phase not in ("betting", "waiting") or (
        g.table.round is not None and (g.table.round.settled)
    ):
        g.to_deadline()


def test_seated_and_watching_users_line_up_and_everyone_sees_the_line() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    join(g, 2)
    join(g, 7)  # watching only
    assert queue_ids(g) == [2, 7]
    assert g.view(7)["me"]["queue_position"] == 2
    assert g.view(2)["me"]["queue_position"] == 1
    assert g.view(3)["me"]["queue_position"] is None
    [event] = g.of(DealerQueueChanged)[-1:]
    assert event.change == "joined" and event.user_id == 7
    g.do(LeaveQueue(2))
    assert queue_ids(g) == [7]


def test_joining_the_line_is_checked() -> None:
    g = Game(min_level=55)
    g.sit(1, 0)
    rejects(g, JoinQueue(1, user(1)), "already_dealer")
    rejects(g, JoinQueue(5, user(5, level=54)), "level_too_low")
    details = rejects(g, JoinQueue(5, user(5, coins=34_999)), "coins_below_floor")
    assert details == {"floor": 35_000, "coins": 34_999}
    rejects(g, JoinQueue(5, user(6)), "user_mismatch")
    join(g, 5)
    rejects(g, JoinQueue(5, user(5)), "already_queued")
    rejects(g, LeaveQueue(6), "not_queued")
    for uid in range(10, 29):
        join(g, uid)
    rejects(g, JoinQueue(40, user(40)), "queue_full")


def test_when_the_dealer_leaves_the_first_seated_in_line_moves_at_once() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    join(g, 3)
    join(g, 2)
    g.bet(2, "player", 1)
    g.stand(1)  # during betting: leaves after the settlement
    finish_round(g)
    assert g.table.seat_of(3) == 0 and g.table.seats[2] is None
    assert queue_ids(g) == [2]
    promoted = g.of(DealerQueueChanged)[-1]
    assert (promoted.user_id, promoted.change) == (3, "promoted")
    assert g.table.phase == "betting"  # dealer 3 and bettor 2: the next round opens


def test_a_watcher_first_in_line_is_called_and_only_they_may_take_the_seat() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    join(g, 7)
    join(g, 8)
    g.stand(1)  # between rounds? betting is open: the dealer leaves after the settlement
    g.bet(2, "banker", 1)
    finish_round(g)
    [turn] = g.of(DealerTurn)
    assert (turn.user_id, turn.name) == (7, "u7")
    rejects(g, Sit(8, user(8), 0), "dealer_queue")
    rejects(g, Sit(2, user(2), 0), "dealer_queue")
    g.do(Sit(7, user(7), 0))
    assert g.table.seat_of(7) == 0 and queue_ids(g) == [8]
    assert len(g.of(DealerTurn)) == 1


def test_a_called_watcher_taken_out_of_the_line_calls_the_next() -> None:
    g = Game()
    g.sit(2, 1)
    join(g, 7)
    assert g.of(DealerTurn)[-1].user_id == 7
    g.do(LeaveQueue(7, reason="seated_elsewhere"))
    left = g.of(DealerQueueChanged)[-1]
    assert (left.change, left.reason) == ("left", "seated_elsewhere")
    join(g, 8)
    assert g.of(DealerTurn)[-1].user_id == 8


def test_a_bettor_in_line_below_the_dealer_floor_drops_out_and_the_next_is_called() -> None:
    g = Game(["2S", "3H", "4D", "4C"])  # Player 6, Banker 7: Banker wins
    g.sit(1, 0)
    g.sit(2, 1, coins=39_000)
    g.sit(3, 2)
    join(g, 2)
    join(g, 3)
    g.bet(2, "player", 50)  # loses 5,000: 34,000 is below the dealer floor
    g.stand(1)
    finish_round(g)
    assert g.table.seat_of(3) == 0 and g.table.seat_of(2) == 1
    dropped = [e for e in g.of(DealerQueueChanged) if e.change == "left"]
    assert [event_data(e, g.now) for e in dropped] == [
        {
            "queue": [{"user_id": 3, "name": "u3", "level": 60}],
            "user_id": 2,
            "change": "left",
            "reason": "coins_below_floor",
        }
    ]


def test_a_dealer_leaves_after_the_limit_of_rounds_in_a_row_while_someone_waits() -> None:
    g = Game(dealer_round_limit=2)
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    for _ in range(3):
        g.bet(2, "player", 1)
        finish_round(g)
    # Nobody waits: the dealer deals on past the limit.
    assert g.table.seat_of(1) == 0 and g.view(None)["seats"][0]["dealer_rounds"] == 3
    join(g, 3)
    g.bet(2, "player", 1)
    finish_round(g)
    freed = [e for e in g.of(SeatFreed) if e.user_id == 1]
    assert freed[-1].reason == "dealer_limit"
    assert g.table.seat_of(3) == 0
    assert g.view(None)["seats"][0]["dealer_rounds"] == 0
    assert g.view(None)["limits"]["dealer_round_limit"] == 2


def test_standing_up_keeps_a_user_in_line_and_the_line_survives_rounds() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    join(g, 3)
    g.do(StandUp(3))
    assert queue_ids(g) == [3]
    g.bet(2, "player", 1)
    finish_round(g)
    assert queue_ids(g) == [3]

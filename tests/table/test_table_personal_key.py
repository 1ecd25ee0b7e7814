"""``personal_key``: what a bettor's ``me`` is made of. The server skips building a bettor's
``me`` again while the key stays the same, so whatever changes a ``me`` must change the key.

The long random games check the rule after every step (``table_model``); these are the
changes those games seldom make while nothing else in the key moves. The book's own totals
are not in it: a chip on Player changes a bettor's `me` only when it changes what the
dealer can cover.
"""

from __future__ import annotations

from tablekit import Game, user

from baccarat.table import JoinQueue, LeaveQueue, SetCoins
from baccarat.table.view import personal, personal_key


def test_the_dealers_cover_is_in_a_bettors_key() -> None:
    # The dealer can just cover the book: bettor 3 cannot double the Player bet.
    g = Game(dealer_floor=1_000)
    g.sit(1, 0, coins=1_500)
    g.sit(2, 1)
    g.sit(3, 2)
    g.bet(2, "player", 10)
    g.bet(3, "player", 5)
    key = personal_key(g.table, 3, g.now)
    assert personal(g.table, 3, g.now)["me"]["can_double"] is False
    # A grant to the dealer alone changes what bettor 3 may do, so it changes the key
    # (which holds whether the dealer covers each bet the buttons ask about).
    g.do(SetCoins(1, 3_000))
    assert personal(g.table, 3, g.now)["me"]["can_double"] is True
    assert personal_key(g.table, 3, g.now) != key


def test_a_bettors_place_in_the_dealer_queue_is_in_the_key() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    g.do(JoinQueue(4, user(4)))
    g.do(JoinQueue(2, user(2)))
    key = personal_key(g.table, 2, g.now)
    assert personal(g.table, 2, g.now)["me"]["queue_position"] == 2
    # Someone ahead leaves the line: nothing of bettor 2's own changed but their place.
    g.do(LeaveQueue(4))
    assert personal(g.table, 2, g.now)["me"]["queue_position"] == 1
    assert personal_key(g.table, 2, g.now) != key


def test_the_dealer_and_anyone_not_seated_have_no_key() -> None:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    g.do(JoinQueue(4, user(4)))
    assert personal_key(g.table, 1, g.now) is None
    assert personal_key(g.table, 4, g.now) is None
    assert personal_key(g.table, 2, g.now) is not None

"""An operator closes a table after its round and reopens it: the round in play plays on as
usual (its squeeze included), then none starts and nobody new sits until it reopens."""

from __future__ import annotations

from tablekit import Game, rejects, user

from baccarat.table import Resume, Sit, Suspend
from baccarat.table.events import (
    BettingOpened,
    CardOpened,
    Resumed,
    RoundSettled,
    SqueezeStarted,
    Suspended,
)

NO_THIRD = ["2S", "3H", "4D", "4C", "2S", "3H", "4D", "4C"]


def seated() -> Game:
    g = Game(NO_THIRD)
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    return g


def test_the_round_in_play_finishes_with_its_squeeze_and_none_starts_after() -> None:
    g = seated()
    g.bet(2, "banker", 10)
    assert [type(e) for e in g.do(Suspend("  maintenance at 3 am "))] == [Suspended]
    assert g.view(None)["suspended"] == "maintenance at 3 am"
    g.to_deadline()  # betting closes as planned, and the cards are squeezed as ever
    assert g.of(SqueezeStarted)
    g.open_all()
    g.until("waiting")
    assert len(g.of(RoundSettled)) == 1 and all(not e.forced for e in g.of(CardOpened))
    g.tick(120)
    assert len(g.of(BettingOpened)) == 1
    # Those seated keep their seats; a newcomer is told why they cannot sit.
    assert [o.user_id for o in g.table.seats if o is not None] == [1, 2, 3]
    rejects(g, Sit(4, user(4), 3), "table_suspended")
    rejects(g, Suspend("again"), "table_suspended")
    # Reopened: betting opens at once with the seats it had.
    out = g.do(Resume())
    assert [type(e) for e in out[:2]] == [Resumed, BettingOpened]
    assert g.view(None)["suspended"] is None
    rejects(g, Resume(), "table_open")


def test_closing_needs_a_notice() -> None:
    g = seated()
    rejects(g, Suspend("   "), "bad_reason")
    assert g.table.suspended is None

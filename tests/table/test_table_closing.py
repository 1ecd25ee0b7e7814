"""Closing a table for its server's planned stop: the round in play finishes, none starts."""

from __future__ import annotations

from tablekit import Game, rejects, user

from baccarat.table import Sit
from baccarat.table.events import (
    BettingOpened,
    CardOpened,
    Closing,
    RoundCancelled,
    RoundSettled,
    SqueezeStarted,
)

# P1 2S, B1 3H, P2 4D (face down), B2 4C (face down): Player 6 stands, Banker 7 stands.
NO_THIRD = ["2S", "3H", "4D", "4C"]


def seated() -> Game:
    g = Game(NO_THIRD)
    g.sit(1, 0)
    g.sit(2, 1)
    g.sit(3, 2)
    return g


def close(g: Game) -> list[object]:
    out = g.table.close(g.now)
    g.events += out
    return list(out)


def test_betting_nobody_bet_on_is_called_off_and_no_round_starts_again() -> None:
    g = seated()
    assert g.table.phase == "betting"
    out = close(g)
    assert [type(e) for e in out[:2]] == [Closing, RoundCancelled]
    assert g.of(RoundCancelled)[0].reason == "closing"
    assert g.table.phase == "waiting" and g.table.round is None
    # Time passes: the table stays shut, every seat kept.
    g.tick(120)
    assert len(g.of(BettingOpened)) == 1
    assert [o.user_id for o in g.table.seats if o is not None] == [1, 2, 3]
    assert g.view(None)["closing"] is True


def test_a_round_with_bets_plays_on_and_its_cards_open_at_once() -> None:
    g = seated()
    g.bet(2, "banker", 10)
    close(g)
    assert not g.of(RoundCancelled)
    assert g.table.phase == "betting"
    g.to_deadline()  # betting closes as planned
    # No squeeze: every face-down card opened by itself, and the round settled.
    assert not g.of(SqueezeStarted)
    assert [e.forced for e in g.of(CardOpened)] == [True, True]
    assert len(g.of(RoundSettled)) == 1
    assert g.coins(2) > 100_000  # Banker 7 beats Player 6: the bet won
    g.until("waiting")
    g.tick(120)
    assert len(g.of(BettingOpened)) == 1


def test_a_squeeze_under_way_opens_at_once() -> None:
    g = seated()
    g.bet(2, "player", 5)
    g.to_deadline()
    assert g.table.phase == "squeeze" and g.of(SqueezeStarted)
    close(g)
    assert len(g.of(CardOpened)) == 2
    assert len(g.of(RoundSettled)) == 1
    assert g.table.phase == "result"


def test_nobody_new_sits_at_a_closing_table_and_closing_twice_says_nothing() -> None:
    g = seated()
    close(g)
    rejects(g, Sit(4, user(4), 3), "table_closing")
    assert close(g) == []

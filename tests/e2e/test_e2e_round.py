"""A full round in two browsers: the dealer (seat 0) and a bettor (seat 1) at one table.

The round is played once (module fixture) and each test checks one thing both screens
must agree on or show: the urge, a refused bet, the squeeze, the result and coins, the bead
plate, and the dealer's different screen.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    START_COINS,
    Server,
    held_in,
    hold,
    log_in,
    needs_chromium,
    open_page,
    place_chip,
    sit,
    skip,
)
from playwright.sync_api import Error as PlaywrightError

pytestmark = [pytest.mark.browser, needs_chromium]

TABLE = "standard-1"
CHIP_UNIT = 100
PLAYER_CHIPS = 10
TIE_CHIPS = 10


def expected_deltas(winner: str) -> tuple[int, int]:
    """(bettor, dealer) coin changes for 10 chips on Player and 10 on Tie.

    The rule is in docs/rules.md, "Settlement".
    """
    player = PLAYER_CHIPS * CHIP_UNIT
    tie = TIE_CHIPS * CHIP_UNIT
    if winner == "player":
        bettor_net, dealer_net = player - tie, -player
    elif winner == "banker":
        bettor_net, dealer_net = -player - tie, player
    else:
        bettor_net, dealer_net = 8 * tie, 0
    fee = lambda net: net // 100 if net > 0 else 0  # noqa: E731 - 1% of a positive net
    return bettor_net - fee(bettor_net), dealer_net - fee(dealer_net)


def coins_text(n: int) -> str:
    """Coins as the client writes them."""
    return f"{n:,}"


SEEN_AT_RESULT = """() => ({
  winner: document.querySelector('.result-banner').dataset.winner,
  glowing: [...document.querySelectorAll('.hand.win')].map((e) => e.dataset.hand),
  beads: [...document.querySelectorAll('.bead-plate .bead')].map((e) => e.dataset.winner),
  history: (window.baccaratApp.table.view?.history ?? []).map((m) => m.winner),
})"""


PEELED = """() => {
  const peel = document.querySelector('.squeeze:not([hidden])')?.dataset.peel ?? 'br:0';
  return Number(peel.split(':')[1]) > 0;
}"""
"""Whether the page draws the squeezed card peeled (its drawn zone and progress)."""


HOLD_BETS = """() => {
  // A bet the page sends waits here while holdBets is set, until releaseBets() sends it: the
  // server has not even seen it, so whatever the page shows meanwhile it drew on its own.
  window.holdBets = false;
  const held = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (window.holdBets && typeof data === 'string' && data.includes('"type":"bet"')) {
      held.push([this, data]);
      return;
    }
    return send.call(this, data);
  };
  window.releaseBets = () => {
    window.holdBets = false;
    for (const [ws, data] of held.splice(0)) send.call(ws, data);
  };
}"""

TAP_HELD = """([chip, area]) => {
  // Tap a chip and an area with the bet held: the area's stack and the tray's total drawn
  // before any answer.
  window.holdBets = true;
  document.querySelector(`.tray-chip[data-chip='${chip}']`).click();
  document.querySelector(`.area[data-area='${area}']`).click();
  return { stack: document.querySelector(`.area[data-area='${area}'] .my-coins`)?.textContent ?? '',
           total: document.querySelector('.tray-stake b')?.textContent ?? '' };
}"""


ANSWERED = """([area, want, errors]) =>
  (window.baccaratApp.table.view.me.bets?.[area] ?? 0) === want ||
  document.querySelectorAll('.toast-error').length > errors"""
"""The server's answer to a bet came: the view holds the chip, or a refusal is shown."""

STACK = "(a) => document.querySelector(`.area[data-area='${a}'] .my-coins`)?.textContent ?? ''"


def held_bet(page: Any, chip: int, area: str) -> dict[str, str]:
    """Bet with the bet held back on its way to the server: the area's stack and the tray's
    total as drawn at once; then the bet is sent and, once answered, the stack as it stays and
    the refusal's words if it was refused."""
    had = page.evaluate(f"() => window.baccaratApp.table.view.me.bets?.['{area}'] ?? 0")
    errors = page.locator(".toast-error").count()
    seen = {"before": page.evaluate(STACK, area), **page.evaluate(TAP_HELD, [chip, area])}
    page.evaluate("() => window.releaseBets()")
    page.wait_for_function(ANSWERED, arg=[area, had + chip, errors])
    toasts = page.locator(".toast-error")
    seen["refusal"] = toasts.last.inner_text() if toasts.count() > errors else ""
    seen["after"] = page.evaluate(STACK, area)
    return seen


@dataclass
class Played:
    """What the two screens showed during the round."""

    dealer: Any
    bettor: Any
    urge_text: str = ""
    refusal: str = ""
    dealer_squeeze_label: str = ""
    dealer_face_while_squeezed: str = ""
    bettor_face_while_squeezed: str = ""
    dealer_saw_peel: bool = False
    tie_stack_after_refusal: str = ""
    winners: list[str] = field(default_factory=list)
    glowing: list[list[str]] = field(default_factory=list)
    beads: list[list[str]] = field(default_factory=list)
    history: list[list[str]] = field(default_factory=list)
    """Each page's view of the shoe's results (earlier tests may have dealt at the table)."""
    coins: list[tuple[str, str]] = field(default_factory=list)
    stillness: list[dict[str, Any]] = field(default_factory=list)
    held: dict[str, dict[str, str]] = field(default_factory=dict)
    """By area: a bet held on its way to the server, as drawn at once and once answered."""


def _open_my_squeezes(bettor: Any, dealer: Any, played: Played) -> None:
    """Peel and open every face-down card the bettor controls until the round settles."""
    first = True
    for _ in range(12):
        bettor.wait_for_selector(
            ".squeeze.mine:not([hidden]), .table-screen[data-phase='result']", timeout=20_000
        )
        if bettor.locator(".table-screen[data-phase='result']").count():
            return
        if first:
            first = False
            dealer.wait_for_selector(".squeeze:not([hidden])")
            played.dealer_squeeze_label = dealer.inner_text(".squeeze .sq-label")
            played.dealer_face_while_squeezed = (
                dealer.get_attribute(".squeeze .sq-face svg", "data-card") or ""
            )
            played.bettor_face_while_squeezed = (
                bettor.get_attribute(".squeeze .sq-face svg", "data-card") or ""
            )
            box = bettor.locator(".squeeze .sq-card").bounding_box()
            assert box is not None
            bettor.mouse.move(box["x"] + box["width"] - 4, box["y"] + box["height"] - 4)
            bettor.mouse.down()
            bettor.mouse.move(
                box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.5, steps=8
            )
            # The peel reaches the other screen through the server's progress relay (the
            # finger still holds the card: let go, it falls back flat).
            dealer.wait_for_function(PEELED, timeout=5_000)
            played.dealer_saw_peel = True
            bettor.mouse.up()
        # The card may have opened by its timer meanwhile.
        with contextlib.suppress(PlaywrightError):
            bettor.click(".squeeze.mine .btn-open", timeout=3_000)
        bettor.wait_for_timeout(150)


WATCH_STILLNESS = """() => {
  const still = window.stillness = { steps: [], rolled: false };
  new MutationObserver((records) => {
    for (const m of records) {
      const cls = m.target.classList;
      if (cls?.contains('rolling-up') || cls?.contains('rolling-down')) still.rolled = true;
      const betting = document.querySelector('.table-screen')?.dataset.phase === 'betting';
      if (m.attributeName === 'stroke-dashoffset' && betting && m.target.closest('.main-ring')) {
        still.steps.push([performance.now(), m.target.getAttribute('stroke-dashoffset'), document.querySelector('.main-ring .ring-text')?.textContent]);
      }
    }
  }).observe(document.body, { subtree: true, attributes: true,
    attributeFilter: ['class', 'stroke-dashoffset'] });
}"""
"""Records, on a page that asked for reduced motion, each move of the betting countdown's arc
(when, where to, the number shown) and whether a coin counter ever rolled."""


@pytest.fixture(scope="module")
def played(server: Server, browser: Any) -> Played:
    """Play one round: alice deals, bob bets Player and Tie and squeezes."""
    dealer = open_page(browser, server, DESKTOP)
    bettor = open_page(browser, server, DESKTOP)
    log_in(dealer, "alice")
    log_in(bettor, "bob")
    for page in (dealer, bettor):
        page.evaluate(WATCH_STILLNESS)
    sit(dealer, TABLE, 0)
    sit(bettor, TABLE, 1)
    result = Played(dealer, bettor)
    bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray")
    dealer.wait_for_selector(".table-screen[data-phase='betting']")
    dealer.click("[data-action='urge']")
    bettor.wait_for_selector(".urge-banner:not([hidden])")
    result.urge_text = bettor.inner_text(".urge-banner")
    # A bet shows before the server has it, and stays once it took it; one it refuses (over
    # the tie's limit) is taken back.
    bettor.evaluate(HOLD_BETS)
    result.held["player"] = held_bet(bettor, 10, "player")
    assert place_chip(bettor, 10, "tie") == "ok"
    result.held["tie"] = held_bet(bettor, 1, "tie")
    result.refusal = result.held["tie"]["refusal"]
    result.tie_stack_after_refusal = bettor.inner_text(".area[data-area='tie'] .my-stack")
    # The table holds at this round's result until both pages have read it (at the test
    # server's speed the result lasts less than a starved page's reveal).
    hold(server, TABLE, "result")
    skip(server, TABLE)  # (bob is the only bettor: the rest of the betting is not waited out)
    try:
        _open_my_squeezes(bettor, dealer, result)
        held_in(server, TABLE, "result")
        for page in (dealer, bettor):
            page.wait_for_selector(
                ".table-screen[data-phase='result'] .result-banner:not([hidden])"
            )
            # Read in one go, during the result display.
            seen = page.evaluate(SEEN_AT_RESULT)
            result.winners.append(seen["winner"])
            result.glowing.append(seen["glowing"])
            result.beads.append(seen["beads"])
            result.history.append(seen["history"])
    finally:
        hold(server, TABLE, None)
    for page in (dealer, bettor):
        # A page on a healthy server never gave its socket up for silence.
        assert page.evaluate("() => window.baccaratApp.session.conn.silences") == 0
    for page in (dealer, bettor):
        # (without motion the coin counters show their new value at once)
        result.coins.append(
            (
                page.inner_text(".seat[data-seat='1'] .coins"),
                page.inner_text(".seat[data-seat='0'] .coins"),
            )
        )
        result.stillness.append(page.evaluate("window.stillness"))
    return result


def test_urge_reaches_a_bettor_who_has_not_bet(played: Played) -> None:
    assert "荷官催促您下注" in played.urge_text


def test_bet_over_the_tie_limit_is_refused_with_the_limit_in_words(played: Played) -> None:
    # In coins, the one unit the screens show for money: 10 chips of 100 coins.
    assert "和 上限 1,000 星幣" in played.refusal
    # The refused chip changed nothing: the tie area still holds exactly the limit.
    assert played.tie_stack_after_refusal.strip() == "1,000"


def test_a_bet_shows_at_once_and_stays_or_goes_with_the_servers_answer(played: Played) -> None:
    player, tie = played.held["player"], played.held["tie"]
    # Drawn before the server had it: 10 chips of 100 coins on Player, and in the tray's total.
    assert (player["before"], player["stack"], player["total"]) == ("", "1,000", "1,000")
    # Taken: it stays.
    assert (player["after"], player["refusal"]) == ("1,000", "")
    # Over the tie's limit: drawn at once too, then taken back when refused.
    assert (tie["before"], tie["stack"], tie["total"]) == ("1,000", "1,100", "2,100")
    assert tie["after"] == "1,000" and "和 上限" in tie["refusal"]


def test_squeeze_is_seen_live_by_others_with_the_same_face(played: Played) -> None:
    assert "bob 瞇牌中" in played.dealer_squeeze_label
    # Betting is closed and the card is dealt: every screen draws the real face under the peel.
    assert len(played.bettor_face_while_squeezed) == 2
    assert played.dealer_face_while_squeezed == played.bettor_face_while_squeezed
    assert played.dealer_saw_peel


def test_both_screens_show_the_same_result_and_coins(played: Played) -> None:
    dealer_winner, bettor_winner = played.winners
    assert dealer_winner == bettor_winner
    assert dealer_winner in ("player", "banker", "tie")
    bettor_delta, dealer_delta = expected_deltas(bettor_winner)
    expected = (coins_text(START_COINS + bettor_delta), coins_text(START_COINS + dealer_delta))
    assert played.coins == [expected, expected]


def test_without_motion_the_countdown_steps_each_second_and_no_counter_rolls(
    played: Played,
) -> None:
    for still in played.stillness:
        steps = still["steps"]
        assert steps, "the betting countdown never moved"
        # A sweeping arc takes a new place ten times a second; one that steps with its number
        # takes one place per number shown (and one when the time is up).
        places = {offset for _, offset, _ in steps}
        numbers = {number for _, _, number in steps}
        assert len(places) <= len(numbers) + 1, steps
        assert not still["rolled"]


def test_winning_hand_glows_in_its_colour(played: Played) -> None:
    winner = played.winners[0]
    want = [] if winner == "tie" else [winner]
    assert played.glowing == [want, want]


def test_bead_plate_shows_the_round(played: Played) -> None:
    # Each page's plate is its shoe's results, one bead a round, this round's last.
    winner = played.winners[0]
    for beads, history in zip(played.beads, played.history, strict=True):
        assert beads == history and beads[-1] == winner


def test_dealer_screen_differs_from_the_bettor_screen(played: Played) -> None:
    d, b = played.dealer, played.bettor
    assert d.locator(".book").count() == 1 and b.locator(".book").count() == 0
    assert (
        d.locator("[data-action='urge']").count() == 1
        and b.locator("[data-action='urge']").count() == 0
    )
    assert d.locator(".tray").count() == 0 and b.locator(".tray").count() == 1

    def boxes(page: Any) -> dict[str, dict[str, float]]:
        # One read of every position, so a redraw between two reads cannot mix states.
        return dict(
            page.evaluate(
                """() => Object.fromEntries([...document.querySelectorAll('.seat, .area')].map(
                  (e) => [e.dataset.seat !== undefined ? 'seat' + e.dataset.seat : e.dataset.area,
                          e.getBoundingClientRect().toJSON()]))"""
            )
        )

    dp, bp = boxes(d), boxes(b)
    # Read from the dealer's side the table is turned around: seat 7 and the Banker Pair on
    # the left, the dealer at the bottom; the bettor sees seat 1 and the Player Pair on the left.
    assert dp["seat7"]["x"] < dp["seat1"]["x"]
    assert bp["seat1"]["x"] < bp["seat7"]["x"]
    assert dp["banker_pair"]["x"] < dp["player_pair"]["x"]
    assert bp["player_pair"]["x"] < bp["banker_pair"]["x"]
    assert dp["seat0"]["y"] > dp["tie"]["y"]
    assert bp["seat0"]["y"] < bp["tie"]["y"]


def test_no_script_errors_on_either_screen(played: Played) -> None:
    assert played.dealer.js_errors == []
    assert played.bettor.js_errors == []


def test_the_console_stays_clean_from_the_first_visit_on(played: Played) -> None:
    # Both pages started as first visits (no session), logged in and played a round.
    assert played.dealer.console_errors == []
    assert played.bettor.console_errors == []


def test_the_screens_follow_the_round_from_events_without_snapshots(played: Played) -> None:
    # Each screen took its snapshots on joining (watching, sitting); after that it kept its
    # view from events alone (reducer.js): no resync asked for, for any event or gap.
    for page in (played.dealer, played.bettor):
        assert page.evaluate("window.baccaratApp.table.resyncCauses") == {}
        assert page.evaluate("window.baccaratApp.table.resyncs") == 0
        # And the view it kept is the one a snapshot would bring, the time left aside.
        kept = page.evaluate("window.baccaratApp.table.view")
        assert kept is not None and kept["round_no"] >= 1

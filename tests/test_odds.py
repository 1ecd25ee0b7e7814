"""Exact odds: published counts, an independent slow enumeration, expected values."""

from fractions import Fraction

import pytest

from baccarat.bets import Area
from baccarat.cards import Card, parse_cards
from baccarat.errors import InvalidInput
from baccarat.odds import ODDS_KEYS, exact_odds, sequence_total
from baccarat.rules import Outcome, next_draw, points
from baccarat.settlement import settle

# Published exact counts for 8 decks, in ordered 6-card sequences.
PUBLISHED_8_DECKS = {
    "total": 4_998_398_275_503_360,
    "banker": 2_292_252_566_437_888,
    "player": 2_230_518_282_592_256,
    "tie": 475_627_426_473_216,
    "pair": 373_374_329_013_504,
}


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


def _slow_results(decks: int) -> dict[str, int]:
    """Deal every sequence of card values, one card at a time, through rules.next_draw."""
    by_value = [Card(10, "S")] + [Card(v, "S") for v in range(1, 10)]
    left = [16 * decks] + [4 * decks] * 9
    n = 52 * decks
    out = {"banker": 0, "player": 0, "tie": 0}

    def walk(player: list[Card], banker: list[Card], weight: int) -> None:
        hand = next_draw(player, banker)
        if hand is None:
            used = len(player) + len(banker)
            p, b = points(player), points(banker)
            key = "player" if p > b else "banker" if b > p else "tie"
            out[key] += weight * _falling(n - used, 6 - used)
            return
        for v, card in enumerate(by_value):
            if left[v]:
                ways = left[v]
                left[v] -= 1
                if hand == "player":
                    walk([*player, card], banker, weight * ways)
                else:
                    walk(player, [*banker, card], weight * ways)
                left[v] += 1

    walk([], [], 1)
    return out


def _slow_pairs(decks: int) -> tuple[int, int]:
    """Count Player and Banker pairs over every rank of the first four cards."""
    left = [4 * decks] * 13
    n = 52 * decks
    player_pairs = banker_pairs = 0
    for p1 in range(13):
        w1 = left[p1]
        left[p1] -= 1
        for b1 in range(13):
            w2 = w1 * left[b1]
            left[b1] -= 1
            for p2 in range(13):
                w3 = w2 * left[p2]
                left[p2] -= 1
                for b2 in range(13):
                    w4 = w3 * left[b2]
                    player_pairs += w4 if p1 == p2 else 0
                    banker_pairs += w4 if b1 == b2 else 0
                left[p2] += 1
            left[b1] += 1
        left[p1] += 1
    tail = _falling(n - 4, 2)
    return player_pairs * tail, banker_pairs * tail


def test_published_exact_counts_for_eight_decks() -> None:
    odds = exact_odds(8)
    assert odds.total == PUBLISHED_8_DECKS["total"]
    for key in ("banker", "player", "tie"):
        assert odds.counts[key] == PUBLISHED_8_DECKS[key]  # type: ignore[index]
    assert odds.counts["player_pair"] == odds.counts["banker_pair"] == PUBLISHED_8_DECKS["pair"]


def test_six_deck_total_is_every_ordered_six_card_sequence() -> None:
    odds = exact_odds(6)
    assert odds.total == sequence_total(6) == 312 * 311 * 310 * 309 * 308 * 307
    assert odds.counts["banker"] + odds.counts["player"] + odds.counts["tie"] == odds.total


@pytest.mark.parametrize("decks", [1, 6])
def test_fast_enumeration_matches_a_slow_straightforward_one(decks: int) -> None:
    odds = exact_odds(decks)
    slow = _slow_results(decks)
    assert {k: odds.counts[k] for k in ("banker", "player", "tie")} == slow  # type: ignore[index]
    assert (odds.counts["player_pair"], odds.counts["banker_pair"]) == _slow_pairs(decks)


def _lone_bet_result(outcome: Outcome, area: Area) -> Fraction:
    """What one unit on ``area`` alone nets after settlement, by the real settlement code."""
    result = settle(outcome, "dealer", {"bettor": {area: 100}})
    return Fraction(result.deltas["bettor"], 100)


def _outcome(player: str, banker: str) -> Outcome:
    return Outcome(tuple(parse_cards(player.split())), tuple(parse_cards(banker.split())))


def test_expected_values_agree_with_settlement() -> None:
    odds = exact_odds(8)
    p = {a: odds.probability(a) for a in ODDS_KEYS}
    # One representative round of each kind, settled for a lone bet.
    player_wins = _outcome("9S KH", "2H 3C")
    banker_wins = _outcome("2S 3H", "9H KC")
    tie = _outcome("8S KH", "8H KC")
    pair = _outcome("KS KH", "2H 3C")
    no_pair = _outcome("KS QH", "2H 3C")
    for area in ("player", "banker"):
        expected = (
            p["player"] * _lone_bet_result(player_wins, area)
            + p["banker"] * _lone_bet_result(banker_wins, area)
            + p["tie"] * _lone_bet_result(tie, area)
        )
        assert odds.expected_value(area) == expected
    assert odds.expected_value("tie") == p["tie"] * _lone_bet_result(tie, "tie") + (
        1 - p["tie"]
    ) * _lone_bet_result(player_wins, "tie")
    assert odds.expected_value("player_pair") == p["player_pair"] * _lone_bet_result(
        pair, "player_pair"
    ) + (1 - p["player_pair"]) * _lone_bet_result(no_pair, "player_pair")
    assert odds.house_edge("tie") == -odds.expected_value("tie")


def test_banker_without_commission_favours_the_bettor_over_the_dealer() -> None:
    # This game pays Banker 1:1 with only the 1% commission on a winning net.
    odds = exact_odds(8)
    assert odds.expected_value("banker") > 0 > odds.expected_value("player")


def test_to_dict_has_the_documented_keys_and_exact_fractions() -> None:
    data = exact_odds(8).to_dict()
    assert set(data) == {
        "decks", "total", "counts", "probabilities", "expected_value", "expected_value_exact",
    }  # fmt: skip
    for key in ("counts", "probabilities", "expected_value", "expected_value_exact"):
        assert list(data[key]) == list(ODDS_KEYS)  # type: ignore[call-overload]
    exact = data["expected_value_exact"]
    floats = data["expected_value"]
    for area in ODDS_KEYS:
        assert float(Fraction(exact[area])) == pytest.approx(floats[area], abs=1e-15)  # type: ignore[index]


@pytest.mark.parametrize("decks", [0, -1, True, 2.0])
def test_deck_count_must_be_one_or_more(decks: object) -> None:
    with pytest.raises(InvalidInput) as err:
        exact_odds(decks)  # type: ignore[arg-type]
    assert err.value.code == "bad_decks"

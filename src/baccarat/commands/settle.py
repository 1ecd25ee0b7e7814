"""``baccarat settle``: deal and settle one scenario read as JSON on standard input.

The scenario::

    {"chip_unit": 100, "dealer": "A",
     "bets": [{"user": "B", "area": "banker", "chips": 2}, ...],
     "cards": ["9S", "2H", "KH", "3C", "4D", "5S"]}

``cards`` are the shoe's next cards in dealing order; cards the round does not need are
left unused. Each user's bets build one slip through :func:`baccarat.bets.place_bet`, so
every betting rule applies (coins are not limited here). A scenario that breaks a rule
prints ``{"error": {"code", "message"}}`` and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import Any

from baccarat.bets import Area, parse_area, place_bet, stake_coins
from baccarat.cards import Card, parse_cards
from baccarat.commands import jsonin
from baccarat.errors import BaccaratError, InvalidInput, RuleViolation
from baccarat.protocol import values
from baccarat.rules import deal
from baccarat.settlement import settle, verify_chip_unit

HELP = "deal and settle one scenario read as JSON on stdin, print JSON"


ABOUT = """\
The scenario is one JSON object on standard input:

    {"chip_unit": 100, "dealer": "A",
     "bets": [{"user": "B", "area": "banker", "chips": 2}, ...],
     "cards": ["9S", "2H", "KH", "3C", "4D", "5S"]}

chip_unit is the coins of one chip (a multiple of 100); dealer names the dealer; each bet
names a user (not the dealer), an area (player, banker, tie, player_pair, banker_pair) and
a whole number of chips, placed under the betting rules. cards are the shoe's next cards in
dealing order, a rank (A 2-9 T or 10 J Q K) and a suit (S H D C); the ones the round does
not need are left unused. The output is one JSON object: each hand's cards, points and
pair, the winner, each user's coin change (deltas), the commission each paid and the
house's share. A scenario that breaks a rule, or input that is not such an object, prints
{"error": {"code", "message"}} and exits 2.

Example:

    echo '{"chip_unit":100,"dealer":"A","bets":[{"user":"B","area":"banker","chips":2}],
    "cards":["9S","2H","KH","3C","4D","5S"]}' | baccarat settle"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command takes no options: the scenario comes on stdin."""


def _field(obj: dict[str, Any], name: str, where: str) -> Any:
    if name not in obj:
        raise InvalidInput("missing_field", f"{where} needs the field '{name}'.")
    return obj[name]


def _user(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidInput("bad_field", f"{where} must name a user as a non-empty string.")
    return value


def _slips(bets: Any, dealer: str, chip_unit: int) -> dict[str, dict[Area, int]]:
    """Each bettor's slip in chips, built bet by bet under the betting rules."""
    if not isinstance(bets, list):
        raise InvalidInput("bad_field", "'bets' must be a list of bets.")
    slips: dict[str, dict[Area, int]] = {}
    for i, bet in enumerate(bets):
        where = f"Bet {i + 1}"
        if not isinstance(bet, dict):
            raise InvalidInput("bad_field", f"{where} must be an object with user, area, chips.")
        user = _user(_field(bet, "user", where), f"{where}'s user")
        area = parse_area(_field(bet, "area", where))
        chips = _field(bet, "chips", where)
        if user == dealer:
            raise RuleViolation("dealer_cannot_bet", f"{user} is the dealer and cannot bet.")
        slip = slips.get(user, {})
        # Coins are not limited in this tool: offer exactly what the bet needs.
        coins = stake_coins(slip, chip_unit) + (chips * chip_unit if isinstance(chips, int) else 0)
        slips[user] = place_bet(slip, area, chips, chip_unit=chip_unit, coins=coins)
    return slips


def _card_source(cards: list[Card]) -> Iterator[Card]:
    yield from cards
    raise InvalidInput("too_few_cards", f"The round needs more cards than the {len(cards)} given.")


def settle_scenario(scenario: Any) -> values.JsonObject:
    """Deal and settle one scenario; return the JSON-ready result."""
    if not isinstance(scenario, dict):
        raise InvalidInput("bad_scenario", "The scenario must be a JSON object.")
    chip_unit = verify_chip_unit(_field(scenario, "chip_unit", "The scenario"))
    dealer = _user(_field(scenario, "dealer", "The scenario"), "The dealer")
    slips = _slips(_field(scenario, "bets", "The scenario"), dealer, chip_unit)
    texts = _field(scenario, "cards", "The scenario")
    if not isinstance(texts, list):
        raise InvalidInput("bad_field", "'cards' must be a list of cards like \"TH\".")
    source = _card_source(parse_cards(texts))
    outcome = deal(lambda: next(source))
    stakes = {user: {a: n * chip_unit for a, n in slip.items()} for user, slip in slips.items()}
    result = settle(outcome, dealer, stakes)
    return values.outcome(outcome) | values.settlement(result)


def run(args: argparse.Namespace) -> int:
    """Read the scenario on stdin, print the result or the rule it breaks."""
    try:
        out = settle_scenario(jsonin.read_stdin("The scenario"))
    except BaccaratError as exc:
        print(json.dumps({"error": exc.to_dict()}))
        return 2
    print(json.dumps(out))
    return 0

"""``baccarat verify-shoe``: recompute a finished shoe's card order from its revealed seed.

The algorithm is in ``docs/fairness.md``; anyone may reimplement it from that page.
"""

from __future__ import annotations

import argparse
import json
import sys

from baccarat.errors import BaccaratError, InvalidInput
from baccarat.shoe import commitment, parse_seed, shuffled_cards

HELP = "recompute a shoe's card order (and check its commitment) from its revealed seed"
ABOUT = """\
The algorithm is in docs/fairness.md; anyone may reimplement it from that page. Exit
status 1 when the seed's commitment is not the one given, 2 on a malformed seed."""

_CARDS_PER_LINE = 13


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's options."""
    parser.add_argument("--seed", required=True, help="the revealed seed, 64 hex digits")
    parser.add_argument(
        "--commitment", help="the commitment published before the shoe's first round, to check"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")


def _parse_commitment(text: str) -> str:
    t = text.strip().lower()
    if len(t) != 64 or any(ch not in "0123456789abcdef" for ch in t):
        raise InvalidInput("bad_commitment", "A commitment is 64 hex digits (a SHA-256 digest).")
    return t


def run(args: argparse.Namespace) -> int:
    """Print the commitment and the cards; exit 1 if the given commitment does not match."""
    try:
        seed = parse_seed(args.seed)
        expected = None if args.commitment is None else _parse_commitment(args.commitment)
    except BaccaratError as exc:
        _print_error(exc, as_json=args.json)
        return 2
    actual = commitment(seed)
    cards = [str(c) for c in shuffled_cards(seed)]
    matches = None if expected is None else expected == actual
    if args.json:
        _print_json(actual, cards, matches)
    else:
        _print_text(actual, cards)
    return _report_match(matches, actual, expected)


def _print_error(exc: BaccaratError, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"error": exc.to_dict()}))
    else:
        print(f"error: {exc.message}", file=sys.stderr)


def _print_json(actual: str, cards: list[str], matches: bool | None) -> None:
    out: dict[str, object] = {"commitment": actual, "cards": cards}
    if matches is not None:
        out["commitment_matches"] = matches
    print(json.dumps(out))


def _print_text(actual: str, cards: list[str]) -> None:
    print(f"commitment {actual}")
    print(f"{len(cards)} cards in dealing order (position of the first on each line):")
    for start in range(0, len(cards), _CARDS_PER_LINE):
        print(f"{start + 1:4d}  " + " ".join(cards[start : start + _CARDS_PER_LINE]))


def _report_match(matches: bool | None, actual: str, expected: str | None) -> int:
    """Say on stderr whether the commitment matched; the exit status."""
    if matches is False:
        print(
            f"MISMATCH: the seed's commitment is {actual}, not the published {expected}; "
            "this seed is not the one committed to.",
            file=sys.stderr,
        )
        return 1
    if matches:
        print("commitment matches: this is the shoe that was committed to.", file=sys.stderr)
    return 0

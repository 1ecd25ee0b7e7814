"""``baccarat history USER``: a user's rounds with their bets and results."""

from __future__ import annotations

import argparse
import json

from baccarat.commands.admin import add_db_option, run_with_store
from baccarat.store import RoundRecord, Store

HELP = "show a user's rounds: bets, cards, result and coin change"
ABOUT = "A user's rounds, newest first: table, shoe and round, bets, cards, winner, change."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The user's name, ``--limit``, ``--json`` and ``--db``."""
    parser.add_argument("user", metavar="USER", help="the username")
    parser.add_argument("--limit", type=int, default=50, help="newest rounds to show (50)")
    parser.add_argument("--json", action="store_true", help="print the rounds as JSON")
    add_db_option(parser)


def _line(r: RoundRecord, user_id: int) -> str:
    role = "dealer" if r.dealer_id == user_id else "bettor"
    bets = ", ".join(f"{b.area} {b.coins}" for b in r.bets if b.user_id == user_id) or "-"
    winner = (r.outcome or {}).get("winner", "-")
    cards = " ".join(r.cards or []) or "-"
    delta = r.deltas.get(user_id)
    change = f"{delta:+d}" if delta is not None else "-"
    return (
        f"{r.table_id}/{r.shoe_id} #{r.round_no:<3} {r.status:<8} {role:<6} "
        f"bets: {bets:<24} cards: {cards:<18} won: {winner:<6} change: {change}"
    )


def run(args: argparse.Namespace) -> int:
    """Print the user's newest rounds."""

    def show(store: Store) -> int:
        user = store.get_user_by_name(args.user)
        rounds = store.history(args.user, args.limit)
        if args.json:
            print(json.dumps({"user": user.to_dict(), "rounds": [r.to_dict() for r in rounds]}))
        else:
            print(f"{user.username}: {user.coins} coins, {len(rounds)} round(s)")
            for r in rounds:
                print("  " + _line(r, user.user_id))
        return 0

    return run_with_store(args, show, as_json=args.json)

"""``baccarat admin``: create users, grant coins, set levels and roles, ban, mute, list
users, read the operator log.

Every sub-command takes ``--db URL`` (default: the embedded SQLite file). A rejected
request (unknown user, name taken, bad amount) prints its code and reason and exits 2.
Every change is written to the operator log with the actor ``cli`` and its reason.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from baccarat.errors import BaccaratError, InvalidInput
from baccarat.store import Store, default_db_url, open_store
from baccarat.store.operators import ROLES

HELP = "manage accounts: create-user, grant, set-level, set-role, ban, unban, mute, users, log"


def add_db_option(parser: argparse.ArgumentParser) -> None:
    """The ``--db URL`` option every storage command takes."""
    parser.add_argument(
        "--db",
        metavar="URL",
        default=None,
        help=f"sqlite:///PATH or postgresql://USER@HOST/DB (default {default_db_url()})",
    )


def run_with_store(
    args: argparse.Namespace, action: Callable[[Store], int], *, as_json: bool = False
) -> int:
    """Open the store named by ``--db``, run ``action``, report a rejection with exit 2."""
    try:
        with open_store(args.db) as store:
            return action(store)
    except BaccaratError as err:
        if as_json:
            print(json.dumps({"error": err.to_dict()}))
        else:
            print(f"error [{err.code}]: {err.message}", file=sys.stderr)
        return 2


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The admin sub-commands."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = sub.add_parser("create-user", help="create an account (password read on stdin)")
    p.add_argument("name")
    p.add_argument("--password-stdin", action="store_true", required=True)
    p.add_argument("--level", type=_int, default=50)
    p.add_argument("--coins", type=_int, default=0)
    p.add_argument("--display-name", default=None)
    add_db_option(p)
    p = sub.add_parser("grant", help="give coins from the mint (negative: take back)")
    p.add_argument("name")
    p.add_argument("coins", type=_int)
    p.add_argument("--reason", required=True)
    add_db_option(p)
    p = sub.add_parser("set-level", help="set a user's level")
    p.add_argument("name")
    p.add_argument("level", type=_int)
    p.add_argument("--reason", default="set with baccarat admin")
    add_db_option(p)
    p = sub.add_parser("set-role", help="make a user a player, an operator or an admin")
    p.add_argument("name")
    p.add_argument("role", choices=ROLES)
    p.add_argument("--reason", required=True)
    add_db_option(p)
    for name, helptext in (("ban", "ban a user (sessions end, logins refused)"),
                           ("unban", "lift a ban")):  # fmt: skip
        p = sub.add_parser(name, help=helptext)
        p.add_argument("name")
        p.add_argument("--reason", required=True)
        add_db_option(p)
    p = sub.add_parser("mute", help="keep a user out of the chat (0 seconds: unmute)")
    p.add_argument("name")
    p.add_argument("seconds", type=_int)
    p.add_argument("--reason", required=True)
    add_db_option(p)
    p = sub.add_parser("log", help="the operator log, newest first")
    p.add_argument("--action", dest="only_action", default=None)
    p.add_argument("--user", default=None, help="only what was done to this user")
    p.add_argument("--limit", type=_int, default=50)
    p.add_argument("--json", action="store_true")
    add_db_option(p)
    p = sub.add_parser("users", help="list every user")
    p.add_argument("--json", action="store_true")
    add_db_option(p)


def _show(user: Any) -> str:
    return (
        f"{user.user_id:>5}  {user.username:<20} level {user.level:>3}  {user.coins:>12} coins"
        f"  ({user.display_name})"
    )


def run(args: argparse.Namespace) -> int:
    """Run one admin action."""

    def create(store: Store) -> int:
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            raise InvalidInput("bad_password", "Give the password on the first line of stdin.")
        user = store.create_user(
            args.name,
            password,
            display_name=args.display_name,
            level=args.level,
            coins=args.coins,
        )
        print(f"created {_show(user)}")
        return 0

    def grant(store: Store) -> int:
        balance = store.grant(args.name, args.coins, args.reason)
        print(f"{args.name} now has {balance} coins")
        return 0

    def set_level(store: Store) -> int:
        user = store.set_level_logged(store.user_id_of(args.name), args.level, args.reason)
        print(f"{user.username} is now level {user.level}")
        return 0

    def set_role(store: Store) -> int:
        user = store.set_role(store.user_id_of(args.name), args.role, args.reason)
        print(f"{user.username} is now {user.role}")
        return 0

    def ban(store: Store) -> int:
        user = store.ban(store.user_id_of(args.name), args.reason)
        print(f"{user.username} is banned: {user.banned}")
        return 0

    def unban(store: Store) -> int:
        user = store.unban(store.user_id_of(args.name), args.reason)
        print(f"{user.username} is no longer banned")
        return 0

    def mute(store: Store) -> int:
        user = store.mute(store.user_id_of(args.name), args.seconds, args.reason)
        print(f"{user.username} is muted for {args.seconds} s" if user.muted_until else
              f"{user.username} may chat again")  # fmt: skip
        return 0

    def log(store: Store) -> int:
        target = f"user:{store.user_id_of(args.user)}" if args.user else None
        entries = store.operator_log(action=args.only_action, target=target, limit=args.limit)
        if args.json:
            print(json.dumps([e.json() for e in entries]))
        for e in [] if args.json else entries:
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(e.at))
            print(f"{when}  {e.actor:<12} {e.action:<10} {e.target:<14} {e.reason}")
        return 0

    def users(store: Store) -> int:
        found = store.list_users()
        if args.json:
            print(json.dumps([u.to_dict() for u in found]))
        else:
            for u in found:
                print(_show(u))
        return 0

    actions: dict[str, Callable[[Store], int]] = {
        "create-user": create,
        "grant": grant,
        "set-level": set_level,
        "set-role": set_role,
        "ban": ban,
        "unban": unban,
        "mute": mute,
        "users": users,
        "log": log,
    }
    return run_with_store(args, actions[args.action], as_json=bool(getattr(args, "json", False)))

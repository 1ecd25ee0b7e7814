"""``baccarat admin``: create users, grant coins, set levels and roles, ban, mute, lift a
console lockout, decide grants waiting for approval, list users, read the operator log.

Every sub-command takes ``--db URL`` (default: the embedded SQLite file). A rejected
request (unknown user, name taken, bad amount) prints its code and reason and exits 2.
Every change is written to the operator log with the actor ``cli`` and its reason.

A change to a user or a grant acts through a running server when one runs (the servers
write where their console answers into the database): the command makes a one-minute
token in the database and posts the change to the console API, so the nodes learn of it at
once, as they do of the console's (a ban closes the user's sockets on every node; a grant a
seated dealer's book needs is refused with ``dealer_cannot_cover``). When no server answers,
it changes the database alone, and says so.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy.exc

from baccarat.errors import BaccaratError, InvalidInput
from baccarat.store import Store, open_store
from baccarat.store.opening import refusal
from baccarat.store.operators import CLI, ROLES, shown_actor

HELP = (
    "manage accounts: create-user, grant, set-level, set-role, ban, unban, mute, unlock, "
    "grants, approve, refuse, users, log"
)
ABOUT = """\
Every grant is a ledger transaction from the mint, and every change is written to the
append-only operator log with the actor cli and its reason. A change to a user or a grant
acts through a running server when one answers (its nodes learn of it at once: a ban closes
the user's sockets on every node); when none answers, it changes the database alone and
says so. A rejected request (unknown user, name taken, bad amount) prints its code and
reason and exits 2."""
POST_TIMEOUT = 10.0
"""Seconds to wait for a running server's answer."""


def add_db_option(parser: argparse.ArgumentParser) -> None:
    """The ``--db URL`` option every storage command takes."""
    parser.add_argument(
        "--db",
        metavar="URL",
        default=None,
        help="sqlite:///PATH or postgresql://USER@HOST/DB (default: $BACCARAT_DB, else "
        "baccarat/baccarat.db in the data directory, $XDG_DATA_HOME or ~/.local/share); it must "
        "exist",
    )


def run_with_store(
    args: argparse.Namespace, action: Callable[[Store], int], *, as_json: bool = False
) -> int:
    """Open the store named by ``--db`` (made only with ``--create``), run ``action``, report
    a rejection, or a database that cannot be opened or read, in one line with exit 2."""
    try:
        with open_store(args.db, create=bool(getattr(args, "create", False))) as store:
            try:
                return action(store)
            except sqlalchemy.exc.SQLAlchemyError as exc:
                raise refusal(store.engine, exc) from None
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


def _action(
    sub: Any, name: str, helptext: str, *, reason: bool | None = True, user: bool = True
) -> argparse.ArgumentParser:
    """One admin action's parser: the user it acts on, its ``--reason`` (required, optional
    or none) and ``--db``."""
    p: argparse.ArgumentParser = sub.add_parser(name, help=helptext)
    if user:
        p.add_argument("name", metavar="NAME", help="the account's username")
    if reason is not None:
        p.add_argument(
            "--reason",
            required=reason,
            default=None if reason else "set with baccarat admin",
            help="why, written to the operator log",
        )
    add_db_option(p)
    return p


def _json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The admin sub-commands."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = _action(sub, "create-user", "create an account (password read on stdin)", reason=None)
    p.add_argument(
        "--password-stdin",
        action="store_true",
        required=True,
        help="read the password from the first line of standard input",
    )
    p.add_argument("--level", type=_int, default=50, help="the account's level (default 50)")
    p.add_argument("--coins", type=_int, default=0, help="opening coins, from the mint")
    p.add_argument("--display-name", default=None, help="the name others see (default: NAME)")
    p.add_argument(
        "--create",
        action="store_true",
        help="make the database when there is none (the first account before the first serve)",
    )
    p = _action(sub, "grant", "give coins from the mint (negative: take back)")
    p.add_argument("coins", metavar="COINS", type=_int, help="whole coins; negative takes back")
    p = _action(sub, "set-level", "set a user's level", reason=False)
    p.add_argument("level", metavar="LEVEL", type=_int, help="the new level")
    p = _action(sub, "set-role", "make a user a player, an operator or an admin")
    p.add_argument("role", choices=ROLES, help="the new role")
    _action(sub, "ban", "ban a user (sessions end, logins refused)")
    _action(sub, "unban", "lift a ban")
    _action(sub, "unlock", "lift a console lockout after wrong codes")
    _json_option(_action(sub, "grants", "grants waiting for a second operator", reason=None,
                         user=False))  # fmt: skip
    for name, helptext in (("approve", "approve a waiting grant (its coins move)"),
                           ("refuse", "refuse a waiting grant")):  # fmt: skip
        p = _action(sub, name, helptext, user=False)
        p.add_argument("request_id", metavar="ID", type=_int, help="the request's number")
    p = _action(sub, "mute", "keep a user out of the chat (0 seconds: unmute)")
    p.add_argument("seconds", metavar="SECONDS", type=_int, help="how long; 0 lifts a mute")
    p = _action(sub, "log", "the operator log, newest first", reason=None, user=False)
    p.add_argument(
        "--action", dest="only_action", default=None, help="only this action (grant, ban, ...)"
    )
    p.add_argument("--user", default=None, help="only what was done to this user")
    p.add_argument("--limit", type=_int, default=50, help="newest entries to show (default 50)")
    _json_option(p)
    _json_option(_action(sub, "users", "list every user", reason=None, user=False))


def _show(user: Any) -> str:
    return (
        f"{user.user_id:>5}  {user.username:<20} level {user.level:>3}  {user.coins:>12} coins"
        f"  ({user.display_name})"
    )


@dataclass(frozen=True)
class _UserChange:
    """One change to a user: the console's path for it, the arguments its body carries
    beside the reason, the change in the database alone, and what is said after it."""

    path: str
    fields: tuple[str, ...]
    alone: Callable[[Store, int, argparse.Namespace], Any]
    said: Callable[[dict[str, Any], argparse.Namespace], str]


_USER_CHANGES: dict[str, _UserChange] = {
    "set-level": _UserChange(
        "level",
        ("level",),
        lambda store, uid, a: store.set_level_logged(uid, a.level, a.reason),
        lambda u, a: f"{u['username']} is now level {u['level']}",
    ),
    "set-role": _UserChange(
        "role",
        ("role",),
        lambda store, uid, a: store.set_role(uid, a.role, a.reason),
        lambda u, a: f"{u['username']} is now {u['role']}",
    ),
    "ban": _UserChange(
        "ban",
        (),
        lambda store, uid, a: store.ban(uid, a.reason),
        lambda u, a: f"{u['username']} is banned: {u['banned']}",
    ),
    "unban": _UserChange(
        "unban",
        (),
        lambda store, uid, a: store.unban(uid, a.reason),
        lambda u, a: f"{u['username']} is no longer banned",
    ),
    "unlock": _UserChange(
        "unlock",
        (),
        lambda store, uid, a: store.unlock_console(uid, a.reason),
        lambda u, a: f"{u['username']} may log in to the console again",
    ),
    "mute": _UserChange(
        "mute",
        ("seconds",),
        lambda store, uid, a: store.mute(uid, a.seconds, a.reason),
        lambda u, a: (
            f"{u['username']} is muted for {a.seconds} s"
            if u["muted_until"]
            else f"{u['username']} may chat again"
        ),
    ),
}
"""The changes to one user, by action: each acts through a running server when one answers."""


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
        uid = store.user_id_of(args.name)
        body = {"coins": args.coins, "reason": args.reason}
        got = _through_server(store, f"users/{uid}/grant", body)
        coins = store.grant(args.name, args.coins, args.reason) if got is None else None
        print(f"{args.name} now has {coins if got is None else got['user']['coins']} coins")
        return 0

    def change_user(store: Store) -> int:
        change = _USER_CHANGES[args.action]
        uid = store.user_id_of(args.name)
        body = {f: getattr(args, f) for f in change.fields} | {"reason": args.reason}
        user = _user(store, uid, change.path, body, lambda: change.alone(store, uid, args))
        print(change.said(user, args))
        return 0

    def grants(store: Store) -> int:
        waiting = store.grant_requests()
        if args.json:
            print(json.dumps([r.json() for r in waiting]))
        for r in [] if args.json else waiting:
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(r.created_at))
            asked = shown_actor(r.requested_by, r.requested_by_id)
            print(f"{r.id:>5}  {when}  {asked:<16} {r.username:<16} {r.coins:>12}"
                  f"  ({r.why}) {r.reason}")  # fmt: skip
        return 0

    def decide(store: Store) -> int:
        verb = args.action
        got = _through_server(store, f"grants/{args.request_id}/{verb}", {"reason": args.reason})
        if got is None and verb == "approve":
            store.approve_grant(CLI, args.request_id, args.reason)
        elif got is None:
            store.refuse_grant(CLI, args.request_id, args.reason)
        print(f"grant request {args.request_id} {verb}d")
        return 0

    def log(store: Store) -> int:
        target = f"user:{store.user_id_of(args.user)}" if args.user else None
        entries = store.operator_log(action=args.only_action, target=target, limit=args.limit)
        if args.json:
            print(json.dumps([e.json() for e in entries]))
        for e in [] if args.json else entries:
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(e.at))
            actor = shown_actor(e.actor, e.actor_id)
            print(f"{when}  {actor:<16} {e.action:<10} {e.target:<14} {e.reason}")
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
        **dict.fromkeys(_USER_CHANGES, change_user),
        "grants": grants,
        "approve": decide,
        "refuse": decide,
        "users": users,
        "log": log,
    }
    try:
        return run_with_store(
            args, actions[args.action], as_json=bool(getattr(args, "json", False))
        )
    except BrokenPipeError:
        # The reader went away (``baccarat admin log | head``): what it wanted it has.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


class Refused(BaccaratError):
    """A running server refused the change: its code and sentence."""


def _through_server(store: Store, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """Post a change to a running server's console API as ``cli``: its answer, or None when
    no server answers (said on stderr). A refusal raises it, as the store would."""
    urls = store.endpoints()
    if not urls:
        print("no server is running: the change is made in the database alone", file=sys.stderr)
        return None
    token = store.create_cli_token()
    for url in urls:
        try:
            return _post(f"{url.rstrip('/')}/api/admin/{path}", body, token)
        except (urllib.error.URLError, OSError) as exc:
            if isinstance(exc, urllib.error.HTTPError):
                raise
            print(f"the server at {url} does not answer ({exc})", file=sys.stderr)
    print("no running server answered: the change is made in the database alone", file=sys.stderr)
    return None


def _post(url: str, body: dict[str, Any], token: str) -> dict[str, Any]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Console-CLI {token}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=POST_TIMEOUT) as resp:
            answer: dict[str, Any] = json.load(resp)
    except urllib.error.HTTPError as exc:
        with exc:
            error = json.load(exc).get("error", {})
        raise Refused(str(error.get("code", "refused")), str(error.get("message", ""))) from None
    print(f"done through the server at {url.split('/api/')[0]}", file=sys.stderr)
    return answer


def _user(
    store: Store, user_id: int, what: str, body: dict[str, Any], alone: Callable[[], Any]
) -> dict[str, Any]:
    """Change a user through a running server, or (none answering) in the database alone;
    the user after it, as the console shows them."""
    got = _through_server(store, f"users/{user_id}/{what}", body)
    if got is not None:
        user: dict[str, Any] = got["user"]
        return user
    changed = alone()
    return {
        "username": changed.username, "level": changed.level, "role": changed.role,
        "banned": changed.banned, "muted_until": changed.muted_until,
    }  # fmt: skip

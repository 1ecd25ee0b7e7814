"""Bots whose coins the platform keeps: each launched by the platform stand-in's token, then
playing as ``baccarat bots`` plays (which logs in by password, as the platform's users
cannot).

    python tests/cluster/platformcrew.py --url URL --platform URL --table t3 --users p1,p2,p3

Each user gets a launch token from the stand-in's sandbox (``/admin/token``), opens
``URL/launch?token=...`` and plays with the session that sets, at ``--table``, until SIGTERM;
the bots log JSON lines to stderr as ``baccarat bots`` does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import sys
import urllib.error
import urllib.request
from http.cookies import SimpleCookie
from urllib.parse import urlencode

from baccarat.bots import Bot, BotPlan, run_bots
from baccarat.logs import setup_logging


class _Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object) -> None:
        return None


def session(url: str, platform: str, user: str) -> str:
    """The game's session of ``user``, launched by a token of the platform's."""
    body = json.dumps({"user": user, "lang": "zh-TW"}).encode()
    req = urllib.request.Request(f"{platform}/admin/token", body, method="POST")
    with urllib.request.urlopen(req, timeout=10) as answer:
        token = json.load(answer)["token"]
    opener = urllib.request.build_opener(_Stay)
    try:
        answer = opener.open(f"{url}/launch?{urlencode({'token': token})}", timeout=10)
    except urllib.error.HTTPError as moved:  # a redirect, with its cookie
        answer = moved
    with answer:
        cookie: SimpleCookie = SimpleCookie(answer.headers["Set-Cookie"])
    return cookie["baccarat_session"].value


async def play(args: argparse.Namespace) -> None:
    """Launch every user and play until SIGTERM."""
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    bots = []
    for i, user in enumerate(args.users.split(",")):
        token = await asyncio.to_thread(session, args.url, args.platform, user)
        bot = Bot(args.url, token, BotPlan("flat", args.table, may_deal=True), rng=random.Random(i))
        bot.route.remember(args.other_node)
        bots.append(bot)
    await run_bots(bots, stop)


def main() -> int:
    """Parse the arguments and play."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--platform", required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--users", required=True)
    parser.add_argument("--other-node", action="append", default=[])
    args = parser.parse_args()
    setup_logging("info")
    asyncio.run(play(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())

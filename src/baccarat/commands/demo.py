"""Demo mode: demo accounts, and bots that keep tables of every room busy over a real socket.

A newcomer lands in a lobby with play to watch, and something to do at once: in every room
the first table has a bot dealing and bots betting, with bettor seats free; at the second
Standard table bots bet and the dealer seat is free. Bots go by Chinese nicknames (the
client's default language) and chat in Chinese.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass, field

from baccarat.bots import Bot, BotPlan, run_bots
from baccarat.errors import InvalidInput, NotFound
from baccarat.server.config import RoomsConfig
from baccarat.store import Store

log = logging.getLogger("baccarat.demo")
BOTS_LOG = logging.getLogger("baccarat.bots")

DEMO_PASSWORD = "baccarat"
DEMO_USERS: tuple[tuple[str, int], ...] = (
    ("demo1", 500_000),
    ("demo2", 500_000),
    ("demo3", 500_000),
    ("dealer", 2_000_000),
)
"""People's demo accounts and their opening coins (enough to deal at Standard and High)."""


NICKNAMES: tuple[str, ...] = (
    "阿豪",
    "小美",
    "發哥",
    "旺財",
    "龍哥",
    "金妹",
    "阿明",
    "大師兄",
    "小龍女",
    "賭神",
    "阿珍",
    "好運來",
    "老王",
    "莎莎",
    "阿傑",
    "財神爺",
)
"""The bots' display names, in the order they are handed out."""

BETTORS_PER_TABLE = 3


@dataclass
class DemoBot:
    """One demo bot's account and plan."""

    name: str
    plan: BotPlan
    coins: int = 1_000_000
    nickname: str | None = None


@dataclass
class Demo:
    """The running demo bots."""

    bots: list[Bot] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    async def close(self) -> None:
        """Stop every bot and wait for them to leave, quietly: a bot's word on its own
        leaving (a socket it closed, a node that stops) is nothing the person stopping the
        demo needs to read."""
        self.stop.set()
        try:
            if self.task is not None:
                await asyncio.wait_for(self.task, 10.0)
        finally:
            BOTS_LOG.removeFilter(self.quiet)
        log.info("demo bots stopped", extra={"bots": len(self.bots)})

    def quiet(self, record: logging.LogRecord) -> bool:
        """Once the demo stops, only a bot's warnings and errors are logged."""
        return record.levelno >= logging.WARNING or not self.stop.is_set()


def demo_layout(config: RoomsConfig) -> list[DemoBot]:
    """Which bots play where, from the configured tables."""
    out: list[DemoBot] = []
    strategies = ("flat", "streak", "random")

    def bettors(table: str) -> None:
        for i in range(1, BETTORS_PER_TABLE + 1):
            plan = BotPlan(strategies[(len(out) + i) % 3], table, seat=i, may_deal=False)
            out.append(DemoBot(f"bot-{table}-{i}", plan))

    for n, room in enumerate(config.rooms, start=1):
        if not room.table_ids:
            continue
        # A bot deals and bots bet; four bettor seats stay free for people.
        first = room.table_ids[0]
        out.append(DemoBot(f"bot-dealer-{n}", BotPlan("flat", first, seat=0)))
        bettors(first)
    standard = config.rooms[0].table_ids if config.rooms else ()
    if len(standard) > 1:
        # Bots bet; the dealer seat stays free for a person.
        bettors(standard[1])
    for i, bot in enumerate(out):
        bot.nickname = NICKNAMES[i] if i < len(NICKNAMES) else None
        # A dealer books every bet of its table: enough to stay above the richest room's floor.
        if bot.plan.seat == 0:
            bot.coins = max(bot.coins, 4 * max(r.dealer_floor for r in config.rooms))
    return out


def ensure_accounts(store: Store, bots: list[DemoBot]) -> list[tuple[str, str]]:
    """Create the demo people and bots if missing; return the people's (name, password)."""
    for name, coins in DEMO_USERS:
        _ensure(store, name, coins, DEMO_PASSWORD)
    for bot in bots:
        _ensure(store, bot.name, bot.coins, DEMO_PASSWORD, bot.nickname)
    return [(name, DEMO_PASSWORD) for name, _ in DEMO_USERS]


def _ensure(
    store: Store, name: str, coins: int, password: str, nickname: str | None = None
) -> None:
    try:
        user = store.get_user_by_name(name)
    except NotFound:
        try:
            store.create_user(name, password, display_name=nickname, level=60, coins=coins)
        except InvalidInput as exc:
            if exc.code != "display_name_taken":
                raise
            # Someone chose that nickname first: the bot goes by its username.
            store.create_user(name, password, level=60, coins=coins)
        return
    if user.coins < coins // 2:
        # Keep the demo playable after long sessions: top the account back up.
        store.grant(name, coins - user.coins, "demo top-up")


async def start_demo(base_url: str, store: Store, config: RoomsConfig) -> Demo:
    """Start the demo bots against the server at ``base_url``."""
    layout = demo_layout(config)
    demo = Demo()
    for i, spec in enumerate(layout):
        user = await asyncio.to_thread(store.get_user_by_name, spec.name)
        token = await asyncio.to_thread(store.create_session, user.user_id)
        demo.bots.append(Bot(base_url, token, spec.plan, rng=random.Random(i)))
    BOTS_LOG.addFilter(demo.quiet)
    demo.task = asyncio.create_task(run_bots(demo.bots, demo.stop))
    return demo

"""Demo mode: demo accounts, and bots that keep a few tables busy over a real socket.

The layout leaves one person something to do at once: at the first Standard table a bot
deals and bettor seats are free; at the second, bots bet and the dealer seat is free.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field

from baccarat.bots import Bot, BotPlan, run_bots
from baccarat.errors import NotFound
from baccarat.server.config import RoomsConfig
from baccarat.store import Store

DEMO_PASSWORD = "baccarat"
DEMO_USERS: tuple[tuple[str, int], ...] = (
    ("demo1", 500_000),
    ("demo2", 500_000),
    ("demo3", 500_000),
    ("dealer", 2_000_000),
)
"""People's demo accounts and their opening coins (enough to deal at Standard and High)."""


@dataclass
class DemoBot:
    """One demo bot's account and plan."""

    name: str
    plan: BotPlan
    coins: int = 1_000_000


@dataclass
class Demo:
    """The running demo bots."""

    bots: list[Bot] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    async def close(self) -> None:
        """Stop every bot and wait for them to leave."""
        self.stop.set()
        if self.task is not None:
            await asyncio.wait_for(self.task, 10.0)


def demo_layout(config: RoomsConfig) -> list[DemoBot]:
    """Which bots play where, from the configured tables."""
    tables = [t for r in config.rooms for t in r.table_ids]
    out: list[DemoBot] = []
    if tables:
        # A bot deals; four bettor seats stay free for people.
        first = tables[0]
        out.append(DemoBot("bot-dealer-1", BotPlan("flat", first, seat=0)))
        for i, strategy in enumerate(("flat", "streak", "random"), start=1):
            out.append(
                DemoBot(f"bot-{first}-{i}", BotPlan(strategy, first, seat=i, may_deal=False))
            )
    if len(tables) > 1:
        # Bots bet; the dealer seat stays free for a person.
        second = tables[1]
        for i, strategy in enumerate(("random", "streak", "flat"), start=1):
            out.append(
                DemoBot(f"bot-{second}-{i}", BotPlan(strategy, second, seat=i, may_deal=False))
            )
    return out


def ensure_accounts(store: Store, bots: list[DemoBot]) -> list[tuple[str, str]]:
    """Create the demo people and bots if missing; return the people's (name, password)."""
    for name, coins in DEMO_USERS:
        _ensure(store, name, coins, DEMO_PASSWORD)
    for bot in bots:
        _ensure(store, bot.name, bot.coins, DEMO_PASSWORD)
    return [(name, DEMO_PASSWORD) for name, _ in DEMO_USERS]


def _ensure(store: Store, name: str, coins: int, password: str) -> None:
    try:
        user = store.get_user_by_name(name)
    except NotFound:
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
    demo.task = asyncio.create_task(run_bots(demo.bots, demo.stop))
    return demo

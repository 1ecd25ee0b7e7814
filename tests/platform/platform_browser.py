"""What the platform's browser tests share: a page, its screenshots, the table's test hold,
and a dealer seated through the protocol's client."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from platform_support import Stack

from baccarat.client import Client
from baccarat.store import open_store
from e2e.e2e_support import (
    SCREENSHOTS,
    Server,
    hold,
    place_chip,
    played_to,
    sit,
    table_state,
)
from serving import wait_until


def page_of(browser: Any, viewport: dict[str, int], phone: bool, lang: str) -> Any:
    ctx = browser.new_context(
        viewport=viewport, is_mobile=phone, has_touch=phone, locale=lang,
        reduced_motion="reduce", service_workers="block",
    )  # fmt: skip
    return ctx.new_page()


def shot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def coins(page: Any, selector: str) -> int:
    return int(page.inner_text(selector).replace(",", ""))


class Dealer:
    """A dealer seated at t1 through the protocol's client, in a thread of its own (the
    browser's sync API holds this thread's event loop)."""

    def __init__(self, stack: Stack, *, fund: bool) -> None:
        session = stack.session("u1002")
        if fund:  # with the transfer wallet, the dealer's coins move into the game first
            moved = stack.admin("/admin/transfer", {"user": "u1002", "amount": 100_000})
            assert moved["status"] == "done", moved
        self._seated, self._leave = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=asyncio.run, args=(self._run(stack, session),))
        self._thread.start()
        assert self._seated.wait(30), "the dealer did not sit"

    async def _run(self, stack: Stack, session: str) -> None:
        dealer = await Client.connect(stack.game, session)
        try:
            await dealer.sit("t1", 0)
            self._seated.set()
            await asyncio.to_thread(self._leave.wait, 300)
            await dealer.stand()
        finally:
            await dealer.close()

    def leave(self) -> None:
        self._leave.set()
        self._thread.join(30)


def round_result(stack: Stack, user_id: int) -> int:
    with open_store(stack.db) as store, store.engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT delta FROM round_results WHERE user_id = :u"), {"u": user_id}
        ).all()
    assert len(rows) == 1, rows
    return int(rows[0][0])


def bet_a_round(stack: Stack, page: Any, dealer: Dealer, user_id: int, picture: str) -> int:
    """The page's player sits at t1 (``dealer`` deals), stakes 1,000 on Player while the
    betting is held, and has the round played out at once; the round's result for ``user_id``."""
    return bet_a_round_in(stack, page, page, dealer, user_id, picture)


def bet_a_round_in(
    stack: Stack,
    page: Any,
    game_frame: Any,
    dealer: Dealer,
    user_id: int,
    picture: str,
    seat: int = 1,
) -> int:
    """As :func:`bet_a_round`, the game in ``game_frame`` (the page, or a frame of it), at
    ``seat``."""
    game = Server(stack.game, stack.db, stack.serve.proc)
    hold(game, "t1", "betting")
    sit(game_frame, "t1", seat)
    wait_until(lambda: table_state(game, "t1")["phase"] == "betting", "betting")
    assert place_chip(game_frame, 10, "player") == "ok"
    shot(page, picture)
    # The rest of the round is played at once, each phase ended as it comes.
    played_to(game, "t1", "result")
    hold(game, "t1", None)
    dealer.leave()
    return round_result(stack, user_id)

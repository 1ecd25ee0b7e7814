"""The view reducer: a viewer's view folded over the events it receives is the table's view.

A hypothesis state machine plays random commands and timers on one table, from random users
(one below the room's level) and on a random shoe: the invariants of ``table_model`` hold
after every step (coins neither made nor lost, table and ledger agree, limits, no card seen
before its time), every round closed settles once in the end, and, a failure shrinks to a
short sequence of commands. After each step, for every viewer kind (the
dealer, each bettor, a controller, a spectator, a user who left), it checks that
``apply`` over the events that viewer received turns the view before the step into the view
after it: exactly, at the step's time, and also as a client that never took a snapshot
after its first one keeps it (the time left aside, which a client counts down itself).
"""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from table_model import AREAS, CHIPS, CORNERS, Model

from baccarat.protocol.events import event_wire
from baccarat.protocol.view import view
from baccarat.table import (
    ClearBets,
    Command,
    Disconnect,
    Double,
    Emote,
    JoinQueue,
    LeaveQueue,
    OpenCard,
    PlaceChip,
    Rebet,
    Reconnect,
    Say,
    SetAutoOpen,
    SetCoins,
    Sit,
    SqueezeProgress,
    StandUp,
    TableConfig,
    Undo,
    Unstake,
    Urge,
    UserInfo,
    rebet,
)
from baccarat.table.events import Event, recipient
from baccarat.table.reducer import EVENTS, apply
from baccarat.table.squeeze import Corner
from baccarat.table.view import book_kept, personal

WALLETS = {
    1: 40_000,
    2: 50_000,
    3: 100_000,
    4: 1_500,
    5: 2_500,
    6: 20_000,
    7: 100_000,
    8: 1_000,
    9: 100_000,
}
"""Some near the floors, so that settlements push them out; user 9 is below the level."""
USERS = list(WALLETS)
VIEWERS: list[int | None] = [None, *USERS]
"""A spectator who never sits, and every user (dealer, bettors, controllers, leavers)."""

TIMES = (0.5, 1.0, 3.0, 5.0, 11.0, 16.0, 40.0)
OTHERS = st.one_of(st.none(), st.sampled_from(USERS))
"""Who peels or opens the card under squeeze: its controller (None), or anyone."""


def received(events: list[Event], viewer: int | None, now: float) -> list[tuple[str, Any]]:
    """What ``viewer`` is sent of ``events``: every public event and its own private ones."""
    out: list[tuple[str, Any]] = []
    for ev in events:
        to = recipient(ev)
        if to is None or to == viewer:
            out.append(event_wire(ev, now))
    return out


def fold(start: dict[str, Any], frames: list[tuple[str, Any]]) -> dict[str, Any]:
    """``start`` with every frame applied in order."""
    current = start
    for kind, data in frames:
        assert kind in EVENTS, f"the reducer does not know {kind}"
        current = apply(current, kind, data)
    return current


def timeless(v: dict[str, Any]) -> dict[str, Any]:
    """A view without the time left, which a client counts down itself."""
    return {k: val for k, val in v.items() if k != "remaining_ms"}


class TableReducer(RuleBasedStateMachine):
    """Random play; the reducer checked for every viewer after every step."""

    m: Model
    kept: dict[int | None, dict[str, Any]]
    """Each viewer's view as a client keeps it: one snapshot, then events only."""
    sent: dict[int | None, dict[str, Any] | None]
    """The last ``me`` each viewer was told, as the server remembers it."""

    @initialize(
        shoe=st.integers(0, 2**32 - 1),
        dealer=st.sampled_from(USERS),
        bettors=st.lists(st.sampled_from(USERS)),
    )
    def seat_some(self, shoe: int, dealer: int, bettors: list[int]) -> None:
        config = TableConfig(
            "t", rounds_per_shoe=3, reconnect_grace_seconds=30.0, dealer_floor=3_000
        )
        self.m = Model(config, WALLETS, shoe_seed=shoe)
        self.kept = {v: view(self.m.table, v, self.m.now) for v in VIEWERS}
        self.sent = {v: personal(self.m.table, v, self.m.now) for v in VIEWERS}
        self.step(lambda: self.m.sit(dealer, 0))
        for seat, uid in enumerate(bettors[:7], start=1):
            self.step(lambda uid=uid, seat=seat: self.m.sit(uid, seat))  # type: ignore[misc]

    # -- checking ---------------------------------------------------------------------

    def step(self, act: Any, seconds: float = 0.0) -> None:
        """Let ``seconds`` pass, run one command or the timers; check every viewer's reducer."""
        table = self.m.table
        self.m.now += seconds
        now = self.m.now
        before = {v: view(table, v, now) for v in VIEWERS}
        events: list[Event] = act()
        for v in VIEWERS:
            frames = received(events, v, now)
            own = personal(table, v, now)
            after = view(table, v, now)
            # Exactly: the view before the step, at the step's time, and what was sent.
            start = before[v]
            step_frames = [*frames]
            # A dealer's client adds the chips to its book itself: no ``me`` for them.
            book_only = own["me"]["role"] == "dealer" and book_kept(events)
            if own != {"me": start["me"], "book": start["book"]} and not book_only:
                step_frames.append(("me", own))
            assert fold(start, step_frames) == after, (v, [k for k, _ in step_frames])
            # As a client keeps it: the server sends ``me`` when it differs from the last one
            # (forgotten after a step of chips, as the dealer's book is no longer it).
            kept_frames = [*frames]
            if book_only:
                self.sent[v] = None
            elif own != self.sent[v]:
                kept_frames.append(("me", own))
                self.sent[v] = own
            self.kept[v] = fold(self.kept[v], kept_frames)
            assert timeless(self.kept[v]) == timeless(after), (v, [k for k, _ in kept_frames])

    @invariant()
    def bet_flags_agree_with_the_rule_checks(self) -> None:
        # ``me`` skips the checks when betting is not open to the user: it must agree with
        # asking each rule check itself.
        table, now = self.m.table, self.m.now
        for v in VIEWERS:
            me = personal(table, v, now)["me"]
            if me["role"] != "bettor":
                continue
            asked = {
                "can_bet": any(table.can_bet(v, a, CHIPS[0], now) for a in AREAS),
                "can_rebet": rebet.can_rebet(table, v, now),
                "can_double": rebet.can_double(table, v, now),
                "can_undo": rebet.can_undo(table, v, now),
            }
            assert {k: me[k] for k in asked} == asked, v

    @invariant()
    def rounds_settle_once(self) -> None:
        assert all(n == 1 for n in self.m.settled.values())

    # -- commands ---------------------------------------------------------------------

    def command(self, cmd: Command) -> None:
        self.step(lambda: self.m.do(cmd))

    @rule(uid=st.sampled_from(USERS), seat=st.integers(-1, 8))
    def sit(self, uid: int, seat: int) -> None:
        info = UserInfo(uid, f"u{uid}", self.m.levels[uid], self.m.wallets[uid])
        self.command(Sit(uid, info, seat))

    @rule(uid=st.sampled_from(USERS))
    def stand(self, uid: int) -> None:
        self.command(StandUp(uid))

    @rule(uid=st.sampled_from(USERS), area=st.sampled_from(AREAS), chip=st.sampled_from(CHIPS))
    def bet(self, uid: int, area: str, chip: int) -> None:
        self.command(PlaceChip(uid, area, chip))

    @rule(uid=st.sampled_from(USERS), kind=st.sampled_from((ClearBets, Rebet, Double, Undo)))
    def change_bets(self, uid: int, kind: type[ClearBets | Rebet | Double | Undo]) -> None:
        self.command(kind(uid))

    @rule(uid=st.sampled_from(USERS), join=st.booleans())
    def dealer_queue(self, uid: int, join: bool) -> None:
        info = UserInfo(uid, f"u{uid}", self.m.levels[uid], self.m.wallets[uid])
        self.command(JoinQueue(uid, info) if join else LeaveQueue(uid))

    @rule(uid=st.sampled_from(USERS), text=st.sampled_from(("莊連!", "  good  luck ", "")))
    def say(self, uid: int, text: str) -> None:
        self.command(Say(uid, text))

    @rule(uid=st.sampled_from(USERS), name=st.sampled_from(("clap", "fire", "rocket")))
    def emote(self, uid: int, name: str) -> None:
        self.command(Emote(uid, name))

    @rule(uid=st.sampled_from(USERS), on=st.booleans())
    def auto_open(self, uid: int, on: bool) -> None:
        self.command(SetAutoOpen(uid, on))

    @rule(uid=st.sampled_from(USERS))
    def urge(self, uid: int) -> None:
        self.command(Urge(uid))

    @rule(
        progress=st.sampled_from((0.0, 0.3, 0.7, 1.0)),
        corner=st.sampled_from(CORNERS),
        other=OTHERS,
    )
    def peel(self, progress: float, corner: Corner, other: int | None) -> None:
        rnd = self.m.table.round
        if rnd is not None and rnd.squeeze is not None:
            sq = rnd.squeeze
            who = sq.controller if other is None else other
            self.command(SqueezeProgress(who, sq.hand, progress, corner))

    @rule(other=OTHERS)
    def open_card(self, other: int | None) -> None:
        rnd = self.m.table.round
        if rnd is not None and rnd.squeeze is not None:
            who = rnd.squeeze.controller if other is None else other
            self.command(OpenCard(who, rnd.squeeze.hand))

    @rule(uid=st.sampled_from(USERS), back=st.booleans())
    def connection(self, uid: int, back: bool) -> None:
        self.command(Reconnect(uid) if back else Disconnect(uid))

    @rule(uid=st.sampled_from(USERS), coins=st.sampled_from((900, 5_000, 100_000)))
    def grant(self, uid: int, coins: int) -> None:
        if self.m.table.occupant(uid) is not None:
            self.command(SetCoins(uid, coins))

    @rule(uid=st.sampled_from(USERS))
    def not_debited(self, uid: int) -> None:
        # The platform's wallet did not give a bettor's stakes at the close.
        rnd = self.m.table.round
        self.command(Unstake(rnd.round_id if rnd is not None else "none", uid))

    @rule(seconds=st.sampled_from(TIMES))
    def wait(self, seconds: float) -> None:
        def advance() -> list[Event]:
            events = self.m.table.advance(self.m.now)
            self.m.absorb(events)
            return events

        self.step(advance, seconds)

    def teardown(self) -> None:
        # Every round whose stakes went into escrow settles once, however play stopped.
        if hasattr(self, "m"):
            self.m.finish()


TableReducer.TestCase.settings = settings(max_examples=60, stateful_step_count=60, deadline=None)
test_the_view_follows_from_the_events_for_every_viewer = TableReducer.TestCase

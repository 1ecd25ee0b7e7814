"""A driver that plays a table the way the server does, checking the table's invariants.

It keeps its own ledger from the events alone (stakes out at ``betting_closed``, stakes
plus deltas back at ``round_settled``), as the store does, and after every step checks:
coins conserved to the coin, no balance below zero, limits kept, no card named before it is
dealt, a face-down card named only while it is squeezed (to every viewer alike), nothing of
the undealt shoe anywhere, every round settled exactly once; and that what the server skips
looking at after some steps (everyone's ``me``, the seats, the lobby line) did not change.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from baccarat.bets import AREAS, CHIPS, LIMITS
from baccarat.cards import deck
from baccarat.errors import BaccaratError
from baccarat.protocol.events import event_data
from baccarat.protocol.view import view
from baccarat.server.tables import facts
from baccarat.shoe import Shoe
from baccarat.table import (
    ClearBets,
    Command,
    Disconnect,
    Double,
    OpenCard,
    PlaceChip,
    Rebet,
    Reconnect,
    SetCoins,
    Sit,
    SqueezeProgress,
    StandUp,
    Table,
    TableConfig,
    Undo,
    Unstake,
    Urge,
    UserInfo,
)
from baccarat.table.events import (
    BettingClosed,
    Event,
    RoundSettled,
    SeatFreed,
    SqueezeStarted,
    StakesReturned,
    recipient,
)
from baccarat.table.squeeze import CORNERS
from baccarat.table.view import PERSONAL_UNCHANGED, personal, personal_key, personal_keys

E = TypeVar("E")


class Model:
    """One table, its users' store balances, and the checks."""

    def __init__(
        self,
        config: TableConfig,
        wallets: dict[int, int],
        shoe_seed: int = 0,
        shoe_factory: Callable[[], Shoe] | None = None,
    ) -> None:
        rng = random.Random(shoe_seed)

        self.shoes: dict[int, list[str]] = {}
        """Each one-deck shoe's order, to check that its undealt cards stay unknown."""

        def one_deck_shoe() -> Shoe:
            # One deck: every card in a shoe is unique, so a card's notation names it.
            cards = deck()
            rng.shuffle(cards)
            shoe = Shoe(cards, seed=rng.randbytes(32))
            self.shoes[id(shoe)] = [str(c) for c in cards]
            return shoe

        self.table = Table(config, shoe_factory or one_deck_shoe)
        self.unique_cards = shoe_factory is None
        """With one-deck shoes a card's notation names one card, so a plain search finds it."""
        self.now = 0.0
        self.wallets = dict(wallets)
        self.levels = {uid: 49 if uid % 9 == 0 else 50 + uid for uid in wallets}
        self.house = 0
        self.grants = 0
        self.escrow: dict[str, int] = {}
        self.total = sum(wallets.values())
        self.settled: Counter[str] = Counter()
        self.closed: list[str] = []
        self.rejections: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()
        self.log: list[Event] = []
        self.keys: dict[int, tuple[Any, Any]] = {}
        """Each bettor's last ``personal_key`` and the ``personal`` it stood for."""
        self.before: Any = self.skippable()
        """What the server skips looking at after some steps, as it stood after the last."""

    # -- acting ---------------------------------------------------------------------

    def do(self, command: Command) -> list[Event]:
        """Hand a command to the table; a refusal is counted and must change nothing."""
        before = self.snapshot()
        try:
            events = self.table.handle(command, self.now)
        except BaccaratError as err:
            assert err.code and err.message
            self.rejections[err.code] += 1
            assert self.snapshot() == before, f"refused {command} changed the table"
            return []
        if isinstance(command, SetCoins):
            self.grants += command.coins - self.wallets[command.user_id]
            self.wallets[command.user_id] = command.coins
        self.absorb(events)
        return events

    def advance(self, seconds: float) -> list[Event]:
        """Let time pass and fire what is due."""
        self.now += seconds
        events = self.table.advance(self.now)
        self.absorb(events)
        return events

    def sit(self, uid: int, seat: int) -> list[Event]:
        """Seat a user with their store balance, as the server does."""
        info = UserInfo(uid, f"u{uid}", self.levels[uid], self.wallets[uid])
        return self.do(Sit(uid, info, seat))

    def absorb(self, events: list[Event]) -> None:
        """Keep the ledger from the events, as the store would."""
        self.log += events
        for ev in events:
            self.kinds[ev.kind] += 1
            match ev:
                case BettingClosed(round_id=rid, bets=bets):
                    for bet in bets:
                        self.wallets[bet.user_id] -= bet.coins
                    self.escrow[rid] = sum(bet.coins for bet in bets)
                    self.closed.append(rid)
                case StakesReturned(round_id=rid, user_id=uid, coins=coins):
                    self.wallets[uid] += coins
                    self.escrow[rid] -= coins
                case RoundSettled(round_id=rid, bets=bets, settlement=s):
                    self.settled[rid] += 1
                    for bet in bets:
                        self.wallets[bet.user_id] += bet.coins
                    for uid, delta in s.deltas.items():
                        self.wallets[uid] += delta
                    self.house += s.house
                    del self.escrow[rid]
        self.check(events)

    def skippable(self) -> Any:
        """Everyone's ``personal``, the seats and the lobby line's key: what the server does
        not look at after a step made only of events that leave them alone."""
        personals = {uid: personal(self.table, uid, self.now) for uid in self.wallets}
        return personals, facts.seated(self.table), facts.line_key(self.table)

    def snapshot(self) -> Any:
        """What every viewer sees, plus the next deadline."""
        viewers = [None, *(o.user_id for o in self.table.seats if o is not None)]
        return [self.table.next_deadline, *(view(self.table, v, self.now) for v in viewers)]

    def last(self, kind: type[E]) -> E:
        """The latest event of one class."""
        return next(e for e in reversed(self.log) if isinstance(e, kind))

    def freed(self) -> Counter[str]:
        """How often seats were freed, by reason."""
        return Counter(e.reason for e in self.log if isinstance(e, SeatFreed))

    # -- checking -------------------------------------------------------------------

    def check(self, events: list[Event]) -> None:
        """Every invariant, after one step."""
        table = self.table
        cfg = table.config
        assert sum(self.wallets.values()) + self.house + sum(self.escrow.values()) == (
            self.total + self.grants
        ), "coins were created or lost"
        assert all(v >= 0 for v in self.wallets.values()), self.wallets
        for occ in table.seats:
            if occ is not None:
                assert occ.coins == self.wallets[occ.user_id], "table and ledger disagree"
                assert occ.coins >= 0
        assert all(n == 1 for n in self.settled.values()), "a round settled twice"
        rnd = table.round
        if rnd is not None:
            for bettor in rnd.bettors.values():
                slip = bettor.slip
                assert all(slip.get(a, 0) <= LIMITS[a] for a in AREAS), slip
                assert not (slip.get("player") and slip.get("banker")), slip
                if not rnd.closed:
                    occ = table.occupant(bettor.user_id)
                    assert occ is not None
                    assert sum(slip.values()) * cfg.chip_unit <= occ.coins
            if rnd.closed and not rnd.settled and table.dealer is not None:
                # Bets taken back may uncover the book while betting is open; it never closes so.
                assert rnd.liability(cfg.chip_unit) <= table.dealer.coins
            self.check_privacy(events)
        self.check_personal_keys()
        self.check_skipped(events)

    def check_skipped(self, events: list[Event]) -> None:
        """A step made only of ``PERSONAL_UNCHANGED`` events changed nobody's ``personal``;
        one made only of ``SEATS_UNCHANGED`` events changed neither the seats nor the line."""
        # Against the last step's (what the server last sent), whatever time passed since.
        now = self.skippable()
        personals, seated, line = now
        kinds = {type(ev) for ev in events}
        if kinds and kinds <= PERSONAL_UNCHANGED:
            assert personals == self.before[0], f"{kinds} changed a me"
        if kinds and kinds <= facts.SEATS_UNCHANGED:
            assert (seated, line) == self.before[1:], f"{kinds} changed the seats or the line"
        self.before = now

    def check_personal_keys(self) -> None:
        """Equal ``personal_key``s of a user mean equal ``me``s (the server skips the
        rebuild then), whatever happened between them."""
        keys = personal_keys(self.table, list(self.wallets), self.now)
        for uid in self.wallets:
            key = keys[uid]
            # Everyone's at once (as the server asks) is each user's alone.
            assert key == personal_key(self.table, uid, self.now)
            if key is None:
                self.keys.pop(uid, None)
                continue
            own = personal(self.table, uid, self.now)
            seen = self.keys.get(uid)
            if seen is not None and seen[0] == key:
                assert own == seen[1], f"user {uid}'s me changed under the same key {key}"
            self.keys[uid] = (key, own)

    def check_privacy(self, events: list[Event]) -> None:
        """No card is named before it is dealt and betting closed; a face-down card is named
        only while it is squeezed, and then to every viewer alike; the undealt shoe never."""
        rnd = self.table.round
        assert rnd is not None
        sq = rnd.squeeze
        peeled = (sq.hand, sq.position) if sq is not None else None
        sent = [event_data(ev, self.now) for ev in events]
        for ev, data in zip(events, sent, strict=True):
            if "card" in data and "position" in data:
                ref = (data["hand"], data["position"])
                if data.get("round_id") == rnd.round_id and ref in rnd.face_down:
                    assert isinstance(ev, SqueezeStarted) and ref == peeled, (
                        f"{ev.kind} names face-down {ref} outside its squeeze"
                    )
                    assert recipient(ev) is None, "the squeezed card goes to every viewer"
        viewers = [None, *(o.user_id for o in self.table.seats if o is not None)]
        seen = {viewer: view(self.table, viewer, self.now) for viewer in viewers}
        for viewer, v in seen.items():
            if not rnd.closed:
                assert v["hands"] == {"player": [], "banker": []}, "a card before the close"
            assert v["hands"] == seen[None]["hands"], f"{viewer} sees other cards"
            for hand, cards in v["hands"].items():
                for pos, entry in enumerate(cards):
                    if (hand, pos) in rnd.face_down:
                        assert entry["face_down"] is True
                        assert ("card" in entry) == ((hand, pos) == peeled), f"{hand} {pos}"
        if not self.unique_cards:
            return
        shoe = self.table.shoe
        undealt = self.shoes[id(shoe)][shoe.dealt :] if shoe is not None else []
        secrets = {f'"{rnd.card(ref)}"' for ref in rnd.face_down if ref != peeled}
        secrets |= {f'"{card}"' for card in undealt}
        told = json.dumps(
            [data for data in sent if data.get("round_id") == rnd.round_id]
            + [v for v in seen.values()]
        )
        leaked = [s for s in secrets if s in told]
        assert not leaked, f"a hidden card reached a screen: {leaked}"

    def finish(self) -> None:
        """Run the clock until no round is in play; every closed round has settled once."""
        for _ in range(20):
            if self.table.round is None or not self.table.round.closed:
                break
            self.advance(60)
        assert self.table.round is None or not self.table.round.closed
        assert sorted(self.closed) == sorted(self.settled), "a closed round never settled"


def random_step(
    m: Model,
    rng: random.Random,
    users: list[int],
    grants: tuple[int, ...] = (900, 5_000, 50_000, 100_000, 100_000),
) -> None:
    """One random action of a random user, biased towards actions that can succeed."""
    table = m.table
    uid = rng.choice(users)
    kind = rng.random()
    rnd = table.round
    standing = [u for u in users if table.occupant(u) is None]
    if kind < 0.10:
        free = [s for s, o in enumerate(table.seats) if o is None]
        who = rng.choice(standing) if standing and rng.random() < 0.8 else uid
        seat = rng.choice(free) if free and rng.random() < 0.8 else rng.randrange(-1, 9)
        m.sit(who, seat)
    elif kind < 0.13:
        m.do(StandUp(uid))
    elif kind < 0.42:
        seated = [o.user_id for o in table.bettors()] or [uid]
        m.do(PlaceChip(rng.choice(seated), rng.choice(AREAS), rng.choice(CHIPS)))
    elif kind < 0.45:
        seated = [o.user_id for o in table.bettors()] or [uid]
        m.do(rng.choice((Rebet, Double, Undo))(rng.choice(seated)))
    elif kind < 0.48:
        m.do(ClearBets(uid))
    elif kind < 0.53:
        dealer = table.dealer
        m.do(Urge(dealer.user_id if dealer and rng.random() < 0.8 else uid))
    elif kind < 0.66:
        who, hand = uid, rng.choice(("player", "banker"))
        if rnd is not None and rnd.squeeze is not None and rng.random() < 0.8:
            who, hand = rnd.squeeze.controller, rnd.squeeze.hand
        if rng.random() < 0.5:
            m.do(SqueezeProgress(who, hand, rng.random(), rng.choice(CORNERS)))
        else:
            m.do(OpenCard(who, hand))
    elif kind < 0.69:
        m.do(Disconnect(uid))
    elif kind < 0.73:
        m.do(Reconnect(uid))
    elif kind < 0.745:
        # The platform's wallet did not give a bettor's stakes at the close.
        m.do(Unstake(rnd.round_id if rnd is not None else "none", uid))
    elif kind < 0.76:
        coins = rng.choice(grants)
        m.do(SetCoins(uid, coins))
        if table.occupant(uid) is None:
            # A grant to a user who is not seated goes straight to the store.
            m.grants += coins - m.wallets[uid]
            m.wallets[uid] = coins
    else:
        m.advance(rng.choice((0.5, 1.0, 2.0, 3.0, 5.0, 11.0, 16.0, 40.0)))

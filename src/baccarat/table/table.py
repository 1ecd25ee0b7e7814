"""The table: a sans-I/O state machine of seats and rounds.

Commands go in with the driver's ``now`` and events come out; :meth:`Table.advance` fires
whatever timer is due and :attr:`Table.next_deadline` says when to call it next. Every
command checks everything before it changes anything, so a rejected command changes nothing.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable
from typing import Any, Literal

from baccarat.bets import DEALER_AREAS, Area, parse_area, stake_coins, verify_bet, verify_chip
from baccarat.errors import InvalidInput, RuleViolation
from baccarat.rules import Hand, Outcome, next_draw
from baccarat.settlement import settle
from baccarat.shoe import Shoe
from baccarat.table.commands import (
    CORNERS,
    ClearBets,
    Command,
    Disconnect,
    OpenCard,
    PlaceChip,
    Reconnect,
    SetCoins,
    Sit,
    SqueezeProgress,
    StandUp,
    Urge,
)
from baccarat.table.config import DEALER_SEAT, SEATS, TableConfig, UserInfo
from baccarat.table.events import Event
from baccarat.table.round import Bettor, CardRef, Round
from baccarat.table.seats import Occupant
from baccarat.table.squeeze import Squeeze, choose_controller

Phase = Literal["waiting", "shuffling", "betting", "squeeze", "result"]
HANDS: tuple[Hand, ...] = ("player", "banker")


def _uuid_hex() -> str:
    return uuid.uuid4().hex


class Table:
    """One baccarat table. Read its attributes freely; change it only through commands."""

    def __init__(
        self,
        config: TableConfig,
        shoe_factory: Callable[[], Shoe],
        new_id: Callable[[], str] = _uuid_hex,
    ) -> None:
        self.config = config
        self._shoe_factory = shoe_factory
        self._new_id = new_id
        self.seats: list[Occupant | None] = [None] * SEATS
        self.phase: Phase = "waiting"
        self.deadline: float | None = None
        """When the current phase ends (betting, squeeze, result, shuffling)."""
        self.shoe: Shoe | None = None
        self.shoe_id: str | None = None
        self.rounds_in_shoe = 0
        """Rounds settled from the current shoe."""
        self.round: Round | None = None
        """The round from the opening of betting to the end of its result display."""
        self.history: list[dict[str, Any]] = []
        """The current shoe's results, oldest first, as road marks."""
        self.last_shoe: dict[str, Any] | None = None
        """The previous shoe's id, commitment and revealed seed."""
        self.last_result: dict[str, Any] | None = None
        self.last_urge_at: float | None = None
        self.rounds_settled = 0

    # ----------------------------------------------------------------- queries

    @property
    def table_id(self) -> str:
        """The table's id."""
        return self.config.table_id

    @property
    def next_deadline(self) -> float | None:
        """When the driver must call :meth:`advance` next, or None when nothing is timed."""
        times = [o.grace_until for o in self.seats if o is not None and o.grace_until is not None]
        if self.deadline is not None:
            times.append(self.deadline)
        return min(times) if times else None

    @property
    def dealer(self) -> Occupant | None:
        """The user in the dealer seat."""
        return self.seats[DEALER_SEAT]

    def occupant(self, user_id: int) -> Occupant | None:
        """The seat occupant who is ``user_id``, if seated here."""
        for occ in self.seats:
            if occ is not None and occ.user_id == user_id:
                return occ
        return None

    def seat_of(self, user_id: int) -> int | None:
        """The seat ``user_id`` holds here, or None."""
        occ = self.occupant(user_id)
        return occ.seat if occ else None

    def bettors(self) -> list[Occupant]:
        """The occupants of the bettor seats, by seat."""
        return [o for o in self.seats[1:] if o is not None]

    def has_quorum(self) -> bool:
        """A dealer and at least one bettor: enough for a round."""
        return self.dealer is not None and bool(self.bettors())

    def betting_open(self, now: float) -> bool:
        """Whether a chip placed at ``now`` would still land."""
        return (
            self.phase == "betting"
            and self.round is not None
            and self.deadline is not None
            and now < self.deadline
        )

    def can_bet(self, user_id: int, area: Area, chip: int, now: float) -> bool:
        """Whether ``user_id`` may place ``chip`` on ``area`` now (to grey out a button)."""
        try:
            self._check_chip(PlaceChip(user_id, area, chip), now)
        except (InvalidInput, RuleViolation):
            return False
        return True

    def urge_ready_at(self) -> float | None:
        """When the dealer may urge again, or None if they never have."""
        if self.last_urge_at is None:
            return None
        return self.last_urge_at + self.config.urge_cooldown_seconds

    # ----------------------------------------------------------------- commands

    def handle(self, command: Command, now: float) -> list[Event]:
        """Carry out one command; raise InvalidInput or RuleViolation and change nothing if refused."""
        match command:
            case Sit():
                return self._sit(command, now)
            case StandUp():
                return self._stand_up(command, now)
            case PlaceChip():
                return self._place_chip(command, now)
            case ClearBets():
                return self._clear_bets(command, now)
            case Urge():
                return self._urge(command, now)
            case SqueezeProgress():
                return self._squeeze_progress(command, now)
            case OpenCard():
                return self._open_card(command, now)
            case Disconnect():
                return self._disconnect(command, now)
            case Reconnect():
                return self._reconnect(command, now)
            case SetCoins():
                return self._set_coins(command, now)
        raise InvalidInput("unknown_command", f"{command!r} is not a table command.")

    def _seated(self, user_id: int) -> Occupant:
        occ = self.occupant(user_id)
        if occ is None:
            raise RuleViolation("not_seated", "You do not hold a seat at this table.")
        return occ

    def _sit(self, c: Sit, now: float) -> list[Event]:
        user = c.user
        if not isinstance(user, UserInfo) or user.user_id != c.user_id:
            raise InvalidInput("user_mismatch", "The user sitting down must be the one asking.")
        if isinstance(c.seat, bool) or not isinstance(c.seat, int) or not 0 <= c.seat < SEATS:
            raise InvalidInput(
                "bad_seat", f"Seats are numbered 0 (dealer) to {SEATS - 1}, not {c.seat!r}."
            )
        if isinstance(user.coins, bool) or not isinstance(user.coins, int) or user.coins < 0:
            raise InvalidInput(
                "bad_coins", f"A balance is a whole number of coins, not {user.coins!r}."
            )
        if user.level < self.config.min_level:
            raise RuleViolation(
                "level_too_low",
                f"This room is for level {self.config.min_level} and above; you are level {user.level}.",
                min_level=self.config.min_level,
            )
        if self.seats[c.seat] is not None:
            raise RuleViolation("seat_taken", f"Seat {c.seat} is taken.", seat=c.seat)
        current = self.occupant(c.user_id)
        if current is not None:
            if c.seat != DEALER_SEAT or current.is_dealer:
                raise RuleViolation(
                    "already_seated",
                    f"You already sit in seat {current.seat}; only a move to the free dealer seat is allowed.",
                    seat=current.seat,
                )
            if self.round is not None:
                raise RuleViolation(
                    "round_in_play",
                    "A bettor may move to the dealer seat only between rounds.",
                )
        coins = current.coins if current is not None else user.coins
        floor = self.config.dealer_floor if c.seat == DEALER_SEAT else self.config.bettor_floor
        if coins < floor:
            role = "the dealer seat" if c.seat == DEALER_SEAT else "a bettor seat"
            raise RuleViolation(
                "coins_below_floor",
                f"{role.capitalize()} needs at least {floor} coins; you have {coins}.",
                floor=floor,
                coins=coins,
            )
        # Checked: now act.
        events: list[Event] = []
        if current is not None:
            self.seats[current.seat] = None
            events.append(
                Event(
                    "seat_freed",
                    {
                        "seat": current.seat,
                        "user_id": current.user_id,
                        "reason": "moved",
                        "coins": current.coins,
                    },
                )
            )
            current.seat = DEALER_SEAT
            current.idle_rounds = 0
            occ = current
        else:
            occ = Occupant(user.user_id, user.name, user.level, user.coins, c.seat)
            # Sitting while a round is being dealt: that round is not theirs.
            occ.waiting_next_round = self.round is not None and self.round.closed
        self.seats[c.seat] = occ
        events.append(Event("seated", occ.public()))
        events += self._maybe_start(now)
        return events

    def _stand_up(self, c: StandUp, now: float) -> list[Event]:
        occ = self._seated(c.user_id)
        return self._free_seat(occ, "stood_up", now)

    def _check_chip(self, c: PlaceChip, now: float) -> tuple[Occupant, Round, Area]:
        chip = verify_chip(c.chip)
        area = parse_area(c.area)
        occ = self._seated(c.user_id)
        if occ.is_dealer:
            raise RuleViolation("dealer_cannot_bet", "The dealer books the bets and cannot bet.")
        rnd = self.round
        if rnd is None:
            raise RuleViolation("not_betting", "No round is open for betting.")
        if not self.betting_open(now):
            raise RuleViolation("betting_closed", "Betting is closed for this round.")
        if occ.waiting_next_round:
            raise RuleViolation("not_in_round", "You sat down during this round; bet in the next.")
        slip = rnd.slip(occ.user_id)
        verify_bet(slip, area, chip, chip_unit=self.config.chip_unit, coins=occ.coins)
        if area in DEALER_AREAS:
            dealer = self.dealer
            booked = (rnd.area_chips(*DEALER_AREAS) + chip) * self.config.chip_unit
            if dealer is None or booked > dealer.coins:
                raise RuleViolation(
                    "dealer_cannot_cover",
                    f"The dealer cannot cover {booked} coins on Player and Banker.",
                    dealer_coins=dealer.coins if dealer else 0,
                )
        return occ, rnd, area

    def _place_chip(self, c: PlaceChip, now: float) -> list[Event]:
        occ, rnd, area = self._check_chip(c, now)
        bettor = rnd.bettors.get(occ.user_id)
        if bettor is None:
            bettor = Bettor(occ.user_id, occ.name, occ.level, occ.seat, rnd.next_order)
            rnd.next_order += 1
            rnd.bettors[occ.user_id] = bettor
        bettor.slip[area] = bettor.slip.get(area, 0) + c.chip
        bettor.placed_at.setdefault(area, now)
        return [
            Event(
                "chip_placed",
                {
                    "round_id": rnd.round_id,
                    "seat": occ.seat,
                    "user_id": occ.user_id,
                    "area": area,
                    "chip": c.chip,
                    "chips": bettor.slip[area],
                    "stake": stake_coins(bettor.slip, self.config.chip_unit),
                },
            )
        ]

    def _clear_bets(self, c: ClearBets, now: float) -> list[Event]:
        occ = self._seated(c.user_id)
        if occ.is_dealer:
            raise RuleViolation("dealer_cannot_bet", "The dealer has no bets to clear.")
        rnd = self.round
        if rnd is None:
            raise RuleViolation("not_betting", "No round is open for betting.")
        if not self.betting_open(now):
            raise RuleViolation("betting_closed", "Betting is closed; bets are final.")
        if not rnd.slip(occ.user_id):
            raise RuleViolation("no_bets", "You have no bets to clear.")
        return [self._drop_bets(rnd, occ, "cleared")]

    def _drop_bets(self, rnd: Round, occ: Occupant, reason: str) -> Event:
        del rnd.bettors[occ.user_id]
        return Event(
            "bets_cleared",
            {"round_id": rnd.round_id, "seat": occ.seat, "user_id": occ.user_id, "reason": reason},
        )

    def _urge(self, c: Urge, now: float) -> list[Event]:
        occ = self.occupant(c.user_id)
        if occ is None or not occ.is_dealer:
            raise RuleViolation("not_dealer", "Only the dealer may urge the bettors.")
        rnd = self.round
        if rnd is None:
            raise RuleViolation("not_betting", "No round is open for betting.")
        if not self.betting_open(now):
            raise RuleViolation("betting_closed", "Betting is closed for this round.")
        ready = self.urge_ready_at()
        if ready is not None and now < ready:
            left = round(ready - now, 3)
            raise RuleViolation(
                "urge_cooling_down",
                f"The urge button is cooling down for {math.ceil(left)} more seconds.",
                seconds_left=left,
            )
        self.last_urge_at = now
        targets = [
            o for o in self.bettors() if not o.waiting_next_round and not rnd.slip(o.user_id)
        ]
        events = [
            Event(
                "urged",
                {
                    "round_id": rnd.round_id,
                    "dealer": occ.user_id,
                    "seats": [o.seat for o in targets],
                    "ready_at": self.urge_ready_at(),
                },
            )
        ]
        events += [
            Event(
                "urge",
                {"round_id": rnd.round_id, "dealer": occ.user_id, "deadline": self.deadline},
                to=o.user_id,
            )
            for o in targets
        ]
        return events

    def _current_squeeze(self, user_id: int, hand: object, now: float) -> tuple[Round, Squeeze]:
        if hand not in HANDS:
            raise InvalidInput("bad_hand", f"The hand is 'player' or 'banker', not {hand!r}.")
        rnd = self.round
        sq = rnd.squeeze if rnd is not None and self.phase == "squeeze" else None
        if rnd is None or sq is None or sq.hand != hand or now >= sq.deadline:
            raise RuleViolation(
                "nothing_to_squeeze", f"No face-down card of the {hand} hand is being squeezed."
            )
        if sq.controller != user_id:
            raise RuleViolation(
                "not_controller",
                f"{sq.controller_name} controls this card; only they may squeeze or open it.",
            )
        return rnd, sq

    def _squeeze_progress(self, c: SqueezeProgress, now: float) -> list[Event]:
        p = c.progress
        if (
            isinstance(p, bool)
            or not isinstance(p, int | float)
            or not math.isfinite(p)
            or not 0 <= p <= 1
        ):
            raise InvalidInput("bad_progress", f"Progress runs from 0 to 1, not {p!r}.")
        if c.corner not in CORNERS:
            raise InvalidInput(
                "bad_corner", f"The corner is one of {', '.join(CORNERS)}, not {c.corner!r}."
            )
        rnd, sq = self._current_squeeze(c.user_id, c.hand, now)
        sq.progress = float(p)
        sq.corner = c.corner
        return [
            Event(
                "squeeze_progress",
                {
                    "round_id": rnd.round_id,
                    "hand": sq.hand,
                    "position": sq.position,
                    "progress": sq.progress,
                    "corner": sq.corner,
                },
            )
        ]

    def _open_card(self, c: OpenCard, now: float) -> list[Event]:
        self._current_squeeze(c.user_id, c.hand, now)
        return self._open_current(now, forced=False)

    def _disconnect(self, c: Disconnect, now: float) -> list[Event]:
        occ = self._seated(c.user_id)
        if not occ.connected:
            raise RuleViolation("already_disconnected", "You are already marked disconnected.")
        occ.connected = False
        occ.grace_until = now + self.config.reconnect_grace_seconds
        return [
            Event(
                "disconnected",
                {"seat": occ.seat, "user_id": occ.user_id, "grace_until": occ.grace_until},
            )
        ]

    def _reconnect(self, c: Reconnect, now: float) -> list[Event]:
        occ = self._seated(c.user_id)
        if occ.connected:
            raise RuleViolation("not_disconnected", "You are connected already.")
        if occ.grace_until is not None and now >= occ.grace_until:
            raise RuleViolation("grace_expired", "The reconnect grace ran out; the seat is lost.")
        occ.connected = True
        occ.grace_until = None
        return [Event("reconnected", {"seat": occ.seat, "user_id": occ.user_id})]

    def _set_coins(self, c: SetCoins, now: float) -> list[Event]:
        occ = self._seated(c.user_id)
        coins = c.coins
        if isinstance(coins, bool) or not isinstance(coins, int) or coins < 0:
            raise InvalidInput("bad_coins", f"A balance is a whole number of coins, not {coins!r}.")
        rnd = self.round
        if rnd is not None and not rnd.settled:
            if occ.is_dealer:
                booked = rnd.area_chips(*DEALER_AREAS) * self.config.chip_unit
                if coins < booked:
                    raise RuleViolation(
                        "dealer_cannot_cover",
                        f"The dealer books {booked} coins on Player and Banker this round.",
                    )
            elif not rnd.closed:
                staked = stake_coins(rnd.slip(occ.user_id), self.config.chip_unit)
                if coins < staked:
                    raise RuleViolation(
                        "coins_below_stake", f"You have {staked} coins on the table this round."
                    )
        occ.coins = coins
        return [Event("coins_set", {"seat": occ.seat, "user_id": occ.user_id, "coins": coins})]

    # ----------------------------------------------------------------- seats

    def _free_seat(self, occ: Occupant, reason: str, now: float) -> list[Event]:
        """Take ``occ`` out of their seat; open-betting bets go back, bets in play stay."""
        events: list[Event] = []
        rnd = self.round
        open_betting = rnd is not None and not rnd.closed
        if rnd is not None and open_betting and occ.user_id in rnd.bettors:
            events.append(self._drop_bets(rnd, occ, reason))
        self.seats[occ.seat] = None
        events.append(
            Event(
                "seat_freed",
                {"seat": occ.seat, "user_id": occ.user_id, "reason": reason, "coins": occ.coins},
            )
        )
        if open_betting:
            if occ.is_dealer:
                events += self._cancel_round("dealer_left", now)
            elif not self.bettors():
                events += self._cancel_round("no_bettors", now)
        return events

    # ----------------------------------------------------------------- timers

    def advance(self, now: float) -> list[Event]:
        """Fire every timer due at ``now``, oldest first."""
        events: list[Event] = []
        while True:
            due = [
                (o.grace_until, 0, o.seat)
                for o in self.seats
                if o is not None and o.grace_until is not None and o.grace_until <= now
            ]
            if self.deadline is not None and self.deadline <= now:
                due.append((self.deadline, 1, -1))
            if not due:
                return events
            _, kind, seat = min(due)
            if kind == 0:
                occ = self.seats[seat]
                assert occ is not None
                events += self._free_seat(occ, "disconnected", now)
            else:
                events += self._phase_over(now)

    def _phase_over(self, now: float) -> list[Event]:
        if self.phase == "betting":
            return self._close_betting(now)
        if self.phase == "squeeze":
            return self._open_current(now, forced=True)
        if self.phase == "result":
            return self._end_result(now)
        if self.phase == "shuffling":
            return self._end_shuffle(now)
        self.deadline = None
        return []

    # ----------------------------------------------------------------- round flow

    def _shoe_done(self) -> bool:
        return self.shoe is None or (
            self.rounds_in_shoe >= self.config.rounds_per_shoe
            or self.shoe.remaining < self.config.min_cards
        )

    def _new_shoe(self) -> list[Event]:
        self.shoe = self._shoe_factory()
        self.shoe_id = self._new_id()
        self.rounds_in_shoe = 0
        self.history = []
        self.last_result = None
        return [
            Event("shoe_started", {"shoe_id": self.shoe_id, "commitment": self.shoe.commitment})
        ]

    def _end_shoe(self, now: float) -> list[Event]:
        assert self.shoe is not None
        seed = self.shoe.seed
        self.last_shoe = {
            "shoe_id": self.shoe_id,
            "commitment": self.shoe.commitment,
            "seed": seed.hex() if seed is not None else None,
        }
        events = [Event("shoe_ended", dict(self.last_shoe))]
        self.shoe = None
        self.phase = "shuffling"
        self.deadline = now + self.config.shuffle_seconds
        events.append(Event("shuffling", {"deadline": self.deadline}))
        return events

    def _wait(self) -> list[Event]:
        self.phase = "waiting"
        self.deadline = None
        return [
            Event(
                "waiting",
                {"dealer_needed": self.dealer is None, "bettor_needed": not self.bettors()},
            )
        ]

    def _maybe_start(self, now: float) -> list[Event]:
        """Open betting if the table is waiting and has a quorum."""
        if self.phase != "waiting" or not self.has_quorum():
            return []
        events: list[Event] = []
        if self.shoe is None:
            events += self._new_shoe()
        elif self._shoe_done():
            return self._end_shoe(now)
        dealer = self.dealer
        assert dealer is not None and self.shoe_id is not None
        self.round = Round(
            round_id=self._new_id(),
            shoe_id=self.shoe_id,
            round_no=self.rounds_in_shoe + 1,
            dealer_id=dealer.user_id,
            dealer_name=dealer.name,
            opened_at=now,
        )
        for occ in self.seats:
            if occ is not None:
                occ.waiting_next_round = False
        self.phase = "betting"
        self.deadline = now + self.config.betting_seconds
        events.append(
            Event(
                "betting_opened",
                {
                    "round_id": self.round.round_id,
                    "shoe_id": self.shoe_id,
                    "round_no": self.round.round_no,
                    "dealer": dealer.user_id,
                    "deadline": self.deadline,
                },
            )
        )
        return events

    def _cancel_round(self, reason: str, now: float) -> list[Event]:
        assert self.round is not None and not self.round.closed
        events = [Event("round_cancelled", {"round_id": self.round.round_id, "reason": reason})]
        self.round = None
        events += self._wait()
        events += self._maybe_start(now)
        return events

    def _close_betting(self, now: float) -> list[Event]:
        rnd = self.round
        assert rnd is not None
        events: list[Event] = []
        # Idle count: every bettor dealt into this round who did not bet.
        idle: list[Occupant] = []
        for occ in self.bettors():
            if occ.waiting_next_round:
                continue
            if rnd.slip(occ.user_id):
                occ.idle_rounds = 0
            else:
                occ.idle_rounds += 1
                if occ.idle_rounds >= self.config.idle_rounds_limit:
                    idle.append(occ)
        for occ in idle:
            events += self._free_seat(occ, "idle", now)
            if self.round is not rnd:
                return events
        unit = self.config.chip_unit
        rnd.closed = True
        for uid, bettor in rnd.bettors.items():
            payer = self.occupant(uid)
            assert payer is not None, "bets of a bettor who left were dropped"
            rnd.escrow[uid] = bettor.stake_chips() * unit
            payer.coins -= rnd.escrow[uid]
        events.append(
            Event(
                "betting_closed",
                {
                    "round_id": rnd.round_id,
                    "shoe_id": rnd.shoe_id,
                    "round_no": rnd.round_no,
                    "dealer": rnd.dealer_id,
                    "bets": rnd.bet_list(unit),
                },
            )
        )
        slips = {uid: b.slip for uid, b in rnd.bettors.items()}
        levels = {uid: b.level for uid, b in rnd.bettors.items()}
        order = {uid: b.order for uid, b in rnd.bettors.items()}
        for hand in HANDS:
            rnd.controllers[hand] = choose_controller(hand, slips, levels, order)
        events.append(
            Event(
                "controllers", {"round_id": rnd.round_id, **{h: rnd.controllers[h] for h in HANDS}}
            )
        )
        # P1 and B1 face up, P2 and B2 face down.
        first_four: tuple[tuple[Hand, bool], ...] = (
            ("player", False),
            ("banker", False),
            ("player", True),
            ("banker", True),
        )
        for hand, face_down in first_four:
            events.append(self._deal(rnd, hand, face_down))
        self.phase = "squeeze"
        events += self._next_squeeze(now)
        return events

    def _deal(self, rnd: Round, hand: Hand, face_down: bool) -> Event:
        assert self.shoe is not None
        cards = rnd.hand(hand)
        cards.append(self.shoe.draw())
        ref: CardRef = (hand, len(cards) - 1)
        rnd.dealt.append(ref)
        data: dict[str, Any] = {"round_id": rnd.round_id, "hand": hand, "position": ref[1]}
        if face_down:
            rnd.face_down.add(ref)
            rnd.pending.append(ref)
            data["face_down"] = True
        else:
            data["face_down"] = False
            data["card"] = str(cards[-1])
            data["points"] = rnd.open_points(hand)
        return Event("card_dealt", data)

    def _next_squeeze(self, now: float) -> list[Event]:
        """Start the next face-down card's squeeze, deal a third card, or settle."""
        rnd = self.round
        assert rnd is not None
        events: list[Event] = []
        while True:
            if rnd.pending:
                ref = rnd.pending.pop(0)
                controller = rnd.controllers.get(ref[0])
                if controller is None:
                    # Nobody bet: the card opens by itself.
                    events.append(self._reveal(rnd, ref, forced=True))
                    continue
                name = rnd.bettors[controller].name
                deadline = now + self.config.squeeze_seconds
                rnd.squeeze = Squeeze(ref[0], ref[1], controller, name, deadline)
                self.deadline = deadline
                events.append(
                    Event(
                        "squeeze_started",
                        {"round_id": rnd.round_id, **rnd.squeeze.public()},
                    )
                )
                events.append(
                    Event(
                        "card_peek",
                        {
                            "round_id": rnd.round_id,
                            "hand": ref[0],
                            "position": ref[1],
                            "card": str(rnd.card(ref)),
                        },
                        to=controller,
                    )
                )
                return events
            hand = next_draw(rnd.player, rnd.banker)
            if hand is None:
                return events + self._settle(now)
            events.append(self._deal(rnd, hand, face_down=True))

    def _reveal(self, rnd: Round, ref: CardRef, forced: bool) -> Event:
        rnd.face_down.discard(ref)
        return Event(
            "card_opened",
            {
                "round_id": rnd.round_id,
                "hand": ref[0],
                "position": ref[1],
                "card": str(rnd.card(ref)),
                "points": rnd.open_points(ref[0]),
                "forced": forced,
            },
        )

    def _open_current(self, now: float, forced: bool) -> list[Event]:
        rnd = self.round
        assert rnd is not None and rnd.squeeze is not None
        ref: CardRef = (rnd.squeeze.hand, rnd.squeeze.position)
        rnd.squeeze = None
        self.deadline = None
        return [self._reveal(rnd, ref, forced), *self._next_squeeze(now)]

    def _settle(self, now: float) -> list[Event]:
        rnd = self.round
        assert rnd is not None and rnd.closed and not rnd.settled, "a round settles exactly once"
        unit = self.config.chip_unit
        outcome = Outcome(tuple(rnd.player), tuple(rnd.banker))
        result = settle(outcome, rnd.dealer_id, rnd.stakes(unit))
        rnd.settled = True
        self.rounds_settled += 1
        self.rounds_in_shoe += 1
        for uid, delta in result.deltas.items():
            occ = self.occupant(uid)
            if occ is not None:
                occ.coins += rnd.escrow.get(uid, 0) + delta
        self.history.append(
            {
                "winner": outcome.winner,
                "points": outcome.winner_points,
                "player_pair": outcome.player_pair,
                "banker_pair": outcome.banker_pair,
            }
        )
        results = [
            {
                "user_id": uid,
                "seat": self.seat_of(uid),
                "role": "dealer" if uid == rnd.dealer_id else "bettor",
                "stake": rnd.escrow.get(uid, 0),
                "areas": dict(result.results.get(uid, {})),
                "commission": result.commission.get(uid, 0),
                "delta": delta,
            }
            for uid, delta in result.deltas.items()
        ]
        settlement = {
            "deltas": {str(k): v for k, v in result.deltas.items()},
            "commission": {str(k): v for k, v in result.commission.items()},
            "house": result.house,
        }
        self.last_result = {
            "round_id": rnd.round_id,
            "round_no": rnd.round_no,
            "outcome": outcome.to_dict(),
            "settlement": settlement,
        }
        events = [
            Event(
                "round_settled",
                {
                    "round_id": rnd.round_id,
                    "shoe_id": rnd.shoe_id,
                    "round_no": rnd.round_no,
                    "dealer": rnd.dealer_id,
                    "bets": rnd.bet_list(unit),
                    "cards": rnd.cards_in_order(),
                    "outcome": outcome.to_dict(),
                    "settlement": settlement,
                    "results": results,
                },
            )
        ]
        self.phase = "result"
        self.deadline = now + self.config.result_seconds
        for occ in self.bettors():
            if occ.coins < self.config.bettor_floor:
                events += self._free_seat(occ, "below_floor", now)
        dealer = self.dealer
        if dealer is not None and dealer.coins < self.config.dealer_floor:
            events += self._free_seat(dealer, "dealer_below_floor", now)
        return events

    def _end_result(self, now: float) -> list[Event]:
        self.round = None
        if self._shoe_done():
            return self._end_shoe(now)
        events = self._wait() if not self.has_quorum() else []
        self.phase = "waiting"
        self.deadline = None
        return events + self._maybe_start(now)

    def _end_shuffle(self, now: float) -> list[Event]:
        events = self._new_shoe()
        self.phase = "waiting"
        self.deadline = None
        if not self.has_quorum():
            return events + self._wait()
        return events + self._maybe_start(now)

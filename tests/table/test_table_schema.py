"""The pinned protocol: every event's data, every viewer's view and the lobby line match
docs/protocol, each in its one JSON form.

``docs/protocol/server.schema.json`` pins the ``data`` of each event (``$defs/event_data``)
and the ``view`` of a snapshot for each viewer kind (``$defs/view``: the dealer, a bettor, a
spectator). These tests check that the event classes and the pinned schemas agree, and that
every frame of a whole shoe, played on a fake clock, matches them.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from event_schema import data_schema
from table_model import Model
from test_table_simulation import BETTORS, DEALER, play_round, seat_everyone

from baccarat.protocol import codec
from baccarat.protocol.events import event_wire
from baccarat.protocol.messages import event, snapshot
from baccarat.protocol.view import view
from baccarat.server.tables.facts import lobby_line
from baccarat.shoe import Shoe
from baccarat.table import TableConfig
from baccarat.table.events import EVENTS, Bet, Event, Queued, SeatResult, recipient
from baccarat.table.reducer import EVENTS as REDUCED
from baccarat.table.view import personal
from schemas import SERVER, validator
from schemas import SERVER_SCHEMA as SCHEMA

DEFS = SCHEMA["$defs"]


def test_each_event_class_has_its_data_pinned() -> None:
    pinned = DEFS["event_data"]
    assert set(pinned) == {cls.kind for cls in EVENTS} | {"me"}
    for cls in EVENTS:
        assert pinned[cls.kind] == data_schema(cls), cls.kind
    for name, cls in (("bet", Bet), ("seat_result", SeatResult), ("queued", Queued)):
        assert DEFS[name] == data_schema(cls), name


def test_the_schema_names_exactly_the_events_the_reducer_applies() -> None:
    [event_message] = [m for m in SCHEMA["oneOf"] if m["properties"]["type"] == {"const": "event"}]
    assert set(event_message["properties"]["event"]["enum"]) == set(REDUCED)
    assert set(DEFS["event_data"]) == set(REDUCED)


def test_a_view_of_the_wrong_kind_is_refused() -> None:
    m = Model(TableConfig("t"), {DEALER: 1_000_000, 2: 100_000})
    m.sit(DEALER, 0)
    m.sit(2, 1)
    dealer = view(m.table, DEALER, m.now)
    SERVER.validate(snapshot("t", 0, 0.0, dealer))
    dealer["book"] = None
    assert not SERVER.is_valid(snapshot("t", 0, 0.0, dealer))
    bettor = view(m.table, 2, m.now)
    bettor["me"]["role"] = "spectator"
    assert not SERVER.is_valid(snapshot("t", 0, 0.0, bettor))


def _validator(ref: str) -> Any:
    return validator({"$ref": ref, "$defs": DEFS})


DATA = {name: _validator(f"#/$defs/event_data/{name}") for name in DEFS["event_data"]}
VIEW = _validator("#/$defs/view")
LINE = _validator("#/$defs/table")
NAMES = {"zh-TW": "標準桌 1", "en": "Standard 1"}


def one_form(value: dict[str, Any]) -> bool:
    """Whether ``value`` is already its own JSON: read back after encoding, it is equal (no
    tuple, no int key, no value the codec would change)."""
    return codec.loads(codec.dumps(value)) == value


VIEWED_ROUNDS = 3
"""Rounds whose every snapshot is checked too (the rest of the shoe checks events and ``me``)."""


class Frames:
    """The frames a server would send for a model's events: each checked against the schema.

    Every event's data is checked, and each kind's first whole frame; so is every ``me``, and
    every viewer's view after each step of the first rounds, as a snapshot would carry it.
    """

    def __init__(self, m: Model, viewers: list[int | None]) -> None:
        self.m = m
        self.viewers = viewers
        self.seq = 0
        self.seen: set[str] = set()
        self.lines = 0
        self.sent = {v: personal(m.table, v, m.now) for v in viewers}
        for v in viewers:
            SERVER.validate(snapshot("t", 0, 0.0, view(m.table, v, m.now)))

    def _frame(self, kind: str, data: dict[str, Any], private: bool) -> None:
        DATA[kind].validate(data)
        assert one_form(data), kind
        if kind not in self.seen:
            SERVER.validate(event("t", self.seq, kind, data, private=private))
            self.seen.add(kind)

    def check(self, events: list[Event]) -> None:
        now = self.m.now
        for ev in events:
            kind, data = event_wire(ev, now)
            private = recipient(ev) is not None
            if not private:
                self.seq += 1
            self._frame(kind, data, private)
        for v in self.viewers:
            own = personal(self.m.table, v, now)
            if own != self.sent[v]:
                self.sent[v] = own
                self._frame("me", own, True)
            if events and self.m.kinds["round_settled"] < VIEWED_ROUNDS:
                shown = view(self.m.table, v, now)
                VIEW.validate(shown)
                assert one_form(shown)
        if events:
            line = lobby_line(self.m.table, "t", "standard", NAMES, len(self.viewers)).json()
            LINE.validate(line)
            assert one_form(line)
            self.lines += 1


def test_every_frame_of_a_whole_shoe_matches_the_pinned_schema() -> None:
    rng = random.Random(7)
    seeds = (bytes([n]) * 32 for n in itertools.count(1))
    wallets = {DEALER: 10_000_000, **{uid: 1_000_000 for uid in BETTORS}, 99: 10}
    m = Model(TableConfig("full"), wallets, shoe_factory=lambda: Shoe.from_seed(next(seeds)))
    # The dealer, a bettor who controls cards, a bettor who hardly bets, a spectator.
    frames = Frames(m, [DEALER, 2, 8, 99])
    absorb = m.absorb

    def absorb_and_check(events: list[Event]) -> None:
        absorb(events)
        frames.check(events)

    m.absorb = absorb_and_check  # type: ignore[method-assign]
    seat_everyone(m)
    while m.kinds["shoe_ended"] == 0:
        play_round(m, rng)
    m.finish()
    for kind in ("seated", "betting_opened", "chip_placed", "betting_closed", "card_dealt"):
        assert kind in frames.seen, kind
    for kind in ("squeeze_started", "squeeze_progress", "card_opened", "round_settled", "me"):
        assert kind in frames.seen, kind
    assert {"shoe_ended", "shuffling", "shoe_started", "urge"} <= frames.seen
    assert frames.lines > 100


def test_one_form_tells_a_value_that_is_not_its_own_json() -> None:
    assert one_form({"a": [1, "x", None, {"b": True}]})
    assert not one_form({"a": (1, 2)})
    assert not one_form({"a": {1: 2}})


def _frame(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return event("t", 1, kind, data)


def test_event_data_beyond_its_fields_is_refused() -> None:
    good = {"round_id": "r", "reason": "no_bettors"}
    assert SERVER.is_valid(_frame("round_cancelled", good))
    assert not SERVER.is_valid(_frame("round_cancelled", {**good, "extra": 1}))
    assert not SERVER.is_valid(_frame("round_cancelled", {"round_id": "r"}))
    assert not SERVER.is_valid(_frame("no_such_event", good))

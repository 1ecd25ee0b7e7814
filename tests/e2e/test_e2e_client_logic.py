"""The browser's own computations checked against the Python engine, in Chromium.

The client draws the roads from the history marks with its own port of the rules, and
verifies a revealed shoe seed with the browser's SHA-256; both must agree with
:mod:`baccarat.roads` and :mod:`baccarat.shoe` exactly.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from e2e_support import DESKTOP, Server, needs_chromium, open_page

from baccarat.roads import parse_marks, roads
from baccarat.shoe import commitment, new_seed
from baccarat.table.chat import KEPT
from baccarat.table.reducer import EVENTS, apply

pytestmark = [pytest.mark.browser, needs_chromium]

JS_ROADS = """async (shoes) => {
  const { roads, ask } = await import('/js/roads.js');
  return shoes.map((marks) => {
    const r = roads(marks);
    const cell = (c) => ({ col: c.col, row: c.row, color: c.color });
    const next = (w) => {
      const a = ask(marks, w);
      return { big_eye_boy: a.big_eye_boy?.color ?? null, small_road: a.small_road?.color ?? null,
               cockroach_pig: a.cockroach_pig?.color ?? null };
    };
    return {
      bead_plate: r.bead_plate.map((c) => ({ col: c.col, row: c.row, winner: c.winner })),
      big_road: r.big_road.map((c) => ({ col: c.col, row: c.row, winner: c.color, ties: c.ties })),
      big_eye_boy: r.big_eye_boy.map(cell),
      small_road: r.small_road.map(cell),
      cockroach_pig: r.cockroach_pig.map(cell),
      counts: r.counts,
      ask: { banker: next('banker'), player: next('player') },
    };
  });
}"""


def _shoes() -> list[list[dict[str, Any]]]:
    rng = random.Random(20261129)
    shoes: list[list[dict[str, Any]]] = [
        [],
        [{"winner": "tie", "points": 4, "player_pair": False, "banker_pair": True}],
        # A long dragon that turns right along the bottom row, then more columns under it.
        [
            {"winner": w, "points": 7, "player_pair": False, "banker_pair": False}
            for w in ["banker"] * 9 + ["player", "banker"] * 4 + ["player"] * 8
        ],
    ]
    for _ in range(40):
        n = rng.randint(1, 78)
        shoes.append(
            [
                {
                    "winner": rng.choices(["banker", "player", "tie"], weights=[46, 45, 9])[0],
                    "points": rng.randint(0, 9),
                    "player_pair": rng.random() < 0.08,
                    "banker_pair": rng.random() < 0.08,
                }
                for _ in range(n)
            ]
        )
    return shoes


def _python(marks: list[dict[str, Any]]) -> dict[str, Any]:
    r = roads(parse_marks(marks)).to_dict()
    bead: list[dict[str, Any]] = r["bead_plate"]  # type: ignore[assignment]
    big: list[dict[str, Any]] = r["big_road"]  # type: ignore[assignment]
    ask: dict[str, dict[str, Any]] = r["ask"]  # type: ignore[assignment]
    return {
        "bead_plate": [{k: c[k] for k in ("col", "row", "winner")} for c in bead],
        "big_road": [{k: c[k] for k in ("col", "row", "winner", "ties")} for c in big],
        "big_eye_boy": r["big_eye_boy"],
        "small_road": r["small_road"],
        "cockroach_pig": r["cockroach_pig"],
        "counts": r["counts"],
        "ask": {
            side: {k: ask[side].get(k) for k in ("big_eye_boy", "small_road", "cockroach_pig")}
            for side in ("banker", "player")
        },
    }


def test_browser_roads_match_the_engine_roads(server: Server, browser: Any) -> None:
    page = open_page(browser, server, DESKTOP)
    shoes = _shoes()
    from_browser = page.evaluate(JS_ROADS, shoes)
    for marks, got in zip(shoes, from_browser, strict=True):
        # Before the first Banker or Player result the browser draws the ties on an empty
        # cell (a green slash with nothing under it); the engine keeps them for the first
        # circle, where the browser puts them too once it comes.
        placeholders = [c for c in got["big_road"] if c["winner"] is None]
        if placeholders:
            assert all(m["winner"] == "tie" for m in marks)
            assert placeholders == [{"col": 0, "row": 0, "winner": None, "ties": len(marks)}]
            got["big_road"] = [c for c in got["big_road"] if c["winner"] is not None]
        assert got == _python(marks), marks


def test_browser_checks_a_revealed_seed_against_its_commitment(
    server: Server, browser: Any
) -> None:
    page = open_page(browser, server, DESKTOP)
    seed = new_seed()
    other = new_seed()
    check = """async ([seed, commit]) => {
      const { seedMatches } = await import('/js/fair.js');
      return seedMatches(seed, commit);
    }"""
    assert page.evaluate(check, [seed.hex(), commitment(seed)]) is True
    assert page.evaluate(check, [other.hex(), commitment(seed)]) is False


JS_LATENESS = """async (reads) => {
  const { Lateness } = await import('/js/lateness.js');
  const late = new Lateness();
  // Each read: [at, gap]: read at `at` (ms on the page clock), sent `gap` ms before it.
  return reads.map(([at, gap]) => gap === null ? late.of(undefined, at)
    : Math.round(late.of((performance.timeOrigin + at - gap) / 1000, at)));
}"""


def test_browser_lateness_is_the_wait_above_the_least_gap_of_the_last_minute(
    server: Server, browser: Any
) -> None:
    page = open_page(browser, server, DESKTOP)
    reads = [
        (1_000, 80),  # the first: the clocks' offset and the network, as far as it knows
        (2_000, 2_080),  # read 2 s late by a busy page
        (3_000, 50),  # a quicker one lowers the floor
        (4_000, 90),
        (5_000, None),  # an event without the server's clock: not late
        (30_000, 1_050),
        (64_500, 400),  # a minute on, the old floor is gone (a table moved to a new node)
        (65_000, 450),
    ]
    late = page.evaluate(JS_LATENESS, [list(r) for r in reads])
    assert late == [0, 2_000, 0, 40, 0, 1_000, 0, 50]


JS_REDUCER = """async (steps) => {
  const { apply } = await import('/js/reducer.js');
  return steps.map(([before, frames]) => frames.reduce((v, [kind, data]) => apply(v, kind, data), before));
}"""


def _reducer_steps() -> list[tuple[dict[str, Any], list[Any], dict[str, Any]]]:
    """Recorded steps of random play: a viewer's view before, what it received, the view after."""
    from baccarat.protocol.events import event_wire
    from baccarat.protocol.view import view
    from baccarat.table import TableConfig
    from baccarat.table.events import recipient
    from baccarat.table.view import book_kept, personal
    from table.table_model import Model, random_step

    wallets = {1: 40_000, 2: 50_000, 3: 100_000, 4: 1_500, 5: 20_000}
    viewers: list[int | None] = [None, 1, 2, 3]
    steps: list[tuple[dict[str, Any], list[Any], dict[str, Any]]] = []
    before: dict[int | None, dict[str, Any]] = {}
    for seed in (3, 4, 5):
        rng = random.Random(seed)
        m = Model(TableConfig("t", rounds_per_shoe=2, dealer_floor=3_000), wallets, shoe_seed=seed)
        absorb = m.absorb

        def record(events: list[Any], m: Model = m, absorb: Any = absorb) -> None:
            for v in viewers:
                frames = [
                    list(event_wire(ev, m.now)) for ev in events if recipient(ev) in (None, v)
                ]
                own = personal(m.table, v, m.now)
                start = before[v]
                book_only = own["me"]["role"] == "dealer" and book_kept(events)
                if own != {"me": start["me"], "book": start["book"]} and not book_only:
                    frames.append(["me", own])
                if frames:
                    steps.append((start, frames, view(m.table, v, m.now)))
            absorb(events)

        m.absorb = record  # type: ignore[method-assign]
        for _ in range(150):
            before.clear()
            before.update({v: view(m.table, v, m.now) for v in viewers})
            random_step(m, rng, list(wallets))
    return steps


def test_browser_reducer_knows_the_events_the_python_reducer_knows(
    server: Server, browser: Any
) -> None:
    page = open_page(browser, server, DESKTOP)
    known = page.evaluate("async () => (await import('/js/reducer.js')).EVENTS")
    assert set(known) == set(EVENTS)
    assert KEPT == 30, "reducer.js keeps baccarat.table.chat.KEPT messages: change it there too"


def test_browser_reducer_matches_the_python_reducer(server: Server, browser: Any) -> None:
    page = open_page(browser, server, DESKTOP)
    steps = _reducer_steps()
    assert len(steps) > 200
    # A table's chat: more messages than it keeps.
    start, _, _ = steps[-1]
    said = [["chat", {"user_id": 1, "name": "u1", "text": f"m{i}"}] for i in range(35)]
    after = start
    for kind, data in said:
        after = apply(after, kind, data)
    steps.append((start, said, after))
    # A shoe that ends: its marks stay with it, for its roads (上一靴).
    mark = {
        "winner": "banker",
        "points": 7,
        "player_pair": False,
        "banker_pair": True,
        "natural": False,
    }
    ended = {"shoe_id": "s1", "commitment": "c" * 64, "seed": "d" * 64, "history": [mark] * 3}
    steps.append((start, [["shoe_ended", ended]], apply(start, "shoe_ended", ended)))
    got = page.evaluate(JS_REDUCER, [[before, frames] for before, frames, _ in steps])
    for (before, frames, after), folded in zip(steps, got, strict=True):
        expected = before
        for kind, data in frames:
            expected = apply(expected, kind, data)
        assert folded == expected, [kind for kind, _ in frames]
        # And both are the table's view (the time left aside: a timer step moves the clock).
        assert _timeless(folded) == _timeless(after), [kind for kind, _ in frames]


def _timeless(v: dict[str, Any]) -> dict[str, Any]:
    return {k: val for k, val in v.items() if k != "remaining_ms"}

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

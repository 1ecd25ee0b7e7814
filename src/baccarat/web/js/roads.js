// The five roads computed from a shoe's history marks (pure: no DOM).
//
// A mark is {winner: "banker" | "player" | "tie", points, banker_pair, player_pair}.
// Big Road: a new column whenever the winner changes; a run goes down six rows, then
// turns right along the row it is on (the "dragon tail"). Ties do not move the road: they
// are counted on the last circle. Derived roads compare the Big Road's logical columns:
// for a circle at column c, row r and an offset k (Big Eye Boy 1, Small Road 2,
// Cockroach Pig 3), red means "regular":
//   r = 0: red if columns c-1 and c-1-k have the same length;
//   r > 0: red if column c-k reaches row r, or stops before row r-1; blue if it stops at r-1.
// A derived road starts at the circle in column k row 1, or else column k+1 row 0.

export const ROWS = 6;
export const BEAD_COLS = 13;

/** Read whatever the server sends for one round into a mark. */
export function toMark(m) {
  if (!m) return null;
  const winner = m.winner ?? m.outcome ?? m.result ?? m.w;
  const norm = { b: "banker", p: "player", t: "tie", B: "banker", P: "player", T: "tie" };
  const w = norm[winner] || winner;
  const bp = m.banker_points ?? m.banker?.points;
  const pp = m.player_points ?? m.player?.points;
  const points = m.points ?? (w === "player" ? pp : bp);
  return {
    winner: w,
    points: points ?? null,
    banker_pair: Boolean(m.banker_pair ?? m.pairs?.banker ?? m.bp),
    player_pair: Boolean(m.player_pair ?? m.pairs?.player ?? m.pp),
  };
}

/** Lay out a sequence of colours in a 6-row grid with dragon tails. */
function layout(items) {
  const taken = new Set();
  const key = (c, r) => `${c},${r}`;
  const cells = [];
  let runStart = -1;
  let col = 0;
  let row = 0;
  let prev = null;
  for (const item of items) {
    if (prev === null || item.color !== prev) {
      runStart += 1;
      col = runStart;
      row = 0;
      while (taken.has(key(col, row))) col += 1;
      runStart = col;
    } else if (row + 1 < ROWS && !taken.has(key(col, row + 1))) {
      row += 1;
    } else {
      col += 1;
    }
    taken.add(key(col, row));
    cells.push({ ...item, col, row });
    prev = item.color;
  }
  return cells;
}

/** The bead plate: one cell per round, top to bottom then left to right. */
export function beadPlate(marks) {
  return marks.map((m, i) => ({ ...m, col: Math.floor(i / ROWS), row: i % ROWS }));
}

/** Logical Big Road columns: runs of the same winner, ties attached to circles. */
export function bigRoadRuns(marks) {
  const runs = [];
  let leadingTies = 0;
  for (const m of marks) {
    if (m.winner === "tie") {
      const run = runs.at(-1);
      if (run) run.at(-1).ties += 1;
      else leadingTies += 1;
      continue;
    }
    const circle = { color: m.winner, ties: 0, banker_pair: m.banker_pair, player_pair: m.player_pair };
    if (runs.length === 0) circle.ties = leadingTies;
    const run = runs.at(-1);
    if (run && run[0].color === m.winner) run.push(circle);
    else runs.push([circle]);
  }
  return { runs, leadingTies };
}

/** The Big Road's cells ({col, row, color, ties, pairs}). */
export function bigRoad(marks) {
  const { runs, leadingTies } = bigRoadRuns(marks);
  if (runs.length === 0) {
    return leadingTies ? [{ col: 0, row: 0, color: null, ties: leadingTies }] : [];
  }
  return layout(runs.flat());
}

/** A derived road's colours ("red" / "blue") in order, for offset k. */
export function derivedColors(runs, k) {
  const out = [];
  runs.forEach((run, c) => {
    run.forEach((_, r) => {
      if (c < k || (c === k && r === 0)) return;
      if (r === 0) {
        out.push(runs[c - 1].length === runs[c - 1 - k].length ? "red" : "blue");
      } else {
        const len = runs[c - k].length;
        out.push(len > r || len < r ? "red" : "blue");
      }
    });
  });
  return out;
}

/** Every road for a list of marks, plus counts. */
export function roads(rawMarks) {
  const marks = rawMarks.map(toMark).filter((m) => m && m.winner);
  const { runs } = bigRoadRuns(marks);
  const derived = [1, 2, 3].map((k) => derivedColors(runs, k));
  const counts = { banker: 0, player: 0, tie: 0, banker_pair: 0, player_pair: 0, rounds: marks.length };
  for (const m of marks) {
    counts[m.winner] += 1;
    if (m.banker_pair) counts.banker_pair += 1;
    if (m.player_pair) counts.player_pair += 1;
  }
  return {
    marks,
    bead_plate: beadPlate(marks),
    big_road: bigRoad(marks),
    big_eye_boy: layout(derived[0].map((color) => ({ color }))),
    small_road: layout(derived[1].map((color) => ({ color }))),
    cockroach_pig: layout(derived[2].map((color) => ({ color }))),
    counts,
  };
}

/** What each road would gain if the next round were `winner` ("banker" or "player"). */
export function ask(rawMarks, winner) {
  const before = roads(rawMarks);
  const after = roads([...before.marks, { winner, points: null, banker_pair: false, player_pair: false }]);
  const added = (name) =>
    after[name].length > before[name].length ? after[name].at(-1) : null;
  return {
    big_road: added("big_road"),
    big_eye_boy: added("big_eye_boy"),
    small_road: added("small_road"),
    cockroach_pig: added("cockroach_pig"),
  };
}

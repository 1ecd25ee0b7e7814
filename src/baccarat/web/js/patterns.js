// Good roads (好路) from a shoe's results: the same patterns and definitions as
// baccarat.roads.patterns (checked against it by the browser tests).

export const PATTERNS = ["long_banker", "long_player", "ping_pong", "double_jump", "one_room_two_halls",
  "banker_jumps", "player_jumps", "banker_streaks", "player_streaks"];
const LONG = 4;

/** The Big Road's columns [hand, length], oldest first (ties skipped). */
export function columns(history) {
  const out = [];
  for (const m of history || []) {
    if (m.winner === "tie") continue;
    const last = out[out.length - 1];
    if (last && last[0] === m.winner) last[1] += 1;
    else out.push([m.winner, 1]);
  }
  return out;
}

function runBack(cols, fits) {
  let n = 0;
  for (let i = cols.length - 1; i >= 0 && fits(i); i--) n += 1;
  return n;
}

function long(cols, side) {
  const last = cols[cols.length - 1];
  return last && last[0] === side && last[1] >= LONG ? last[1] : 0;
}

function pingPong(cols) {
  const n = runBack(cols, (i) => cols[i][1] === 1);
  return n >= 4 ? n : 0;
}

function doubleJump(cols) {
  const n = runBack(cols, (i) => cols[i][1] === 2);
  return n >= 3 ? n : 0;
}

function oneRoomTwoHalls(cols) {
  if (!cols.length) return 0;
  const last = cols[cols.length - 1][1];
  if (last !== 1 && last !== 2) return 0;
  const n = runBack(cols, (i) => cols[i][1] === ((cols.length - 1 - i) % 2 === 0 ? last : 3 - last));
  return n >= 4 ? n : 0;
}

function jumps(cols, side) {
  const mine = cols.map((c, i) => [c, i]).filter(([c]) => c[0] === side).map(([, i]) => i);
  if (mine.length < 3) return 0;
  let n = 0;
  for (let k = mine.length - 1; k >= 0 && cols[mine[k]][1] === 1; k--) n += 1;
  if (n < 3) return 0;
  const first = mine[mine.length - n];
  return cols.slice(first).some(([hand, len]) => hand !== side && len >= 2) ? n : 0;
}

function streaks(cols, side) {
  const finished = cols.slice(0, -1).filter(([hand]) => hand === side).map(([, len]) => len);
  let n = 0;
  for (let k = finished.length - 1; k >= 0 && finished[k] >= 2; k--) n += 1;
  return n >= 3 ? n : 0;
}

/** Every pattern that holds after the latest result: [{pattern, length}], in PATTERNS order. */
export function goodRoads(history) {
  const cols = columns(history);
  const found = {
    long_banker: long(cols, "banker"),
    long_player: long(cols, "player"),
    ping_pong: pingPong(cols),
    double_jump: doubleJump(cols),
    one_room_two_halls: oneRoomTwoHalls(cols),
    banker_jumps: jumps(cols, "banker"),
    player_jumps: jumps(cols, "player"),
    banker_streaks: streaks(cols, "banker"),
    player_streaks: streaks(cols, "player"),
  };
  return PATTERNS.filter((p) => found[p]).map((pattern) => ({ pattern, length: found[pattern] }));
}

/** A shoe's statistics from its results: counts, pairs, naturals and the longest runs. */
export function shoeStats(history) {
  const out = { rounds: 0, banker: 0, player: 0, tie: 0, banker_pair: 0, player_pair: 0, natural: 0,
    longest_banker: 0, longest_player: 0 };
  for (const m of history || []) {
    out.rounds += 1;
    out[m.winner] += 1;
    if (m.banker_pair) out.banker_pair += 1;
    if (m.player_pair) out.player_pair += 1;
    if (m.natural) out.natural += 1;
  }
  for (const [hand, len] of columns(history)) {
    const key = `longest_${hand}`;
    out[key] = Math.max(out[key], len);
  }
  return out;
}

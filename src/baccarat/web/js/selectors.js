// What the table screen shows, read from the one view (store.js): pure functions of it.
//
// The server's view already says what a screen needs (the viewer's bets, remaining limits and
// buttons in `me`, the dealer's book and exposure in `book`); these only pick and shape it.
// Times: the view's deadlines are on the server's table clock, which the browser does not
// share; `remaining_ms` was current at `at` (performance.now() ms), so each deadline becomes a
// local one from there.

import { handPoints } from "./cards.js";

export const AREAS = ["player_pair", "player", "tie", "banker", "banker_pair"];
export const PAYOUT = { player_pair: 11, player: 1, tie: 8, banker: 1, banker_pair: 11 };

/** The table and its room as a top bar names them: `known` holds the lobby's names of both. */
export function names(view, known) {
  const table = known?.tables?.find((tb) => tb.table_id === view.table_id) ?? {};
  const room = known?.rooms?.find((r) => r.room_id === view.room) ?? {};
  return {
    table: { name: table.name ?? view.table_id, names: table.names ?? null },
    room: { name: room.name ?? view.room, names: room.names ?? null },
  };
}

/** The viewer's role: "dealer", "bettor" or "spectator". */
export function role(view) {
  return view.me.role;
}

/** The seat's occupant as the view has it, or null. */
export function occupant(view, seat) {
  return view.seats[seat] ?? null;
}

/** The seat `userId` sits at, or -1. */
export function seatOf(view, userId) {
  return view.seats.findIndex((s) => s && String(s.user_id) === String(userId));
}

/** A seated bettor who came in mid-round: they may bet from the next round. */
export function waitingForNextRound(view) {
  const mine = view.me.seat !== null ? occupant(view, view.me.seat) : null;
  return view.me.role === "bettor" && Boolean(mine?.waiting_next_round);
}

/** A hand's cards as the view has them: {card} face up, {face_down} (with its card while squeezed). */
export function cards(view, hand) {
  return view.hands[hand] ?? [];
}

/** The points of a hand's face-up cards, or null before its first card. */
export function points(view, hand) {
  const list = cards(view, hand);
  if (!list.length) return null;
  return handPoints(list.filter((c) => c.card && !c.face_down).map((c) => c.card));
}

/** The winning hand while the result shows, else null. */
export function winner(view) {
  return view.phase === "result" ? view.result?.outcome?.winner ?? null : null;
}

/** The squeeze under way, as the squeeze view draws it, or null. */
export function squeeze(view) {
  const sq = view.squeeze;
  if (!sq || view.phase !== "squeeze") return null;
  return { hand: sq.hand, position: sq.position, card: sq.card ?? null, controller: sq.controller_user_id,
    controllerName: sq.controller_name ?? "", progress: sq.progress ?? 0, corner: sq.corner ?? "br" };
}

/** The viewer's chips by area this round. */
export function myBets(view) {
  return view.me.bets ?? {};
}

/** The viewer's stake this round, in coins. */
export function myStake(view) {
  return view.me.stake ?? 0;
}

/** Whether a tap on an area may bet now (betting is open to this bettor, and some chip fits). */
export function canBet(view) {
  return view.phase === "betting" && role(view) === "bettor" && Boolean(view.me.can_bet);
}

/** Whether the viewer has a chip on any area. */
export function hasBets(view) {
  return Object.values(myBets(view)).some((n) => n > 0);
}

/** What a rebet would place (the viewer's last round here), or null. */
export function lastBets(view) {
  const last = view.me.rebet;
  return last && Object.keys(last).length ? last : null;
}

/** The chips the viewer may still put on each area (a bettor's; null for anyone else). */
export function limitsLeft(view) {
  return view.me.remaining ?? null;
}

/** The dealer's result in coins if Player wins, if Banker wins, on a tie (the server's book). */
export function exposure(view) {
  return view.book?.exposure ?? { if_player_wins: 0, if_banker_wins: 0, if_tie: 0 };
}

/** The coins booked on Player and on Banker. */
export function bookedCoins(view) {
  const totals = view.book?.totals;
  return { player: totals?.player?.coins ?? 0, banker: totals?.banker?.coins ?? 0 };
}

/** The book's rows: each bettor seat that sits or has bets, with its bets; and each area's total. */
export function bookRows(view) {
  const rows = [];
  const totals = Object.fromEntries(AREAS.map((a) => [a, 0]));
  for (let seat = 1; seat <= 7; seat++) {
    const occ = occupant(view, seat);
    const bets = view.book?.per_seat?.[String(seat)] ?? {};
    for (const a of AREAS) totals[a] += bets[a] ?? 0;
    // A bettor who stood up after betting closed still has bets in the book.
    if (occ || Object.keys(bets).length) rows.push({ seat, name: occ?.name ?? null, bets });
  }
  return { rows, totals };
}

/** When the phase's time runs out, as a local time (performance.now() ms), or null. */
export function deadline(view, at) {
  return typeof view.remaining_ms === "number" ? at + view.remaining_ms : null;
}

/** The dealer's next urge, as a local time, or null. */
export function urgeReadyAt(view, at) {
  const ready = view.me.urge_ready_at;
  if (typeof ready !== "number" || typeof view.deadline !== "number" || typeof view.remaining_ms !== "number") {
    return null;
  }
  // The table's clock when the time left was current, to place another of its times.
  const tableNow = view.deadline - view.remaining_ms / 1000;
  return at + (ready - tableNow) * 1000;
}

/** The whole length of the phase's countdown, in seconds. */
export function phaseSeconds(view) {
  const timers = view.timers;
  return { betting: timers.betting_seconds, squeeze: timers.squeeze_seconds, result: timers.result_seconds }[view.phase] ?? 5;
}

/** Seconds left until a local deadline (never negative); `early` ms are taken off. */
export function secondsLeft(deadline, early = 0) {
  if (deadline === null || deadline === undefined) return null;
  return Math.max(0, (deadline - early - performance.now()) / 1000);
}

/**
 * The dealer's rounds in a row as words: {key, n, max} for i18n. With nobody waiting the limit
 * does not apply (a count past it, "39/10", would read as a broken rule); with someone waiting
 * and the limit reached, the dealer hands over after this round, and it says so.
 */
export function dealerStreak(view) {
  const dealer = view.seats?.[0];
  if (!dealer) return null;
  const n = dealer.dealer_rounds;
  const max = view.limits?.dealer_round_limit ?? 10;
  if (!(view.dealer_queue ?? []).length) return { key: "dealer_streak_free", n, max };
  return { key: n >= max ? "dealer_streak_over" : "dealer_streak", n, max };
}

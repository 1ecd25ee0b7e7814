// Reads the server's table view (baccarat.table.view) into the shape the screens draw.
//
// Timers: the view's absolute deadlines are on the server's table clock, which the browser
// does not share; `remaining_ms` is relative to the snapshot, so each deadline becomes a
// local one (performance.now() ms) when the snapshot arrives.

import { handPoints } from "./cards.js";

export const AREAS = ["player_pair", "player", "tie", "banker", "banker_pair"];
export const PAYOUT = { player_pair: 11, player: 1, tie: 8, banker: 1, banker_pair: 11 };
export const DEFAULT_LIMITS = { player: 50, banker: 50, tie: 10, player_pair: 10, banker_pair: 10 };

function readHand(list) {
  const cards = (list || []).map((c) => ({
    code: c?.card ?? null,
    faceDown: Boolean(c?.face_down),
  }));
  const open = cards.filter((c) => c.code && !c.faceDown).map((c) => c.code);
  return { cards, points: cards.length ? handPoints(open) : null };
}

function readSeat(s, i) {
  if (!s) return null;
  return {
    seat: s.seat ?? i,
    user_id: s.user_id,
    name: s.display_name ?? s.name ?? "?",
    level: s.level ?? 0,
    coins: s.coins ?? 0,
    connected: s.connected !== false,
    waiting: Boolean(s.waiting_next_round),
    idle: s.idle_rounds ?? 0,
    leaving: Boolean(s.leaving),
    dealerRounds: s.dealer_rounds ?? 0,
    bets: { ...(s.bets ?? {}) },
  };
}

/** Turn a snapshot into the client's table state; `lobby` supplies names of rooms and tables. */
export function readView(snapshot, receivedAt, lobby) {
  const v = snapshot.view || {};
  const leftMs = typeof v.remaining_ms === "number" ? v.remaining_ms : null;
  // The table clock "now", to turn other absolute times (urge_ready_at) into local ones.
  const tableNow = leftMs !== null && typeof v.deadline === "number" ? v.deadline - leftMs / 1000 : null;
  const local = (abs) => (tableNow === null || typeof abs !== "number" ? null : receivedAt + (abs - tableNow) * 1000);
  const roomInfo = lobby?.rooms?.find((r) => r.room_id === v.room) ?? {};
  const tableInfo = lobby?.tables?.find((tb) => tb.table_id === (v.table_id ?? snapshot.table_id)) ?? {};
  const seats = Array.from({ length: 8 }, (_, i) => readSeat((v.seats ?? [])[i], i));
  const me = v.me ?? {};
  const sq = v.squeeze;
  const result = v.result ?? null;
  const limits = v.limits ?? {};
  return {
    table_id: v.table_id ?? snapshot.table_id,
    name: tableInfo.name ?? v.table_id ?? snapshot.table_id,
    names: tableInfo.names ?? null,
    room: {
      room_id: v.room,
      name: roomInfo.name ?? v.room,
      names: roomInfo.names ?? null,
      chip_unit: v.chip_unit ?? roomInfo.chip_unit ?? 100,
      limits: limits.areas ?? roomInfo.limits ?? DEFAULT_LIMITS,
      bettor_floor: limits.bettor_floor ?? roomInfo.bettor_floor,
      dealer_floor: limits.dealer_floor ?? roomInfo.dealer_floor,
      min_level: limits.min_level ?? roomInfo.min_level,
      dealer_round_limit: limits.dealer_round_limit ?? roomInfo.dealer_round_limit ?? 10,
      chips: v.chips ?? [1, 2, 3, 5, 10],
    },
    timers: v.timers ?? {},
    phase: v.phase ?? "waiting",
    round_no: v.round_no ?? 0,
    round_id: v.round_id ?? null,
    shoe: {
      id: v.shoe?.id ?? null,
      commitment: v.shoe?.commitment ?? null,
      round_no: v.shoe?.round_no ?? 0,
      cards_left: v.shoe?.cards_left ?? null,
    },
    lastShoe: v.last_shoe ?? null,
    deadline: leftMs === null ? null : receivedAt + leftMs,
    seats,
    hands: { player: readHand(v.hands?.player), banker: readHand(v.hands?.banker) },
    squeeze: sq && {
      hand: sq.hand,
      position: sq.position,
      controller: sq.controller_user_id,
      controllerName: sq.controller_name ?? "",
      progress: sq.progress ?? 0,
      corner: sq.corner ?? "br",
    },
    controllers: v.controllers ?? {},
    result,
    history: v.history ?? [],
    queue: v.dealer_queue ?? [],
    chat: v.chat ?? [],
    me: {
      user_id: me.user_id ?? null,
      seat: me.seat ?? null,
      role: me.role ?? "spectator",
      coins: me.coins,
      slip: me.bets ?? {},
      stake: me.stake ?? 0,
      remaining: me.remaining ?? null,
      can_bet: Boolean(me.can_bet),
      rebet: me.rebet ?? null,
      queuePos: me.queue_position ?? null,
      auto_open: Boolean(me.auto_open),
      urgeReadyAt: local(me.urge_ready_at),
    },
    book: v.book ?? null,
    raw: v,
  };
}

/**
 * The dealer's book from the seats' bets, as the server builds it (baccarat.table.book):
 * each seat's bets, the Player and Banker totals the dealer books, and the gross exposure.
 */
export function bookFromSeats(seats, unit) {
  const per_seat = {};
  const chips = { player: 0, banker: 0 };
  for (let seat = 1; seat < seats.length; seat++) {
    const bets = Object.fromEntries(Object.entries(seats[seat]?.bets ?? {}).filter(([, n]) => n));
    if (!Object.keys(bets).length) continue;
    per_seat[String(seat)] = bets;
    chips.player += bets.player ?? 0;
    chips.banker += bets.banker ?? 0;
  }
  const pc = chips.player * unit;
  const bc = chips.banker * unit;
  return {
    per_seat,
    totals: { player: { chips: chips.player, coins: pc }, banker: { chips: chips.banker, coins: bc } },
    exposure: { if_player_wins: bc - pc, if_banker_wins: pc - bc, if_tie: 0 },
  };
}

/** Seconds left until a local deadline (never negative); `early` ms are taken off. */
export function secondsLeft(deadline, early = 0) {
  if (deadline === null || deadline === undefined) return null;
  return Math.max(0, (deadline - early - performance.now()) / 1000);
}

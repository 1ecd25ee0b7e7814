// The table's view kept up to date from the events the screen receives: apply(view, kind, data).
//
// A port of baccarat.table.reducer, checked against it on recorded traces in the browser
// tests: the screen takes one snapshot's view (on joining, an explicit resync, or after a gap
// in seq) and applies every event after it, public and private, in order. Each event carries
// what it changes; the viewer's own part (me, and the dealer's book) comes whole in the
// private "me" event, but for the chips a dealer's book adds up here (the server sends the
// dealer no "me" for a chip). Nothing here recomputes a rule of the game.

function setTime(view, data) {
  view.deadline = data.deadline;
  view.remaining_ms = data.remaining_ms;
}

function noTime(view) {
  view.deadline = null;
  view.remaining_ms = null;
}

/** The round is over (called off, or its result shown): nothing of it stays in view. */
function noRound(view) {
  view.round_id = null;
  view.dealer = null;
  if (view.shoe !== null) view.round_no = view.shoe.round_no;
  view.hands = { player: [], banker: [] };
  view.squeeze = null;
  view.controllers = { player: null, banker: null };
  for (const seat of view.seats) if (seat !== null) seat.bets = {};
}

function addCoins(view, userId, change) {
  for (const seat of view.seats) if (seat !== null && seat.user_id === userId) seat.coins += change;
}

/** A chip in the dealer's book: the seat's bets, the area's total, the exposure. */
function bookChip(book, chipUnit, data) {
  const seat = String(data.seat);
  book.per_seat[seat] = { ...(book.per_seat[seat] ?? {}), [data.area]: data.chips };
  if (!(data.area in book.totals)) return;
  let chips = 0;
  for (const bets of Object.values(book.per_seat)) chips += bets[data.area] ?? 0;
  book.totals[data.area] = { chips, coins: chips * chipUnit };
  const player = book.totals.player.coins, banker = book.totals.banker.coins;
  book.exposure = { if_player_wins: banker - player, if_banker_wins: player - banker, if_tie: 0 };
}

const HANDS = ["player", "banker"];
const CHAT_KEPT = 30; // baccarat.table.chat.KEPT: the messages a table keeps

const STEPS = {
  seated(view, data) {
    view.seats[data.seat] = { ...data, bets: { ...data.bets } };
  },
  seat_freed(view, data) {
    view.seats[data.seat] = null;
  },
  dealer_leaving(view, data) {
    view.seats[data.seat].leaving = true;
  },
  disconnected(view, data) {
    view.seats[data.seat].connected = false;
  },
  reconnected(view, data) {
    view.seats[data.seat].connected = true;
  },
  coins_set(view, data) {
    view.seats[data.seat].coins = data.coins;
  },
  dealer_queue(view, data) {
    view.dealer_queue = data.queue;
  },
  chat(view, data) {
    view.chat = [...(view.chat ?? []), data].slice(-CHAT_KEPT);
  },
  waiting(view) {
    view.phase = "waiting";
    noTime(view);
    noRound(view);
  },
  table_closing(view) {
    view.closing = true;
  },
  table_suspended(view, data) {
    view.suspended = data.reason;
  },
  table_resumed(view) {
    view.suspended = null;
  },
  shoe_started(view, data) {
    view.shoe = { id: data.shoe_id, commitment: data.commitment, round_no: 0, cards_left: data.cards_left };
    view.round_no = 0;
    view.history = [];
    view.result = null;
    view.phase = "waiting";
    noTime(view);
  },
  shoe_ended(view, data) {
    noRound(view);
    // Its marks stay too: the ended shoe's roads (上一靴) are drawn from them.
    view.last_shoe = { shoe_id: data.shoe_id, commitment: data.commitment, seed: data.seed, history: data.history };
    view.shoe = null;
  },
  shuffling(view, data) {
    view.phase = "shuffling";
    setTime(view, data);
  },
  betting_opened(view, data) {
    noRound(view);
    view.phase = "betting";
    setTime(view, data);
    view.round_id = data.round_id;
    view.round_no = data.round_no;
    view.dealer = data.dealer;
    // A new round: everyone seated now is dealt into it.
    for (const seat of view.seats) if (seat !== null) seat.waiting_next_round = false;
  },
  chip_placed(view, data) {
    view.seats[data.seat].bets[data.area] = data.chips;
    if (view.book) bookChip(view.book, view.chip_unit, data);
  },
  bets_changed(view, data) {
    view.seats[data.seat].bets = { ...data.bets };
  },
  bets_cleared(view, data) {
    view.seats[data.seat].bets = {};
  },
  stakes_returned(view, data) {
    view.seats[data.seat].bets = {};
    addCoins(view, data.user_id, data.coins);
  },
  round_cancelled(view) {
    noRound(view);
  },
  betting_closed(view, data) {
    for (const bet of data.bets) addCoins(view, bet.user_id, -bet.coins);
    for (const [seat, idle] of Object.entries(data.idle_rounds)) view.seats[Number(seat)].idle_rounds = idle;
    // The deal follows in the same breath: a squeeze, or at once the settlement.
    view.phase = "squeeze";
  },
  controllers(view, data) {
    view.controllers = { player: data.player, banker: data.banker };
  },
  card_dealt(view, data) {
    view.hands[data.hand].push(data.face_down ? { face_down: true } : { card: data.card });
    view.shoe.cards_left -= 1;
  },
  squeeze_started(view, data) {
    view.phase = "squeeze";
    setTime(view, data);
    view.squeeze = {
      hand: data.hand,
      position: data.position,
      card: data.card,
      controller_user_id: data.controller_user_id,
      controller_name: data.controller_name,
      progress: data.progress,
      corner: data.corner,
      deadline: data.deadline,
    };
    view.hands[data.hand][data.position] = { face_down: true, card: data.card };
  },
  squeeze_progress(view, data) {
    const sq = view.squeeze;
    if (sq !== null && sq.hand === data.hand) {
      sq.progress = data.progress;
      sq.corner = data.corner;
      if (data.deadline !== undefined) {
        // The peel extended the countdown.
        sq.deadline = data.deadline;
        setTime(view, data);
      }
    }
  },
  card_opened(view, data) {
    view.hands[data.hand][data.position] = { card: data.card };
    view.squeeze = null;
    noTime(view);
  },
  round_settled(view, data) {
    view.phase = "result";
    setTime(view, data);
    view.squeeze = null;
    const outcome = data.outcome;
    view.result = { round_id: data.round_id, round_no: data.round_no, outcome, settlement: data.settlement };
    const winner = outcome.winner;
    view.history.push({
      winner,
      points: outcome[winner === "banker" ? "banker" : "player"].points,
      player_pair: outcome.player.pair,
      banker_pair: outcome.banker.pair,
      // Nobody draws after a natural, so two cards each and an 8 or 9 tell it.
      natural: HANDS.every((h) => outcome[h].cards.length === 2) && HANDS.some((h) => outcome[h].points >= 8),
    });
    view.shoe.round_no += 1;
    const dealer = view.seats[0];
    // The dealer seat's occupant dealt this round: one more in a row.
    if (dealer !== null) dealer.dealer_rounds += 1;
    // Each seat gets its escrowed stake back with its delta.
    for (const r of data.results) addCoins(view, r.user_id, r.stake + r.delta);
  },
  me(view, data) {
    view.me = data.me;
    view.book = data.book;
  },
};

/** Events that change no view. */
for (const kind of ["urged", "dealer_turn", "round_voided", "urge"]) STEPS[kind] = () => {};

/** The kinds of event the reducer knows. */
export const EVENTS = Object.freeze(Object.keys(STEPS));

/** The view after the event `kind` with `data`; `view` itself is left unchanged. */
export function apply(view, kind, data) {
  const out = structuredClone(view);
  const step = STEPS[kind];
  if (step) step(out, structuredClone(data));
  return out;
}

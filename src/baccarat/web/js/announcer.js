// The table's live region: what a screen reader says as the round goes, once each and in the
// page's language: the phase, the viewer's own bets, each card as it opens, whose squeeze it
// is, and the result with the viewer's net. Read from the view after each redraw, so a burst
// of events or a snapshot says each thing once, in the order of play. Chat and toasts are live
// regions of their own and are not repeated here.

import { h, fmt, signed } from "./dom.js";
import { t } from "./i18n.js";
import { handPoints } from "./cards.js";
import { say, cardName, nth } from "./spoken.js";
import { AREAS, cards, squeeze, myBets, phaseSeconds } from "./selectors.js";

const KEEP = 4; // lines left in the region (older ones go; only additions are read)

/** The live region of one table screen; `before`: the one it replaces, whose memory it keeps. */
export class Announcer {
  constructor(before = null) {
    this.el = h("div", { class: "sr-only announcer", role: "status", "aria-live": "polite",
      "aria-atomic": "false", "aria-relevant": "additions" });
    this.said = before?.said ?? new Set(); // what was said this round (keys)
    this.round = before?.round; // the round those keys belong to
    this.forced = before?.forced ?? new Set(); // cards the timer opened (their keys)
    this.bets = before?.bets ?? null; // the viewer's bets last said: {round, slip}
  }

  /** The timer opened a card (card_opened with `forced`): its line says so. */
  timeUp(data) {
    this.forced.add(`card:${data.hand}:${data.position}`);
  }

  /** Say what is new in `view` since the last call (on the first, the phase and a squeeze). */
  update(view) {
    const userId = view.me.user_id;
    const round = view.round_id ?? view.result?.round_id ?? `no:${view.round_no}`;
    const first = this.round === undefined;
    if (round !== this.round) {
      this.round = round;
      this.said.clear();
      this.forced.clear();
    }
    const lines = [phaseLine(view), ...this.betLines(view, first), ...cardLines(view, this.forced),
      squeezeLine(view, userId), resultLine(view, userId)];
    for (const line of lines) {
      if (!line || this.said.has(line.key)) continue;
      this.said.add(line.key);
      // A viewer who comes in mid-round hears where the round is, not the cards already open.
      if (first && line.key.startsWith("card:")) continue;
      this.speak(line.text);
    }
  }

  /** Add a line to the region (the oldest beyond KEEP go). */
  speak(text) {
    this.el.append(h("p", null, text));
    while (this.el.childElementCount > KEEP) this.el.firstElementChild.remove();
  }

  // The viewer's stake on each area as it changes while betting is open (a chip placed by
  // keyboard or finger, undone or cleared): said once it is the server's.
  betLines(view, first) {
    if (view.phase !== "betting" || view.me.role !== "bettor") return [];
    const slip = myBets(view);
    const last = this.bets?.round === view.round_id ? this.bets.slip : {};
    this.bets = { round: view.round_id, slip: { ...slip } };
    if (first) return [];
    return AREAS.filter((a) => (slip[a] ?? 0) !== (last[a] ?? 0)).map((a) => ({
      key: `bet:${a}:${slip[a] ?? 0}`,
      text: say("your_bet", { area: t(a), coins: fmt((slip[a] ?? 0) * view.chip_unit) }),
    }));
  }
}

function phaseLine(view) {
  const key = `phase:${view.phase}`;
  switch (view.phase) {
    case "betting":
      return { key, text: say("round_betting", { n: view.round_no, s: Math.round(phaseSeconds(view)) }) };
    case "squeeze":
      return { key, text: say("dealing") };
    case "waiting":
      return { key, text: view.seats[0] ? t("phase_waiting_bettor") : t("phase_waiting") };
    case "shuffling":
      return { key, text: t("phase_shuffling") };
    default:
      return null; // the result says itself
  }
}

// Every face-up card not said yet, in the order they are dealt: Player, Banker, Player...
function cardLines(view, forced) {
  const lines = [];
  for (const position of [0, 1, 2]) {
    for (const hand of ["player", "banker"]) {
      const list = cards(view, hand);
      const card = list[position];
      if (!card?.card || card.face_down) continue;
      const key = `card:${hand}:${position}`;
      const points = handPoints(list.slice(0, position + 1).map((c) => c.card));
      const text = say("card_line", { hand: t(hand), nth: nth(position), card: cardName(card.card), points });
      lines.push({ key, text: forced.has(key) ? say("time_up") + text : text });
    }
  }
  return lines;
}

function squeezeLine(view, userId) {
  const sq = squeeze(view);
  if (!sq) return null;
  const where = { hand: t(sq.hand), nth: nth(sq.position) };
  const mine = String(sq.controller) === String(userId);
  return { key: `squeeze:${sq.hand}:${sq.position}`,
    text: mine ? say("squeeze_mine", where) : say("squeeze_other", { ...where, name: sq.controllerName }) };
}

function resultLine(view, userId) {
  const res = view.result;
  if (view.phase !== "result" || !res?.outcome) return null;
  const o = res.outcome;
  const winner = o.winner === "tie" ? t("result_tie") : t("result_win", { hand: t(o.winner) });
  const parts = [winner, say("result_points", { p: o.player?.points, b: o.banker?.points })];
  if (o.player?.pair) parts.push(t("player_pair"));
  if (o.banker?.pair) parts.push(t("banker_pair"));
  const delta = res.settlement?.deltas?.[String(userId)];
  const fee = res.settlement?.commission?.[String(userId)] ?? 0;
  if (delta !== undefined) {
    parts.push(say("your_net", { net: signed(delta) }) + (fee ? `, ${say("commission", { n: fmt(fee) })}` : ""));
  }
  return { key: `result:${res.round_id}`, text: parts.join(say("sep")) };
}

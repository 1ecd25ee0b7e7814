// The round's result on the table: the banner between the hands (who won, the points, the
// pairs, the viewer's net and commission), shown once the last card is in its hand, and, once
// a round, the win or loss sound and a badge of each seat's net (badges.js).

import { h, mount, fmt, signed, pulse } from "./dom.js";
import { t } from "./i18n.js";
import { deadline, seatOf } from "./selectors.js";
import { play } from "./sound.js";

const BADGE_MS = 4200; // how long a result's badges stay
const REVEAL_BEAT_MS = 1700; // the longest a result waits for an opened card (its whole beat)
const LATE_MS = 250; // read this late, the result waits for no card

/** The result banner of one table screen; `before`: the one it replaces, whose memory it keeps. */
export class ResultBanner {
  constructor(screen, before = null) {
    this.screen = screen;
    this.floated = before?.floated ?? null; // the round whose result was shown
    this.badges = before?.badges ?? null; // the result's badges: {round, until, list}
    // Shown over the ring, between the hands: the cards, the areas' names and everyone's chips
    // stay in view.
    this.el = h("div", { class: "result-banner", hidden: true });
  }

  draw(view) {
    const res = view.result;
    if (view.phase !== "result" || !res?.outcome) {
      this.el.hidden = true;
      return;
    }
    const { squeeze } = this.screen;
    if (this.floated !== res.round_id && squeeze.reveals.size) {
      // The last card is still turning over and flying to its hand: the result follows it,
      // so nothing covers the banner and the badges.
      this.el.hidden = true;
      if (this.waitFor !== res.round_id) {
        this.waitFor = res.round_id;
        squeeze.afterReveals(() => {
          const now = this.screen.view;
          if (now?.phase === "result" && now.result?.round_id === res.round_id) this.draw(now);
        });
        // The reveal yields to the result, never the other way: past its whole beat (or a
        // third of the result's time left, if sooner) the card is in its hand at once, however
        // long a starved device's flight would still take, and the banner shows. The time
        // left is the server's: a page that read the result late has less of it.
        const { at } = this.screen.table.store;
        if (performance.now() - at > LATE_MS) {
          // A page that read the result late (a starved device) lands the card now: its
          // timers would come later still, and the next round before the banner.
          squeeze.landReveals("late");
          return;
        }
        const ends = deadline(view, at);
        const third = ends === null ? 0 : Math.max(0, ends - performance.now()) / 3;
        setTimeout(() => {
          if (this.screen.view?.result?.round_id === res.round_id) squeeze.landReveals("beat");
        }, Math.min(REVEAL_BEAT_MS, third));
      }
      return;
    }
    const myDelta = res.settlement?.deltas?.[String(view.me.user_id)];
    this.fill(view, res, myDelta);
    if (this.floated === res.round_id) {
      // Drawn again (a language switch): the badges come back where they were, quietly.
      if (this.badges?.round === res.round_id && performance.now() < this.badges.until &&
          !this.screen.felt.querySelector(".float-net")) this.screen.badges.place(this.badges, true);
      return;
    }
    this.floated = res.round_id;
    pulse(this.el, "pop");
    if (myDelta > 0) play("win");
    else if (myDelta < 0) play("lose");
    // A badge for each seat whose coins changed: a push (a tie's Player and Banker bets)
    // or a seat without bets shows nothing rather than a 0.
    const list = [];
    for (const [uid, delta] of Object.entries(res.settlement?.deltas ?? {})) {
      const seat = seatOf(view, uid);
      if (seat < 0 || !delta) continue;
      list.push({ seat, delta, fee: res.settlement?.commission?.[uid] ?? 0 });
    }
    this.badges = { round: res.round_id, until: performance.now() + BADGE_MS, list };
    this.screen.badges.place(this.badges, false);
  }

  /** The banner's lines for the result `res`; `myDelta`: the viewer's net, if any. */
  fill(view, res, myDelta) {
    const o = res.outcome;
    const pp = o.player?.points ?? o.player_points;
    const bp = o.banker?.points ?? o.banker_points;
    const winner = o.winner;
    const myFee = res.settlement?.commission?.[String(view.me.user_id)] ?? 0;
    // The words a phone's narrow banner leaves out (rb-word): the colours and the hands say them.
    const word = (text) => h("span", { class: "rb-word" }, text);
    const [before, after] = t("result_win", { hand: "\u0001" }).split("\u0001");
    mount(this.el,
      h("div", { class: `rb-title rb-${winner}` },
        winner === "tie" ? t("result_tie") : [before ? word(before) : null, t(winner), after ? word(after) : null]),
      h("div", { class: "rb-score" },
        h("span", { class: "rb-p" }, word(`${t("player")} `), String(pp)), " : ",
        h("span", { class: "rb-b" }, String(bp), word(` ${t("banker")}`))),
      (o.player?.pair || o.banker?.pair) ? h("div", { class: "rb-pairs" },
        o.player?.pair ? h("span", { class: "pill pill-player_pair" }, t("player_pair")) : null,
        o.banker?.pair ? h("span", { class: "pill pill-banker_pair" }, t("banker_pair")) : null) : null,
      myDelta !== undefined ? h("div", { class: `rb-net ${myDelta > 0 ? "up" : myDelta < 0 ? "down" : ""}` },
        word(`${t("net")} `), signed(myDelta), myFee ? h("small", null, ` (${t("commission", { n: fmt(myFee) })})`) : null) : null,
    );
    this.el.hidden = false;
    this.el.dataset.winner = winner;
    this.el.dataset.round = res.round_id;
  }
}

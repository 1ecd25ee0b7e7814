// The table screen: the bettor's view (seats 1-7 and spectators) and the dealer's view, drawn
// from the table's one view (store.js) through selectors.js. The bar of controls (controls.js),
// the result's banner and badges (result.js, badges.js) and the squeeze (squeeze.js) are drawn
// by their own modules.

import { h, mount, fmt, pulse, reducedMotion, stableControls } from "./dom.js";
import { t, errorText, named } from "./i18n.js";
import {
  AREAS, names, role, occupant, seatOf, cards, winner, squeeze, canBet, limitsLeft,
  deadline, urgeReadyAt, phaseSeconds, secondsLeft, dealerStreak,
} from "./selectors.js";
import { seatBox, areaBox, handBox, bookPanel, ring } from "./parts.js";
import { SqueezeView } from "./squeeze.js";
import { TableControls } from "./controls.js";
import { ResultBanner } from "./result.js";
import { ResultBadges } from "./badges.js";
import { placeBubble } from "./bubbles.js";
import { RoadsPanel } from "./roadspanel.js";
import { play } from "./sound.js";
import { totalsLine } from "./history.js";
import { ChatPanel, emoteSVG, mutedUsers } from "./chat.js";
import { FairnessPanel } from "./fairpanel.js";
import { remember } from "./seen.js";
import { toast, toolbar } from "./shell.js";
import { Announcer } from "./announcer.js";

const BET_EARLY_MS = 300; // the betting countdown ends this much before the server closes
// The view's timers leave out the urge's cooldown: the ring counts it against the rooms' default.
const URGE_COOLDOWN_S = 10;

/**
 * The whole table screen; render() draws it from the table's view. `table` is its controller
 * (tablecontrol.js): the store it reads, the commands it sends, where its buttons lead.
 */
export class TableScreen {
  /** `before`: the screen this one replaces (a language switch), whose memory it keeps, so
   * that what was already shown (cards dealt, a result's badges and sounds) is not replayed. */
  constructor(table, before = null) {
    this.table = table;
    // The view last drawn: what changed since (a card dealt, coins won) is animated.
    this.view = before?.view ?? null;
    this.coinShown = before?.coinShown ?? new Map();
    this.result = new ResultBanner(this, before?.result);
    this.badges = new ResultBadges(this);
    this.urgedUntil = 0;
    // The fairness panel goes on from screen to screen (a language switch): its checks stay.
    this.fairPanel = before?.fairPanel ?? new FairnessPanel();
    if (!before) this.fairPanel.watch();
    // The live region keeps what it said: a language switch repeats nothing.
    this.announcer = new Announcer(before?.announcer);
    this.build();
    this.fairPanel.onAlarm = () => this.view && this.drawTop(this.view);
    this.fairPanel.redraw();
    // Countdowns tick ten times a second: smooth enough, and light on a phone's battery.
    this.timer = setInterval(() => this.loop(), 100);
  }

  build() {
    this.topInfo = h("div", { class: "top-info" });
    this.chatPanel = new ChatPanel({ send: (type, fields) => this.table.send(type, fields),
      refuse: (err) => this.refuse(err), userId: () => this.table.session.user?.id });
    this.topbar = h("header", { class: "topbar" },
      h("button", { class: "btn btn-ghost btn-lobby", onclick: () => this.table.leave() }, `‹ ${t("lobby")}`),
      this.topInfo, this.chatPanel.toggle, toolbar());
    this.dealerRail = h("div", { class: "rail" });
    this.shoeEl = h("div", { class: "shoe", title: t("shoe") },
      h("div", { class: "shoe-box" }, h("div", { class: "shoe-card" })), h("div", { class: "shoe-count" }));
    this.handP = h("div", { class: "hand-slot slot-player" });
    this.handB = h("div", { class: "hand-slot slot-banker" });
    this.mainRing = ring("main-ring");
    this.phaseText = h("div", { class: "phase-text" });
    this.center = h("div", { class: "center" }, this.mainRing.el, this.phaseText, this.result.el);
    this.handsRow = h("div", { class: "hands-row" }, this.shoeEl, this.handP, this.center, this.handB);
    this.areasRow = h("div", { class: "areas" });
    this.seatsRow = h("div", { class: "seats" });
    this.queueEl = h("div", { class: "dealer-queue" });
    // Their buttons name a seat, an area or an action: the focused one is kept through redraws.
    for (const el of [this.dealerRail, this.areasRow, this.seatsRow, this.queueEl]) stableControls(el);
    this.noticeEl = h("div", { class: "notice", hidden: true });
    this.urgeEl = h("div", { class: "urge-banner", hidden: true, role: "alert" }, t("urged"));
    this.squeeze = new SqueezeView({
      onProgress: (hand, progress, corner) => this.table.send("squeeze", { hand, progress, corner }).catch(() => {}),
      onOpen: (hand) => this.table.send("open", { hand }).catch((err) => this.refuse(err)),
      rate: () => this.table.session.squeezeRate,
    });
    // The table's name as the page's heading (the top bar shows it), for screen readers.
    this.heading = h("h1", { class: "sr-only", tabindex: "-1" });
    this.felt = h("div", { class: "felt", role: "main" }, this.heading,
      h("div", { class: "felt-inner" }, this.dealerRail, this.queueEl, this.handsRow, this.areasRow, this.seatsRow),
      this.noticeEl, this.urgeEl, this.squeeze.el, this.announcer.el);
    this.bookSlot = h("div", { class: "book-slot" });
    this.controls = new TableControls(this);
    this.roads = new RoadsPanel();
    this.el = h("div", { class: "screen table-screen" }, this.topbar,
      h("div", { class: "stage" }, this.felt, this.bookSlot), this.roads.strip, this.controls.el, this.roads.el, this.chatPanel.el,
      this.fairPanel.el);
    this.squeeze.attach(this.el);
  }

  /** Stop the animation loop (leaving the screen). */
  destroy() {
    clearInterval(this.timer);
    this.badges.destroy();
    this.squeeze.destroy();
  }

  /** Draw the table's view; animations come from comparing it with the view drawn last. */
  render(view) {
    const prev = this.view;
    this.view = view;
    const viewer = role(view);
    this.el.dataset.role = viewer;
    this.el.dataset.phase = view.phase;
    this.el.classList.toggle("dealer-view", viewer === "dealer");
    // Every commitment the page is shown before its shoe's seed is revealed is remembered.
    if (view.shoe) remember(view.shoe.id, view.table_id, view.shoe.commitment);
    this.drawTop(view);
    this.drawSeats(view);
    this.drawQueue(view);
    this.chatPanel.update(view);
    this.drawHands(view, prev);
    this.drawAreas(view);
    this.controls.draw(view);
    this.drawSqueeze(view);
    this.result.draw(view);
    this.drawNotice(view);
    mount(this.bookSlot, viewer === "dealer" ? bookPanel(view) : null);
    this.roads.update(view.history, view.shoe, view.last_shoe);
    if (view.phase !== "betting") this.urgeEl.hidden = true;
    this.badges.update(view);
    this.announcer.update(view);
  }

  drawTop(view) {
    const label = names(view, this.table.lobby.known());
    this.heading.textContent = `${named(label.table)} · ${t(role(view) === "dealer" ? "dealer_view" : role(view) === "bettor" ? "bettor" : "watching")}`;
    mount(this.topInfo,
      h("span", { class: "ti-room" }, named(label.room)),
      h("span", { class: "ti-table" }, named(label.table)),
      h("span", { class: "ti-round" }, t("round_of", { n: view.round_no || 0 })),
      role(view) === "dealer" ? h("span", { class: "ti-role" }, t("dealer_view")) : null,
      role(view) === "spectator" ? h("span", { class: "ti-role" }, t("watching")) : null,
      totalsLine(this.table.totals),
      h("button", { class: "btn btn-ghost btn-small btn-history", "data-action": "history",
        onclick: () => this.table.history() }, t("my_bets")),
      h("button", { class: `btn btn-ghost btn-small btn-fairness${this.fairPanel.alarmed ? " alarm" : ""}`, "data-action": "fairness",
        onclick: () => this.fairPanel.open(this.view) }, t("fairness")),
    );
    this.fairPanel.update(view);
  }

  drawSeats(view) {
    const canSit = view.me.seat === null;
    const opts = { canSit, onSit: (seat) => this.table.sit(view.table_id, seat) };
    mount(this.dealerRail, seatBox(view, 0, { ...opts, canSit: canSit || (role(view) === "bettor" && !view.round_id) }));
    const seats = [1, 2, 3, 4, 5, 6, 7].map((n) => seatBox(view, n, opts));
    mount(this.seatsRow, seats);
    // Coins roll from the last value shown to the new one.
    for (const box of [this.dealerRail.firstChild, ...seats]) {
      const seat = Number(box.dataset.seat);
      const occ = occupant(view, seat);
      const el = box.querySelector(".coins");
      if (!occ || !el) continue;
      const key = `${seat}:${occ.user_id}`;
      const from = this.coinShown.get(key);
      this.coinShown.set(key, occ.coins);
      if (from !== undefined && from !== occ.coins) rollNumber(el, from, occ.coins);
    }
  }

  /** The dealer queue (上莊排隊) on every screen: who waits, my place, join or leave. */
  drawQueue(view) {
    const pos = view.me.queue_position ?? null;
    const streak = dealerStreak(view);
    const queue = view.dealer_queue ?? [];
    const max = view.limits.dealer_round_limit ?? 10;
    const waiting = queue.map((w, i) => h("li", { class: w.user_id === view.me.user_id ? "me" : null,
      "data-user": w.user_id }, `${i + 1}. `, h("span", { translate: "no" }, w.name)));
    const canJoin = pos === null && role(view) !== "dealer";
    mount(this.queueEl,
      h("span", { class: "dq-title" }, t("dealer_queue"), h("b", { class: "dq-count" }, ` ${queue.length}`)),
      streak ? h("span", { class: "dq-streak", title: t(queue.length ? "dealer_limit_hint" : "dealer_free_hint", { max }) },
        t(streak.key, streak)) : null,
      waiting.length ? h("ol", { class: "dq-list" }, waiting) : h("span", { class: "dq-empty" }, t("queue_empty")),
      pos !== null ? h("span", { class: "dq-pos" }, t("queue_pos", { n: pos })) : null,
      canJoin ? h("button", { class: "btn btn-small btn-queue", "data-action": "queue-join",
        onclick: () => this.table.send("queue.join").catch((err) => this.refuse(err)) }, t("join_queue")) : null,
      pos !== null ? h("button", { class: "btn btn-small btn-queue", "data-action": "queue-leave",
        onclick: () => this.table.send("queue.leave").catch((err) => this.refuse(err)) }, t("leave_queue")) : null);
  }

  drawHands(view, prev) {
    const won = winner(view);
    for (const name of ["player", "banker"]) {
      const before = prev && prev.round_id === view.round_id ? cards(prev, name) : [];
      const newCards = new Set();
      const flipped = new Set();
      cards(view, name).forEach((c, i) => {
        if (i >= before.length) newCards.add(i);
        else if (before[i].face_down && !c.face_down) flipped.add(i);
      });
      const box = handBox(view, name, { winner: won, newCards, flipped });
      mount(name === "player" ? this.handP : this.handB, box);
      if (newCards.size) {
        play("card");
        requestAnimationFrame(() => this.flyFromShoe(box));
      }
      if (flipped.size) play("flip");
    }
    const left = view.shoe?.cards_left ?? null;
    this.shoeEl.querySelector(".shoe-count").textContent = left === null ? "" : String(left);
  }

  flyFromShoe(box) {
    // Phones hide the shoe: the cards then come from the dealer's place.
    let from = this.shoeEl.getBoundingClientRect();
    if (!from.width) from = this.dealerRail.getBoundingClientRect();
    for (const card of box.querySelectorAll(".deal-in")) {
      const r = card.getBoundingClientRect();
      card.style.setProperty("--dx", `${from.left + from.width / 2 - (r.left + r.width / 2)}px`);
      card.style.setProperty("--dy", `${from.top + from.height / 2 - (r.top + r.height / 2)}px`);
      pulse(card, "fly");
    }
  }

  drawAreas(view) {
    const bettor = role(view) === "bettor";
    const left = bettor ? limitsLeft(view) : null;
    mount(this.areasRow, AREAS.map((a) => areaBox(view, a, {
      onTap: (area) => this.controls.bet(area),
      mySlip: this.controls.slip(view),
      left: left ? left[a] : undefined,
    })));
    this.areasRow.classList.toggle("open", canBet(view));
  }

  /** The viewer's stake as shown, redrawn alone: the areas and the tray's total (a chip sent
   * shows at once, not after the table's next full redraw). */
  drawStake() {
    const view = this.view;
    if (!view) return;
    this.drawAreas(view);
    const total = this.controls.el.querySelector(".tray-stake b");
    if (total) total.textContent = fmt(this.controls.stake(view));
  }

  drawSqueeze(view) {
    const sq = squeeze(view);
    if (!sq) {
      this.squeeze.hide();
      return;
    }
    const mine = sq.controller === view.me.user_id;
    this.squeeze.show(sq, { mine, code: sq.card, handLabel: t(sq.hand), seat: seatOf(view, sq.controller) });
  }

  drawNotice(view) {
    // An operator's closing notice stands over the felt once the round in play is over.
    // (A user who sat mid-round is told in the chip tray, controls.js.)
    const closed = view.suspended && view.phase === "waiting";
    this.noticeEl.hidden = !closed;
    this.noticeEl.classList.toggle("closed", Boolean(closed));
    if (closed) this.noticeEl.textContent = t("table_closed_notice", { notice: view.suspended });
  }

  phaseLabel(view) {
    switch (view.phase) {
      case "waiting":
        return occupant(view, 0) ? t("phase_waiting_bettor") : t("phase_waiting");
      case "betting":
        return t("phase_betting");
      case "squeeze":
        return squeeze(view) ? t("phase_squeeze") : t("phase_dealing");
      case "result":
        return t("phase_result");
      case "shuffling":
        return t("phase_shuffling");
      default:
        return view.phase;
    }
  }

  /** Every tick: the countdowns, from the store's view (a peel move draws nothing else). */
  loop() {
    const { view, at } = this.table.store;
    if (!view) return;
    const early = view.phase === "betting" ? BET_EARLY_MS : 0;
    const left = secondsLeft(deadline(view, at), early);
    const total = phaseSeconds(view);
    this.mainRing.set(view.phase === "waiting" ? null : left, total);
    // The last seconds of betting tick, once a second.
    const whole = left === null ? null : Math.ceil(left);
    if (view.phase === "betting" && whole !== null && whole <= 3 && whole > 0 && whole !== this.lastTick) play("tick");
    this.lastTick = whole;
    // The countdown ends a moment before the server closes betting: from then on the
    // screen says betting is closed, not 請下注 beside an empty ring.
    const label = view.phase === "betting" && left !== null && left <= 0 ? t("phase_closed") : this.phaseLabel(view);
    if (this.phaseText.textContent !== label) this.phaseText.textContent = label;
    if (this.center.dataset.phase !== view.phase) this.center.dataset.phase = view.phase;
    if (squeeze(view)) this.squeeze.tick(left, total);
    const urgeRing = this.controls.urgeRing;
    if (urgeRing) {
      const cd = secondsLeft(urgeReadyAt(view, at));
      urgeRing.set(cd && cd > 0 ? cd : null, URGE_COOLDOWN_S);
    }
    if (this.urgedUntil && performance.now() > this.urgedUntil) {
      this.urgedUntil = 0;
      this.urgeEl.hidden = true;
    }
  }

  /** A chat message floats by the speaker's seat for a few seconds (unless muted). */
  bubble(msg) {
    if (mutedUsers().has(msg.user_id)) return;
    const box = this.el.querySelector(`.seat[data-seat="${msg.seat}"]`);
    if (!box) return;
    const text = msg.text && msg.text.length > 40 ? `${msg.text.slice(0, 39)}…` : msg.text;
    const el = h("div", { class: "chat-bubble", translate: "no", "data-seat": msg.seat },
      msg.emote ? emoteSVG(msg.emote) : text);
    this.felt.append(el);
    placeBubble(this.felt, el, box);
    setTimeout(() => el.remove(), 4000);
  }

  /** Show a refusal: the area shakes and the reason is said in the user's language. */
  refuse(err, area) {
    play("refuse");
    const limit = area ? this.view?.limits.areas?.[area] : undefined;
    const unit = this.view?.chip_unit;
    const text = errorText(err, area ? { area, limit, unit } : { unit });
    if (area) {
      const el = this.areasRow.querySelector(`[data-area="${area}"]`);
      pulse(el, "shake");
    }
    toast(text, "error");
  }

  /**
   * A table event, once the store has applied it: the sounds and animations a redraw cannot
   * tell (another seat's chip, a card turning over in the big view, an urge, a notice). Whether
   * the screen is as it should be without a redraw: a peel move, or the urge, changes nothing
   * else on it. Nothing here keeps any of the table: the view is read from the store.
   */
  react(name, data, isPrivate) {
    const view = this.table.store.view;
    if (name === "squeeze_progress") {
      const sq = squeeze(view);
      if (!sq || data.hand !== sq.hand) return false;
      if (sq.controller !== view.me.user_id) this.squeeze.moveTo(data.progress, data.corner);
      return true;
    }
    // The squeezed card turns face up in the big view before the screen moves on.
    if (name === "card_opened") this.squeeze.opened(data, { handLabel: t(data.hand) });
    if (name === "card_opened" && data.forced) this.announcer.timeUp(data);
    if (name === "urge" && isPrivate) {
      this.urgeEl.hidden = false;
      pulse(this.urgeEl, "pop");
      this.urgedUntil = performance.now() + 4000;
      play("urge");
      return true;
    }
    if (name === "chip_placed" && data.seat !== view.me.seat) play("chip");
    if (name === "round_voided") toast(t("round_voided"), "error");
    if (name === "stakes_returned" && data.user_id === view.me.user_id) toast(t("stakes_returned"), "error");
    if (name === "shoe_started") {
      remember(data.shoe_id, view.table_id, data.commitment);
      this.fairPanel.watch(); // (the log grew: the witnesses' word on it is asked again)
    }
    if (name === "shoe_ended") this.fairPanel.shoeEnded(data);
    if (name === "table_closing") toast(t("closing_notice"), "info", 8000);
    if (name === "table_suspended") toast(t("table_suspended_notice", { notice: data.reason }), "info", 8000);
    if (name === "table_resumed") toast(t("table_resumed_notice"), "info", 5000);
    // At the close the dealer could not cover all of the bets: the latest went back.
    if ((data.action ?? data.reason) === "uncovered" && data.user_id === view.me.user_id) {
      toast(t("bets_uncovered"), "error");
    }
    if (name === "chat") this.bubble(data);
    if (name === "dealer_leaving") {
      toast(data.user_id === view.me.user_id ? t("you_leave_after_round") : t("dealer_leaves_after_round"));
    }
    return false;
  }
}

/** Roll a number shown in `el` from `from` to `to` over about 0.9 s (at once without motion). */
export function rollNumber(el, from, to) {
  if (reducedMotion()) {
    el.textContent = fmt(to);
    return;
  }
  const start = performance.now();
  const dur = 900;
  el.classList.add(to > from ? "rolling-up" : "rolling-down");
  const step = (now) => {
    const k = Math.min(1, (now - start) / dur);
    const eased = 1 - (1 - k) ** 3;
    el.textContent = fmt(Math.round(from + (to - from) * eased));
    if (k < 1) requestAnimationFrame(step);
    else el.classList.remove("rolling-up", "rolling-down");
  };
  el.textContent = fmt(from);
  requestAnimationFrame(step);
}

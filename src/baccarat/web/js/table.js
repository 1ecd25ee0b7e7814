// The table screen: the bettor's view (seats 1-7 and spectators) and the dealer's view, drawn
// from the table's one view (store.js) through selectors.js.

import { h, mount, fmt, signed, pulse, reducedMotion } from "./dom.js";
import { t, errorText, named } from "./i18n.js";
import { chipSVG } from "./chips.js";
import {
  AREAS, names, role, occupant, seatOf, waitingForNextRound, cards, winner, squeeze, myBets, myStake, hasBets,
  lastBets, canBet, limitsLeft, deadline, urgeReadyAt, phaseSeconds, secondsLeft, dealerStreak,
} from "./selectors.js";
import { seatBox, areaBox, handBox, bookPanel, ring, exposureCells } from "./parts.js";
import { SqueezeView } from "./squeeze.js";
import { draggable, flyChip } from "./chipdrag.js";
import { RoadsPanel } from "./roadspanel.js";
import { play } from "./sound.js";
import { totalsLine } from "./history.js";
import { ChatPanel, emoteSVG, mutedUsers } from "./chat.js";
import { FairnessPanel } from "./fairpanel.js";
import { remember } from "./seen.js";
import { toast, toolbar } from "./shell.js";

const BET_EARLY_MS = 300; // the betting countdown ends this much before the server closes
const BADGE_MS = 4200; // how long a result's badges stay
const REVEAL_BEAT_MS = 1700; // the longest a result waits for an opened card (its whole beat)
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
    this.chip = Number(localStorage.getItem("baccarat.chip")) || 1;
    // The view last drawn: what changed since (a card dealt, coins won) is animated.
    this.view = before?.view ?? null;
    this.coinShown = before?.coinShown ?? new Map();
    this.floated = before?.floated ?? null;
    this.badges = before?.badges ?? null; // the result's badges: {round, until, list}
    this.urgedUntil = 0;
    // The fairness panel goes on from screen to screen (a language switch): its checks stay.
    this.fairPanel = before?.fairPanel ?? new FairnessPanel();
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
    // The result is shown over the ring, between the hands: the cards, the areas' names and
    // everyone's chips stay in view.
    this.resultEl = h("div", { class: "result-banner", hidden: true });
    this.center = h("div", { class: "center" }, this.mainRing.el, this.phaseText, this.resultEl);
    this.handsRow = h("div", { class: "hands-row" }, this.shoeEl, this.handP, this.center, this.handB);
    this.areasRow = h("div", { class: "areas" });
    this.seatsRow = h("div", { class: "seats" });
    this.queueEl = h("div", { class: "dealer-queue" });
    this.noticeEl = h("div", { class: "notice", hidden: true });
    this.urgeEl = h("div", { class: "urge-banner", hidden: true, role: "alert" }, t("urged"));
    this.squeeze = new SqueezeView({
      onProgress: (hand, progress, corner) => this.table.send("squeeze", { hand, progress, corner }).catch(() => {}),
      onOpen: (hand) => this.table.send("open", { hand }).catch((err) => this.refuse(err)),
      rate: () => this.table.session.squeezeRate,
    });
    this.felt = h("div", { class: "felt" },
      h("div", { class: "felt-inner" }, this.dealerRail, this.queueEl, this.handsRow, this.areasRow, this.seatsRow),
      this.noticeEl, this.urgeEl, this.squeeze.el);
    this.bookSlot = h("div", { class: "book-slot" });
    this.controls = h("div", { class: "controls" });
    this.roads = new RoadsPanel();
    this.el = h("div", { class: "screen table-screen" }, this.topbar,
      h("div", { class: "stage" }, this.felt, this.bookSlot), this.roads.strip, this.controls, this.roads.el, this.chatPanel.el,
      this.fairPanel.el);
    this.squeeze.attach(this.el);
  }

  /** Stop the animation loop (leaving the screen). */
  destroy() {
    clearInterval(this.timer);
    this.badgeWatch?.disconnect();
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
    this.drawControls(view);
    this.drawSqueeze(view);
    this.drawResult(view);
    this.drawNotice(view);
    mount(this.bookSlot, viewer === "dealer" ? bookPanel(view) : null);
    this.roads.update(view.history, view.shoe, view.last_shoe);
    if (view.phase !== "betting") this.urgeEl.hidden = true;
    // A result's badges go with the result (a fast table's next round comes sooner).
    if (view.phase !== "result") for (const el of this.felt.querySelectorAll(".float-net")) el.remove();
    // A redraw that moved a seat without resizing a row (a seat taken, a name changed).
    else if (this.felt.querySelector(".float-net")) this.layoutBadges();
  }

  drawTop(view) {
    const label = names(view, this.table.lobby.known());
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
      onTap: (area) => this.tapArea(area),
      mySlip: myBets(view),
      left: left ? left[a] : undefined,
    })));
    this.areasRow.classList.toggle("open", canBet(view));
  }

  drawControls(view) {
    const viewer = role(view);
    if (viewer === "dealer") {
      this.urgeRing = ring("urge-ring");
      const urgeBtn = h("button", { class: "btn btn-urge", "data-action": "urge", onclick: () => this.urge() },
        this.urgeRing.el, h("span", null, t("urge")));
      mount(this.controls, h("div", { class: "dealer-bar" },
        exposureCells(view),
        h("div", { class: "db-info" }, h("b", null, t("dealer")),
          h("span", null, `${t("dealer_floor", { n: fmt(view.limits.dealer_floor ?? 0) })}`)),
        urgeBtn,
        h("button", { class: "btn btn-stand", onclick: () => this.table.stand() }, t("stand"))));
      return;
    }
    this.urgeRing = null;
    if (viewer !== "bettor") {
      mount(this.controls, h("div", { class: "spectator-bar" }, h("span", null, t("watching")),
        h("span", { class: "hint" }, t("tap_chip"))));
      return;
    }
    const unit = view.chip_unit;
    const chips = view.chips.map((c) => {
      const btn = h("button", {
        class: `tray-chip${c === this.chip ? " chosen" : ""}`, "data-chip": c, "aria-pressed": c === this.chip,
        onclick: () => {
          this.choose(c);
          play("chip");
        },
      }, chipSVG(c), h("span", { class: "chip-coins" }, fmt(c * unit)));
      // Dropping a chip on an area bets it (and makes it the chosen chip).
      draggable(btn, c, (area, x, y) => {
        this.choose(c);
        this.tapArea(area, { x, y });
      });
      return btn;
    });
    const left = limitsLeft(view) ?? {};
    mount(this.controls, h("div", { class: "tray" },
      h("div", { class: "tray-chips" }, chips),
      h("div", { class: "tray-side" },
        h("div", { class: "tray-stake" }, h("span", null, t("bet_total")), h("b", null, fmt(myStake(view)))),
        h("div", { class: "tray-left" }, h("span", null, t("limits_left")),
          ...AREAS.map((a) => h("span", { class: `lim lim-${a}` }, `${t(a)} ${fmt((left[a] ?? 0) * unit)}`)))),
      h("div", { class: "tray-buttons" },
        this.autoOpenToggle(view),
        ...this.slipButtons(view),
        h("button", { class: "btn btn-stand", onclick: () => this.table.stand() }, t("stand"))),
    ));
  }

  /**
   * 重複 / 加倍 / 撤銷 / 清除: each one command the server takes whole or refuses whole. A button
   * is greyed out when it could not do anything; any other refusal is said in words.
   */
  slipButtons(view) {
    const open = view.phase === "betting";
    const has = hasBets(view);
    const last = lastBets(view);
    const button = (action, enabled, title) => h("button", {
      class: `btn btn-${action}`, "data-action": action, disabled: !(open && enabled), title,
      onclick: () => this.slipAction(action),
    }, t(action));
    const unit = view.chip_unit;
    const lastText = last ? AREAS.filter((a) => last[a]).map((a) => `${t(a)} ${fmt(last[a] * unit)}`).join(" · ") : "";
    return [
      button("rebet", !has && last, lastText),
      button("double", has),
      button("undo", has),
      button("clear", has),
    ];
  }

  /** 自動開牌: the cards this user controls open at once; remembered for the account. The view's
   * `me` says whether it is on: the server sends it again once the table took the change. */
  autoOpenToggle(view) {
    const on = Boolean(view.me.auto_open);
    const box = h("input", { type: "checkbox", "data-action": "auto-open", checked: on,
      onchange: () => {
        const want = box.checked;
        this.table.send("prefs", { auto_open: want }).catch((err) => {
          box.checked = !want;
          this.refuse(err);
        });
      } });
    return h("label", { class: `auto-open${on ? " on" : ""}`, title: t("auto_open_hint") }, box, t("auto_open"));
  }

  slipAction(action) {
    this.table.send(action).then(() => {
      if (action !== "undo" && action !== "clear") play("chip");
    }, (err) => this.refuse(err));
  }

  /** Make `chip` the chip a tap on an area bets (remembered across visits). */
  choose(chip) {
    if (chip === this.chip) return;
    this.chip = chip;
    localStorage.setItem("baccarat.chip", String(chip));
    this.drawControls(this.view);
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

  drawResult(view) {
    const res = view.result;
    if (view.phase !== "result" || !res?.outcome) {
      this.resultEl.hidden = true;
      return;
    }
    if (this.floated !== res.round_id && this.squeeze.reveals.size) {
      // The last card is still turning over and flying to its hand: the result follows it,
      // so nothing covers the banner and the badges.
      this.resultEl.hidden = true;
      if (this.resultWait !== res.round_id) {
        this.resultWait = res.round_id;
        this.squeeze.afterReveals(() => {
          if (this.view?.phase === "result" && this.view.result?.round_id === res.round_id) this.drawResult(this.view);
        });
        // The reveal yields to the result, never the other way: past its whole beat (or a
        // third of the phase, if sooner) the card is in its hand at once, however long a
        // starved device's flight would still take, and the banner shows.
        const third = typeof view.remaining_ms === "number" ? view.remaining_ms / 3 : 0;
        setTimeout(() => {
          if (this.view?.result?.round_id === res.round_id) this.squeeze.landReveals();
        }, Math.min(REVEAL_BEAT_MS, third));
      }
      return;
    }
    const o = res.outcome;
    const pp = o.player?.points ?? o.player_points;
    const bp = o.banker?.points ?? o.banker_points;
    const winner = o.winner;
    const myDelta = res.settlement?.deltas?.[String(view.me.user_id)];
    const myFee = res.settlement?.commission?.[String(view.me.user_id)] ?? 0;
    mount(this.resultEl,
      h("div", { class: `rb-title rb-${winner}` },
        winner === "tie" ? t("result_tie") : t("result_win", { hand: t(winner) })),
      h("div", { class: "rb-score" },
        h("span", { class: "rb-p" }, `${t("player")} ${pp}`), " : ", h("span", { class: "rb-b" }, `${bp} ${t("banker")}`)),
      (o.player?.pair || o.banker?.pair) ? h("div", { class: "rb-pairs" },
        o.player?.pair ? h("span", { class: "pill pill-player_pair" }, t("player_pair")) : null,
        o.banker?.pair ? h("span", { class: "pill pill-banker_pair" }, t("banker_pair")) : null) : null,
      myDelta !== undefined ? h("div", { class: `rb-net ${myDelta > 0 ? "up" : myDelta < 0 ? "down" : ""}` },
        `${t("net")} ${signed(myDelta)}`, myFee ? h("small", null, ` (${t("commission", { n: fmt(myFee) })})`) : null) : null,
    );
    this.resultEl.hidden = false;
    this.resultEl.dataset.winner = winner;
    this.resultEl.dataset.round = res.round_id;
    if (this.floated === res.round_id) {
      // Drawn again (a language switch): the badges come back where they were, quietly.
      if (this.badges?.round === res.round_id && performance.now() < this.badges.until &&
          !this.felt.querySelector(".float-net")) this.placeBadges(this.badges, true);
      return;
    }
    this.floated = res.round_id;
    pulse(this.resultEl, "pop");
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
    this.placeBadges(this.badges, false);
  }

  /**
   * Each seat's net as a badge beside its seat, on the side facing the table's middle (above a
   * bettor on the bettor's screen, below on the dealer's; beside the dealer seat), never over
   * a name, and at most as wide as the seat so that neighbours' badges never meet.
   */
  placeBadges(badges, still) {
    const left = badges.until - performance.now();
    for (const { seat, delta, fee } of badges.list) {
      // Badges live on the felt, not in the seat, so a redraw of the seats keeps them.
      const el = h("div", { class: `float-net ${delta > 0 ? "up" : "down"}${still ? " still" : ""}`, "data-seat": seat },
        h("b", null, signed(delta)), fee ? h("small", null, t("commission_short", { n: fmt(fee) })) : null);
      this.felt.append(el);
      setTimeout(() => el.remove(), Math.max(0, left));
    }
    this.layoutBadges();
    // The badges follow their seats while they show: the table's rows move when the roads,
    // the hands or a seat change size. Watched, not measured every frame: a loop of frames
    // kept a software-drawn page busy for the whole result.
    if (!this.badgeWatch) {
      this.badgeWatch = new ResizeObserver(() => {
        if (this.felt.querySelector(".float-net")) this.layoutBadges();
      });
      for (const el of [this.felt, this.dealerRail, this.queueEl, this.handsRow, this.areasRow, this.seatsRow]) {
        this.badgeWatch.observe(el);
      }
    }
  }

  /** A box on the felt, from its padding box (where the badges are placed), or null. */
  feltBox(el) {
    const q = el?.getBoundingClientRect();
    if (!q?.width) return null;
    const f = this.felt.getBoundingClientRect();
    const left = q.left - f.left - this.felt.clientLeft;
    const top = q.top - f.top - this.felt.clientTop;
    return { left, top, right: left + q.width, bottom: top + q.height };
  }

  /** Whether a badge of size `b` at (x, y) stays inside the felt and off every box in `avoid`. */
  clearSpot(x, y, b, avoid) {
    const inside = x >= 4 && x + b.width <= this.felt.clientWidth - 4 && y >= 4 &&
      y + b.height <= this.felt.clientHeight - 4;
    return inside && avoid.every((a) => x + b.width <= a.left || x >= a.right || y + b.height <= a.top || y >= a.bottom);
  }

  /** Where the dealer's badge goes: beside the dealer's seat (right, else left), else above or
   * below it, else in the seat's own right end (a phone's narrow table: its middle, else its
   * foot), else beside the queue's line, wherever it stays inside the felt and off that line and
   * the dealer's name and coins. */
  dealerBadgeSpot(x0, y0, r, b) {
    const strip = this.feltBox(this.queueEl);
    const own = this.el.querySelectorAll('.seat[data-seat="0"] .seat-name, .seat[data-seat="0"] .coins');
    const avoid = [strip, ...[...own].map((el) => this.feltBox(el))].filter(Boolean);
    const midY = y0 + r.height / 2 - b.height / 2;
    const midX = x0 + r.width / 2 - b.width / 2;
    const spots = [[x0 + r.width + 8, midY], [x0 - 8 - b.width, midY], [midX, y0 - b.height - 4],
      [midX, y0 + r.height + 4], [x0 + r.width - b.width - 6, midY],
      [x0 + r.width - b.width - 6, y0 + r.height - b.height - 4]];
    if (strip) {
      // Beside the queue's line, on the row between the hands and the seat.
      const y = (strip.top + strip.bottom) / 2 - b.height / 2;
      spots.push([strip.right + 8, y], [strip.left - 8 - b.width, y]);
    }
    return spots.find(([x, y]) => this.clearSpot(x, y, b, avoid)) ?? null;
  }

  /** Where a bettor's badge goes: on the seat's side facing the table's middle where it meets
   * no area (a badge in an area reads as that area's result); else in the seat's foot, over the
   * end of its bets, small and without the commission, below its name and coins; else on the far
   * side of the seat; else facing the middle whatever it meets. */
  bettorBadgeSpot(el, box) {
    const s = this.feltBox(box);
    const avoid = [...this.areasRow.querySelectorAll(".area"), ...box.querySelectorAll(".seat-name, .coins")]
      .map((a) => this.feltBox(a)).filter(Boolean);
    const inward = (s.top + s.bottom) / 2 > this.felt.clientHeight / 2;
    const size = (inSeat) => {
      el.classList.toggle("in-seat", inSeat);
      return { width: el.offsetWidth, height: el.offsetHeight };
    };
    const x = (b) => (s.left + s.right) / 2 - b.width / 2;
    let b = size(false);
    const toward = inward ? s.top - b.height - 4 : s.bottom + 4;
    if (this.clearSpot(x(b), toward, b, avoid)) return [x(b), toward];
    // In the seat: at its right end, leaving the first of its bets (on the left) in view.
    b = size(true);
    const end = Math.max(s.left + 2, s.right - b.width - 6);
    if (this.clearSpot(end, s.bottom - b.height - 2, b, avoid)) return [end, s.bottom - b.height - 2];
    b = size(false);
    const away = inward ? s.bottom + 4 : s.top - b.height - 4;
    return this.clearSpot(x(b), away, b, avoid) ? [x(b), away] : [x(b), toward];
  }

  /** Put each badge by its seat again: seats move when the screen is drawn again (a seat
   * that gains a line moves its row). */
  layoutBadges() {
    for (const el of this.felt.querySelectorAll(".float-net")) {
      const seat = Number(el.dataset.seat);
      const box = this.el.querySelector(`.seat[data-seat="${seat}"]`);
      if (!box) continue;
      const r = box.getBoundingClientRect();
      if (seat !== 0) el.style.maxWidth = `${r.width}px`;
      let x;
      let y;
      if (seat === 0) {
        // The badge's own size, not its box in the middle of its entrance (it scales up).
        const b = { width: el.offsetWidth, height: el.offsetHeight };
        const s = this.feltBox(box);
        [x, y] = this.dealerBadgeSpot(s.left, s.top, r, b) ?? [s.left + r.width / 2 - b.width / 2, s.bottom + 4];
        // (over the seat's own lines it is opaque, so they do not show through)
        el.classList.toggle("in-seat", x >= s.left && x + b.width <= s.right && y >= s.top && y + b.height <= s.bottom);
      } else {
        [x, y] = this.bettorBadgeSpot(el, box);
      }
      el.style.left = `${Math.max(4, Math.min(this.felt.clientWidth - el.offsetWidth - 4, x))}px`;
      el.style.top = `${Math.max(4, y)}px`;
    }
  }

  drawNotice(view) {
    // An operator's closing notice stands over the felt once the round in play is over.
    const closed = view.suspended && view.phase === "waiting";
    const late = waitingForNextRound(view);
    this.noticeEl.hidden = !closed && !late;
    this.noticeEl.classList.toggle("closed", Boolean(closed));
    if (closed) this.noticeEl.textContent = t("table_closed_notice", { notice: view.suspended });
    else if (late) this.noticeEl.textContent = t("next_round");
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
    if (this.urgeRing) {
      const cd = secondsLeft(urgeReadyAt(view, at));
      this.urgeRing.set(cd && cd > 0 ? cd : null, URGE_COOLDOWN_S);
    }
    if (this.urgedUntil && performance.now() > this.urgedUntil) {
      this.urgedUntil = 0;
      this.urgeEl.hidden = true;
    }
  }

  /** A chat message floats over the speaker's seat for a few seconds (unless muted). */
  bubble(msg) {
    if (mutedUsers().has(msg.user_id)) return;
    const box = this.el.querySelector(`.seat[data-seat="${msg.seat}"]`);
    if (!box) return;
    const r = box.getBoundingClientRect();
    const f = this.felt.getBoundingClientRect();
    const text = msg.text && msg.text.length > 40 ? `${msg.text.slice(0, 39)}…` : msg.text;
    const el = h("div", { class: "chat-bubble", translate: "no", "data-seat": msg.seat },
      msg.emote ? emoteSVG(msg.emote) : text);
    this.felt.append(el);
    // Over the seat; where the felt has no room above it (the dealer's, on a bettor's screen:
    // the top bar, not the bubble, would show there), beside it, else under it; under it too
    // while the seat's result badge shows (never over the badge).
    const x0 = r.left - f.left - this.felt.clientLeft;
    const y0 = r.top - f.top - this.felt.clientTop;
    const badge = Boolean(this.felt.querySelector(`.float-net[data-seat="${msg.seat}"]`));
    const above = !badge && y0 >= el.offsetHeight + 4;
    const beside = !badge && !above && x0 + r.width + 8 + el.offsetWidth <= this.felt.clientWidth - 4;
    el.classList.toggle("below", !above && !beside);
    el.classList.toggle("beside", beside);
    if (beside) {
      el.style.top = `${y0 + r.height / 2}px`;
      el.style.left = `${x0 + r.width + 8}px`;
    } else {
      el.style.top = `${above ? y0 : y0 + r.height}px`;
      // Centred on the seat, but kept inside the felt (a seat by the screen's edge).
      const half = el.offsetWidth / 2;
      el.style.left = `${Math.max(half + 4, Math.min(this.felt.clientWidth - half - 4, x0 + r.width / 2))}px`;
    }
    setTimeout(() => el.remove(), 4000);
  }

  /** Bet the chosen chip on `area`; `from` is where a dragged chip was let go. */
  tapArea(area, from) {
    const viewer = role(this.view);
    if (viewer !== "bettor") {
      this.refuse({ code: viewer === "dealer" ? "dealer_cannot_bet" : "not_seated", message: "" }, area);
      return;
    }
    const chip = this.chip;
    this.table.send("bet", { area, chip }).then(() => {
      play("chip");
      this.urgeEl.hidden = true;
      // The accepted chip flies to the area: from the drop point, or from the tray.
      let at = from;
      if (!at) {
        const r = this.controls.querySelector(`.tray-chip[data-chip="${chip}"] svg`)?.getBoundingClientRect();
        at = r ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : null;
      }
      if (at) flyChip(chip, at.x, at.y, this.areasRow.querySelector(`[data-area="${area}"]`));
    }, (err) => this.refuse(err, area));
  }

  urge() {
    this.table.send("urge").then(() => toast(t("urge_sent")), (err) => this.refuse(err));
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
    if (name === "shoe_started") remember(data.shoe_id, view.table_id, data.commitment);
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

// The table screen: the bettor's view (seats 1-7 and spectators) and the dealer's view.

import { h, mount, fmt, signed, pulse } from "./dom.js";
import { t, errorText, named } from "./i18n.js";
import { chipSVG } from "./chips.js";
import { AREAS, secondsLeft, bookFromSeats } from "./state.js";
import { seatBox, areaBox, handBox, bookPanel, ring, remaining, exposureCells } from "./parts.js";
import { SqueezeView } from "./squeeze.js";
import { draggable, flyChip } from "./chipdrag.js";
import { RoadsPanel } from "./roadspanel.js";
import { play } from "./sound.js";
import { totalsLine } from "./history.js";
import { ChatPanel, emoteSVG, mutedUsers } from "./chat.js";
import { FairnessPanel } from "./fairpanel.js";

const BET_EARLY_MS = 300; // the betting countdown ends this much before the server closes
const BADGE_MS = 4200; // how long a result's badges stay

/** The whole table screen; setState() redraws it from a fresh view. */
export class TableScreen {
  /** `before`: the screen this one replaces (a language switch), whose memory it keeps, so
   * that what was already shown (cards dealt, a result's badges and sounds) is not replayed. */
  constructor(app, before = null) {
    this.app = app;
    this.chip = Number(localStorage.getItem("baccarat.chip")) || 1;
    this.st = before?.st ?? null;
    this.coinShown = before?.coinShown ?? new Map();
    this.floated = before?.floated ?? null;
    this.badges = before?.badges ?? null; // the result's badges: {round, until, list}
    this.urgedUntil = 0;
    this.build();
    // Countdowns tick ten times a second: smooth enough, and light on a phone's battery.
    this.timer = setInterval(() => this.loop(), 100);
  }

  build() {
    this.topInfo = h("div", { class: "top-info" });
    this.chatPanel = new ChatPanel(this.app);
    this.fairPanel = new FairnessPanel();
    this.topbar = h("header", { class: "topbar" },
      h("button", { class: "btn btn-ghost btn-lobby", onclick: () => this.app.goLobby() }, `‹ ${t("lobby")}`),
      this.topInfo, this.chatPanel.toggle, this.app.toolbar());
    this.dealerRail = h("div", { class: "rail" });
    this.shoeEl = h("div", { class: "shoe", title: t("shoe") },
      h("div", { class: "shoe-box" }, h("div", { class: "shoe-card" })), h("div", { class: "shoe-count" }));
    this.handP = h("div", { class: "hand-slot slot-player" });
    this.handB = h("div", { class: "hand-slot slot-banker" });
    this.mainRing = ring("main-ring");
    this.phaseText = h("div", { class: "phase-text" });
    this.center = h("div", { class: "center" }, this.mainRing.el, this.phaseText);
    this.handsRow = h("div", { class: "hands-row" }, this.shoeEl, this.handP, this.center, this.handB);
    this.areasRow = h("div", { class: "areas" });
    this.seatsRow = h("div", { class: "seats" });
    this.queueEl = h("div", { class: "dealer-queue" });
    this.resultEl = h("div", { class: "result-banner", hidden: true });
    this.noticeEl = h("div", { class: "notice", hidden: true });
    this.urgeEl = h("div", { class: "urge-banner", hidden: true, role: "alert" }, t("urged"));
    this.squeeze = new SqueezeView({
      onProgress: (hand, progress, corner) => this.app.send("squeeze", { hand, progress, corner }).catch(() => {}),
      onOpen: (hand) => this.app.send("open", { hand }).catch((err) => this.refuse(err)),
      rate: () => this.app.squeezeRate,
    });
    this.felt = h("div", { class: "felt" },
      h("div", { class: "felt-inner" }, this.dealerRail, this.queueEl, this.handsRow, this.areasRow, this.seatsRow),
      this.noticeEl, this.urgeEl, this.squeeze.el);
    this.bookSlot = h("div", { class: "book-slot" });
    this.controls = h("div", { class: "controls" });
    this.roads = new RoadsPanel();
    this.el = h("div", { class: "screen table-screen" }, this.topbar,
      h("div", { class: "stage" }, this.felt, this.bookSlot), this.controls, this.roads.el, this.chatPanel.el,
      this.fairPanel.el);
    this.squeeze.attach(this.el);
  }

  /** Stop the animation loop (leaving the screen). */
  destroy() {
    clearInterval(this.timer);
    cancelAnimationFrame(this.badgeFrame);
    this.squeeze.destroy();
  }

  /** Redraw from a new state; animations come from comparing it with the last one. */
  setState(st) {
    const prev = this.st;
    this.st = st;
    const role = st.me.role;
    this.el.dataset.role = role;
    this.el.dataset.phase = st.phase;
    this.el.classList.toggle("dealer-view", role === "dealer");
    this.drawTop(st);
    this.drawSeats(st);
    this.drawQueue(st);
    this.chatPanel.update(st);
    this.drawHands(st, prev);
    this.drawAreas(st);
    this.drawControls(st);
    this.drawSqueeze(st);
    this.drawResult(st);
    this.drawNotice(st);
    mount(this.bookSlot, role === "dealer" ? bookPanel(st) : null);
    this.roads.update(st.history, st.shoe, st.lastShoe);
    if (st.phase !== "betting") this.urgeEl.hidden = true;
    // A result's badges go with the result (a fast table's next round comes sooner).
    if (st.phase !== "result") for (const el of this.felt.querySelectorAll(".float-net")) el.remove();
  }

  drawTop(st) {
    mount(this.topInfo,
      h("span", { class: "ti-room" }, named(st.room)),
      h("span", { class: "ti-table" }, named(st)),
      h("span", { class: "ti-round" }, t("round_of", { n: st.round_no || 0 })),
      st.me.role === "dealer" ? h("span", { class: "ti-role" }, t("dealer_view")) : null,
      st.me.role === "spectator" ? h("span", { class: "ti-role" }, t("watching")) : null,
      totalsLine(this.app.totals),
      h("button", { class: "btn btn-ghost btn-small btn-history", "data-action": "history",
        onclick: () => this.app.showHistory() }, t("my_bets")),
      h("button", { class: "btn btn-ghost btn-small btn-fairness", "data-action": "fairness",
        onclick: () => this.fairPanel.open(this.st) }, t("fairness")),
    );
    this.fairPanel.update(st);
  }

  drawSeats(st) {
    const canSit = st.me.seat === null;
    const opts = { canSit, onSit: (seat) => this.app.sit(st.table_id, seat) };
    mount(this.dealerRail, seatBox(st, 0, { ...opts, canSit: canSit || (st.me.role === "bettor" && !st.round_id) }));
    const seats = [1, 2, 3, 4, 5, 6, 7].map((n) => seatBox(st, n, opts));
    mount(this.seatsRow, seats);
    // Coins roll from the last value shown to the new one.
    for (const box of [this.dealerRail.firstChild, ...seats]) {
      const seat = Number(box.dataset.seat);
      const occ = st.seats[seat];
      const el = box.querySelector(".coins");
      if (!occ || !el) continue;
      const key = `${seat}:${occ.user_id}`;
      const from = this.coinShown.get(key);
      this.coinShown.set(key, occ.coins);
      if (from !== undefined && from !== occ.coins) rollNumber(el, from, occ.coins);
    }
  }

  /** The dealer queue (上莊排隊) on every screen: who waits, my place, join or leave. */
  drawQueue(st) {
    const pos = st.me.queuePos;
    const dealer = st.seats[0];
    const names = st.queue.map((w, i) => h("li", { class: w.user_id === st.me.user_id ? "me" : null,
      "data-user": w.user_id }, `${i + 1}. `, h("span", { translate: "no" }, w.name)));
    const canJoin = pos === null && st.me.role !== "dealer";
    mount(this.queueEl,
      h("span", { class: "dq-title" }, t("dealer_queue"), h("b", { class: "dq-count" }, ` ${st.queue.length}`)),
      // With nobody waiting the limit does not apply: a count past it ("39/10") would read
      // as a broken rule, so the rounds in a row show alone, with what the rule is now.
      dealer ? h("span", { class: "dq-streak", title: t(st.queue.length ? "dealer_limit_hint" : "dealer_free_hint",
        { max: st.room.dealer_round_limit }) },
      st.queue.length ? t("dealer_streak", { n: dealer.dealerRounds, max: st.room.dealer_round_limit })
        : t("dealer_streak_free", { n: dealer.dealerRounds })) : null,
      names.length ? h("ol", { class: "dq-list" }, names) : h("span", { class: "dq-empty" }, t("queue_empty")),
      pos !== null ? h("span", { class: "dq-pos" }, t("queue_pos", { n: pos })) : null,
      canJoin ? h("button", { class: "btn btn-small btn-queue", "data-action": "queue-join",
        onclick: () => this.app.send("queue.join").catch((err) => this.refuse(err)) }, t("join_queue")) : null,
      pos !== null ? h("button", { class: "btn btn-small btn-queue", "data-action": "queue-leave",
        onclick: () => this.app.send("queue.leave").catch((err) => this.refuse(err)) }, t("leave_queue")) : null);
  }

  drawHands(st, prev) {
    const winner = st.phase === "result" ? st.result?.outcome?.winner : null;
    for (const name of ["player", "banker"]) {
      const before = prev && prev.round_id === st.round_id ? prev.hands[name].cards : [];
      const newCards = new Set();
      const flipped = new Set();
      st.hands[name].cards.forEach((c, i) => {
        if (i >= before.length) newCards.add(i);
        else if (before[i].faceDown && !c.faceDown) flipped.add(i);
      });
      const box = handBox(st, name, { winner, newCards, flipped });
      mount(name === "player" ? this.handP : this.handB, box);
      if (newCards.size) {
        play("card");
        requestAnimationFrame(() => this.flyFromShoe(box));
      }
      if (flipped.size) play("flip");
    }
    const left = st.shoe.cards_left;
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

  drawAreas(st) {
    const mySlip = st.me.slip || {};
    const bettor = st.me.role === "bettor";
    const left = bettor ? st.me.remaining ?? remaining(mySlip, st.room.limits) : null;
    mount(this.areasRow, AREAS.map((a) => areaBox(st, a, {
      onTap: (area) => this.tapArea(area),
      mySlip,
      left: left ? left[a] : undefined,
    })));
    this.areasRow.classList.toggle("open", st.phase === "betting" && bettor && st.me.can_bet);
    // The result is shown over the areas: nobody bets then, and the cards stay in view.
    this.areasRow.append(this.resultEl);
  }

  drawControls(st) {
    const role = st.me.role;
    if (role === "dealer") {
      this.urgeRing = ring("urge-ring");
      const urgeBtn = h("button", { class: "btn btn-urge", "data-action": "urge", onclick: () => this.urge() },
        this.urgeRing.el, h("span", null, t("urge")));
      mount(this.controls, h("div", { class: "dealer-bar" },
        exposureCells(st),
        h("div", { class: "db-info" }, h("b", null, t("dealer")),
          h("span", null, `${t("dealer_floor", { n: fmt(st.room.dealer_floor ?? 0) })}`)),
        urgeBtn,
        h("button", { class: "btn btn-stand", onclick: () => this.app.stand() }, t("stand"))));
      return;
    }
    this.urgeRing = null;
    if (role !== "bettor") {
      mount(this.controls, h("div", { class: "spectator-bar" }, h("span", null, t("watching")),
        h("span", { class: "hint" }, t("tap_chip"))));
      return;
    }
    const unit = st.room.chip_unit;
    const chips = st.room.chips.map((c) => {
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
    const slip = st.me.slip || {};
    const left = st.me.remaining ?? remaining(slip, st.room.limits);
    mount(this.controls, h("div", { class: "tray" },
      h("div", { class: "tray-chips" }, chips),
      h("div", { class: "tray-side" },
        h("div", { class: "tray-stake" }, h("span", null, t("bet_total")), h("b", null, fmt(st.me.stake || 0))),
        h("div", { class: "tray-left" }, h("span", null, t("limits_left")),
          ...AREAS.map((a) => h("span", { class: `lim lim-${a}` }, `${t(a)} ${fmt(left[a] * unit)}`)))),
      h("div", { class: "tray-buttons" },
        this.autoOpenToggle(st),
        ...this.slipButtons(st),
        h("button", { class: "btn btn-stand", onclick: () => this.app.stand() }, t("stand"))),
    ));
  }

  /**
   * 重複 / 加倍 / 撤銷 / 清除: each one command the server takes whole or refuses whole. A button
   * is greyed out when it could not do anything; any other refusal is said in words.
   */
  slipButtons(st) {
    const open = st.phase === "betting";
    const has = Object.values(st.me.slip || {}).some((n) => n > 0);
    const last = st.me.rebet && Object.keys(st.me.rebet).length ? st.me.rebet : null;
    const button = (action, enabled, title) => h("button", {
      class: `btn btn-${action}`, "data-action": action, disabled: !(open && enabled), title,
      onclick: () => this.slipAction(action),
    }, t(action));
    const unit = st.room.chip_unit;
    const lastText = last ? AREAS.filter((a) => last[a]).map((a) => `${t(a)} ${fmt(last[a] * unit)}`).join(" · ") : "";
    return [
      button("rebet", !has && last, lastText),
      button("double", has),
      button("undo", has),
      button("clear", has),
    ];
  }

  /** 自動開牌: the cards this user controls open at once; remembered for the account. */
  autoOpenToggle(st) {
    const on = Boolean(st.me.auto_open);
    const box = h("input", { type: "checkbox", "data-action": "auto-open", checked: on,
      onchange: () => {
        const want = box.checked;
        this.app.send("prefs", { auto_open: want }).then(() => {
          this.st = { ...this.st, me: { ...this.st.me, auto_open: want } };
          this.app.snapshot = this.st;
          this.drawControls(this.st);
        }, (err) => {
          box.checked = !want;
          this.refuse(err);
        });
      } });
    return h("label", { class: `auto-open${on ? " on" : ""}`, title: t("auto_open_hint") }, box, t("auto_open"));
  }

  slipAction(action) {
    this.app.send(action).then(() => {
      if (action !== "undo" && action !== "clear") play("chip");
    }, (err) => this.refuse(err));
  }

  /** Make `chip` the chip a tap on an area bets (remembered across visits). */
  choose(chip) {
    if (chip === this.chip) return;
    this.chip = chip;
    localStorage.setItem("baccarat.chip", String(chip));
    this.drawControls(this.st);
  }

  drawSqueeze(st) {
    const sq = st.squeeze;
    if (!sq || st.phase !== "squeeze") {
      this.squeeze.hide();
      return;
    }
    const mine = sq.controller === st.me.user_id;
    const card = st.hands[sq.hand]?.cards?.[sq.position];
    const seat = st.seats.findIndex((s) => s && s.user_id === sq.controller);
    this.squeeze.show(sq, { mine, code: card?.code ?? null, handLabel: t(sq.hand), seat });
  }

  drawResult(st) {
    const res = st.result;
    if (st.phase !== "result" || !res?.outcome) {
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
          if (this.st?.phase === "result" && this.st.result?.round_id === res.round_id) this.drawResult(this.st);
        });
      }
      return;
    }
    const o = res.outcome;
    const pp = o.player?.points ?? o.player_points;
    const bp = o.banker?.points ?? o.banker_points;
    const winner = o.winner;
    const myDelta = res.settlement?.deltas?.[String(st.me.user_id)];
    const myFee = res.settlement?.commission?.[String(st.me.user_id)] ?? 0;
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
    if (this.floated === res.round_id) {
      // Drawn again (a language switch): the badges come back where they were, quietly.
      if (this.badges?.round === res.round_id && performance.now() < this.badges.until &&
          !this.felt.querySelector(".float-net")) this.placeBadges(st, this.badges, true);
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
      const seat = st.seats.findIndex((s) => s && String(s.user_id) === uid);
      if (seat < 0 || !delta) continue;
      list.push({ seat, delta, fee: res.settlement?.commission?.[uid] ?? 0 });
    }
    this.badges = { round: res.round_id, until: performance.now() + BADGE_MS, list };
    this.placeBadges(st, this.badges, false);
  }

  /**
   * Each seat's net as a badge beside its seat, on the side facing the table's middle (above a
   * bettor on the bettor's screen, below on the dealer's; beside the dealer seat), never over
   * a name, and at most as wide as the seat so that neighbours' badges never meet.
   */
  placeBadges(st, badges, still) {
    const left = badges.until - performance.now();
    for (const { seat, delta, fee } of badges.list) {
      // Badges live on the felt, not in the seat, so a redraw of the seats keeps them.
      const el = h("div", { class: `float-net ${delta > 0 ? "up" : "down"}${still ? " still" : ""}`, "data-seat": seat },
        h("b", null, signed(delta)), fee ? h("small", null, t("commission_short", { n: fmt(fee) })) : null);
      this.felt.append(el);
      setTimeout(() => el.remove(), Math.max(0, left));
    }
    // The badges follow their seats while they show: the table's rows move when the roads,
    // the hands or a seat change size.
    cancelAnimationFrame(this.badgeFrame);
    const follow = () => {
      if (!this.felt.querySelector(".float-net")) return;
      this.layoutBadges();
      this.badgeFrame = requestAnimationFrame(follow);
    };
    follow();
  }

  /** Where the dealer's badge goes: beside the dealer's seat (right, else left), else above or
   * below it, else in the seat's own right end (a phone's narrow table: its middle, else its
   * foot), else beside the queue's line, wherever it stays inside the felt and off that line and
   * the dealer's name. */
  dealerBadgeSpot(x0, y0, r, b) {
    const f = this.felt.getBoundingClientRect();
    const local = (el) => {
      const q = el?.getBoundingClientRect();
      if (!q?.width) return null;
      const left = q.left - f.left - this.felt.clientLeft;
      const top = q.top - f.top - this.felt.clientTop;
      return { left, top, right: left + q.width, bottom: top + q.height };
    };
    const strip = local(this.queueEl);
    const avoid = [strip, local(this.el.querySelector('.seat[data-seat="0"] .seat-name'))].filter(Boolean);
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
    for (const [x, y] of spots) {
      const inside = x >= 4 && x + b.width <= this.felt.clientWidth - 4 && y >= 4 &&
        y + b.height <= this.felt.clientHeight - 4;
      const clear = avoid.every((a) => x + b.width <= a.left || x >= a.right || y + b.height <= a.top || y >= a.bottom);
      if (inside && clear) return [x, y];
    }
    return null;
  }

  /** Put each badge by its seat again: seats move when the screen is drawn again (a seat
   * that gains a line moves its row). */
  layoutBadges() {
    const f = this.felt.getBoundingClientRect();
    const labels = [...this.areasRow.querySelectorAll(".area-name, .area-pay")].map((el) => {
      const l = el.getBoundingClientRect();
      const left = l.left - f.left - this.felt.clientLeft;
      const top = l.top - f.top - this.felt.clientTop;
      return { left, top, right: left + l.width, bottom: top + l.height };
    });
    for (const el of this.felt.querySelectorAll(".float-net")) {
      const seat = Number(el.dataset.seat);
      const box = this.el.querySelector(`.seat[data-seat="${seat}"]`);
      if (!box) continue;
      const r = box.getBoundingClientRect();
      if (seat !== 0) el.style.maxWidth = `${r.width}px`;
      // The badge's own size, not its box in the middle of its entrance (it scales up).
      const b = { width: el.offsetWidth, height: el.offsetHeight };
      // Positions are from the felt's padding box, inside its border.
      const x0 = r.left - f.left - this.felt.clientLeft;
      const y0 = r.top - f.top - this.felt.clientTop;
      let x = x0 + r.width / 2 - b.width / 2;
      let y;
      const spot = seat === 0 ? this.dealerBadgeSpot(x0, y0, r, b) : null;
      if (spot) {
        [x, y] = spot;
      } else if (y0 + r.height / 2 > this.felt.clientHeight / 2) {
        y = y0 - b.height - 4;
      } else {
        y = y0 + r.height + 4;
      }
      // Where that would cover an area's name or odds (the dealer's screen, a phone), the badge
      // sits in the foot of the seat itself, over its coins and bets, below its name.
      if (!spot && labels.some((l) => x < l.right && x + b.width > l.left && y < l.bottom && y + b.height > l.top)) {
        y = y0 + r.height - b.height - 2;
      }
      // (over the seat's own lines it is opaque, so they do not show through)
      el.classList.toggle("in-seat", x >= x0 && x + b.width <= x0 + r.width && y >= y0 && y + b.height <= y0 + r.height);
      el.style.left = `${Math.max(4, Math.min(this.felt.clientWidth - b.width - 4, x))}px`;
      el.style.top = `${Math.max(4, y)}px`;
    }
  }

  drawNotice(st) {
    const mine = st.me.seat !== null ? st.seats[st.me.seat] : null;
    const late = st.me.role === "bettor" && mine?.waiting;
    this.noticeEl.hidden = !late;
    if (late) this.noticeEl.textContent = t("next_round");
  }

  phaseLabel(st) {
    switch (st.phase) {
      case "waiting":
        return st.seats[0] ? t("phase_waiting_bettor") : t("phase_waiting");
      case "betting":
        return t("phase_betting");
      case "squeeze":
        return st.squeeze ? t("phase_squeeze") : t("phase_dealing");
      case "result":
        return t("phase_result");
      case "shuffling":
        return t("phase_shuffling");
      default:
        return st.phase;
    }
  }

  /** Every tick: the countdowns. */
  loop() {
    const st = this.st;
    if (!st) return;
    const early = st.phase === "betting" ? BET_EARLY_MS : 0;
    const left = secondsLeft(st.deadline, early);
    const total = { betting: st.timers.betting_seconds, squeeze: st.timers.squeeze_seconds,
      result: st.timers.result_seconds }[st.phase] ?? 5;
    this.mainRing.set(st.phase === "waiting" ? null : left, total);
    // The last seconds of betting tick, once a second.
    const whole = left === null ? null : Math.ceil(left);
    if (st.phase === "betting" && whole !== null && whole <= 3 && whole > 0 && whole !== this.lastTick) play("tick");
    this.lastTick = whole;
    // The countdown ends a moment before the server closes betting: from then on the
    // screen says betting is closed, not 請下注 beside an empty ring.
    const label = st.phase === "betting" && left !== null && left <= 0 ? t("phase_closed") : this.phaseLabel(st);
    if (this.phaseText.textContent !== label) this.phaseText.textContent = label;
    if (this.center.dataset.phase !== st.phase) this.center.dataset.phase = st.phase;
    if (st.phase === "squeeze" && st.squeeze) this.squeeze.tick(left, total);
    if (this.urgeRing) {
      const ready = st.me.urgeReadyAt;
      const cd = secondsLeft(ready);
      this.urgeRing.set(cd && cd > 0 ? cd : null, st.raw?.timers?.urge_cooldown_seconds ?? 10);
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
    // Over the seat, or under it while the seat's result badge shows there (never over it).
    const below = Boolean(this.felt.querySelector(`.float-net[data-seat="${msg.seat}"]`));
    const el = h("div", { class: `chat-bubble${below ? " below" : ""}`, translate: "no", "data-seat": msg.seat,
      style: { top: `${(below ? r.bottom : r.top) - f.top - this.felt.clientTop}px` } },
    msg.emote ? emoteSVG(msg.emote) : text);
    this.felt.append(el);
    // Centred on the seat, but kept inside the felt (a seat by the screen's edge).
    const half = el.offsetWidth / 2;
    const x = r.left - f.left - this.felt.clientLeft + r.width / 2;
    el.style.left = `${Math.max(half + 4, Math.min(this.felt.clientWidth - half - 4, x))}px`;
    setTimeout(() => el.remove(), 4000);
  }

  /** Bet the chosen chip on `area`; `from` is where a dragged chip was let go. */
  tapArea(area, from) {
    const st = this.st;
    if (st.me.role !== "bettor") {
      this.refuse({ code: st.me.role === "dealer" ? "dealer_cannot_bet" : "not_seated", message: "" }, area);
      return;
    }
    const chip = this.chip;
    this.app.send("bet", { area, chip }).then(() => {
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
    this.app.send("urge").then(() => this.app.toast(t("urge_sent")), (err) => this.refuse(err));
  }

  /** Show a refusal: the area shakes and the reason is said in the user's language. */
  refuse(err, area) {
    play("refuse");
    const limit = area ? this.st?.room.limits?.[area] : undefined;
    const unit = this.st?.room.chip_unit;
    const text = errorText(err, area ? { area, limit, unit } : { unit });
    if (area) {
      const el = this.areasRow.querySelector(`[data-area="${area}"]`);
      pulse(el, "shake");
    }
    this.app.toast(text, "error");
  }

  /**
   * A table event. The frequent ones that carry all they change are applied here, and true
   * is returned; for the rest (phases, seats, coins) the caller fetches a fresh snapshot.
   */
  onEvent(name, data, isPrivate) {
    const st = this.st;
    if (!st) return false;
    if (name === "squeeze_progress") {
      if (!st.squeeze || data.hand !== st.squeeze.hand) return false;
      st.squeeze.progress = data.progress;
      st.squeeze.corner = data.corner;
      if (st.squeeze.controller !== st.me.user_id) this.squeeze.moveTo(data.progress, data.corner);
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
    if (name === "chip_placed" && data.seat !== st.me.seat) play("chip");
    if (name === "round_voided") this.app.toast(t("round_voided"), "error");
    if (name === "table_closing") this.app.toast(t("closing_notice"), "info", 8000);
    // At the close the dealer could not cover all of the bets: the latest went back.
    if ((data.action ?? data.reason) === "uncovered" && data.user_id === st.me.user_id) {
      this.app.toast(t("bets_uncovered"), "error");
    }
    if (name === "chat") this.bubble(data);
    if (name === "dealer_leaving") {
      this.app.toast(data.user_id === st.me.user_id ? t("you_leave_after_round") : t("dealer_leaves_after_round"));
    }
    const next = applyEvent(st, name, data);
    if (!next) return false;
    if (next !== st) this.setState(next);
    return true;
  }
}

function withSeatBets(st, seat, bets) {
  const seats = st.seats.slice();
  seats[seat] = { ...seats[seat], bets };
  // The dealer's book follows the seats' bets.
  return { ...st, seats, book: st.me.role === "dealer" ? bookFromSeats(seats, st.room.chip_unit) : st.book };
}

function withSlip(st, slip, stake) {
  return { ...st.me, slip, stake, remaining: remaining(slip, st.room.limits) };
}

/**
 * The state after an event that carries everything it changes, or null when only a fresh
 * snapshot can tell (another round, a seat that moved, a phase that changed).
 */
export function applyEvent(st, name, data) {
  const sameRound = data.round_id !== undefined && data.round_id === st.round_id;
  switch (name) {
    case "chip_placed": {
      if (!sameRound || !st.seats[data.seat]) return null;
      const bets = { ...st.seats[data.seat].bets, [data.area]: data.chips };
      const mine = data.seat === st.me.seat;
      return { ...withSeatBets(st, data.seat, bets),
        me: mine ? withSlip(st, { ...st.me.slip, [data.area]: data.chips }, data.stake) : st.me };
    }
    case "bets_changed": {
      if (!sameRound || !st.seats[data.seat]) return null;
      const bets = { ...(data.bets ?? {}) };
      const mine = data.seat === st.me.seat;
      return { ...withSeatBets(st, data.seat, bets), me: mine ? withSlip(st, bets, data.stake) : st.me };
    }
    case "bets_cleared": {
      if (!sameRound || data.reason !== "cleared" || !st.seats[data.seat]) return null;
      const mine = data.seat === st.me.seat;
      return { ...withSeatBets(st, data.seat, {}), me: mine ? withSlip(st, {}, 0) : st.me };
    }
    case "urged":
      if (!sameRound) return null;
      if (st.me.role !== "dealer" || typeof data.ready_in_ms !== "number") return st;
      return { ...st, me: { ...st.me, urgeReadyAt: performance.now() + data.ready_in_ms } };
    case "chat":
      return { ...st, chat: [...(st.chat ?? []), data].slice(-30) };
    case "dealer_queue": {
      const queue = data.queue ?? [];
      const at = queue.findIndex((w) => w.user_id === st.me.user_id);
      return { ...st, queue, me: { ...st.me, queuePos: at < 0 ? null : at + 1 } };
    }
    case "controllers":
      if (!sameRound) return null;
      return { ...st, controllers: { player: data.player ?? null, banker: data.banker ?? null } };
    case "card_dealt": {
      const hand = st.hands[data.hand];
      // Only the next card of the hand; anything else means a card was missed.
      if (!sameRound || st.phase !== "squeeze" || !hand || data.position !== hand.cards.length) return null;
      const cards = [...hand.cards, { code: data.face_down ? null : data.card ?? null, faceDown: Boolean(data.face_down) }];
      const points = typeof data.points === "number" ? data.points : hand.points;
      const left = st.shoe.cards_left;
      return { ...st, hands: { ...st.hands, [data.hand]: { cards, points } },
        shoe: { ...st.shoe, cards_left: typeof left === "number" ? left - 1 : left } };
    }
    case "squeeze_started": {
      const hand = st.hands[data.hand];
      if (!sameRound || st.phase !== "squeeze" || typeof data.remaining_ms !== "number") return null;
      if (!hand || !hand.cards[data.position] || !data.card) return null;
      // Every screen at the table draws the real face under the controller's peel.
      const cards = hand.cards.slice();
      cards[data.position] = { code: data.card, faceDown: true };
      return { ...st, hands: { ...st.hands, [data.hand]: { ...hand, cards } },
        deadline: performance.now() + data.remaining_ms, squeeze: {
          hand: data.hand, position: data.position, controller: data.controller_user_id,
          controllerName: data.controller_name ?? "", progress: data.progress ?? 0, corner: data.corner ?? "br" } };
    }
    case "card_opened": {
      const hand = st.hands[data.hand];
      if (!sameRound || !hand || !hand.cards[data.position] || !data.card) return null;
      const cards = hand.cards.slice();
      cards[data.position] = { code: data.card, faceDown: false };
      const points = typeof data.points === "number" ? data.points : hand.points;
      const sq = st.squeeze;
      const done = sq && sq.hand === data.hand && sq.position === data.position;
      return { ...st, hands: { ...st.hands, [data.hand]: { cards, points } }, squeeze: done ? null : sq };
    }
    default:
      return null;
  }
}

/** Roll a number shown in `el` from `from` to `to` over about 0.9 s. */
export function rollNumber(el, from, to) {
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

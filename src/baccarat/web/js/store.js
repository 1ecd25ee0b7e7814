// The table's one state: the view the server projects for this viewer, kept with reducer.js.
//
// A snapshot gives the view; every event after it, public and private, goes through the
// reducer in seq order. What a screen shows is read from this view (selectors.js): nothing
// else keeps a copy of the table, so nothing can drift from what the server said.

import { apply } from "./reducer.js";
import { Lateness } from "./lateness.js";

export class TableStore {
  constructor() {
    this.lateness = new Lateness();
    this.clear();
  }

  /** Forget the table (its screen is gone). */
  clear() {
    this.view = null;
    this.seq = -1;
    // When (performance.now()) the view's remaining_ms was current, which is when the server
    // sent it (a page that read it late counts that time as gone): countdowns run from it.
    this.at = 0;
  }

  /** A snapshot: its view, followed from its seq on. */
  take(msg) {
    this.seq = msg.seq;
    this.view = msg.view;
    this.at = this.sentAt(msg);
  }

  /**
   * One table event: "applied"; "old" (its seq was seen); "gap" (a public event was missed)
   * or "missed" (no view to apply it to), where only a snapshot can tell what the view is.
   */
  apply(msg) {
    if (!msg.private) {
      if (msg.seq <= this.seq) return "old";
      const gap = msg.seq > this.seq + 1;
      this.seq = msg.seq;
      if (gap) return "gap";
    }
    if (!this.view) return "missed";
    const data = msg.data || {};
    this.view = apply(this.view, msg.event, data);
    if (typeof data.remaining_ms === "number") this.at = this.sentAt(msg);
    return "applied";
  }

  // When `msg` was sent, on the page's clock.
  sentAt(msg) {
    const now = performance.now();
    return now - this.lateness.of(msg.server_time, now);
  }
}

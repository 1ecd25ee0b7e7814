// How late the page reads the table's timed messages. Each carries `server_time`, the server's
// clock when it was sent; the page's clock minus it is the clocks' offset, plus the network,
// plus the time the message waited for a busy page (a starved phone falls seconds behind).
// The least difference seen over the last minute stands for the first two, so what a message
// shows above it is the wait, which a countdown must not give back: the server's phase ends
// on time whatever the page is doing.

const WINDOW_MS = 60_000;

export class Lateness {
  constructor() {
    // The window's candidates for its least difference: [at, gap], gaps rising, oldest first.
    this.lows = [];
  }

  /** How late (ms) a message sent at `serverTime` (Unix seconds) is read at `at`
   * (performance.now() ms); 0 for a message without the server's clock. */
  of(serverTime, at = performance.now()) {
    if (typeof serverTime !== "number" || !Number.isFinite(serverTime)) return 0;
    const gap = performance.timeOrigin + at - serverTime * 1000;
    const lows = this.lows;
    while (lows.length && lows[lows.length - 1][1] >= gap) lows.pop();
    lows.push([at, gap]);
    while (lows[0][0] < at - WINDOW_MS) lows.shift();
    return gap - lows[0][1];
  }
}

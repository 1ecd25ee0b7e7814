// The seat a page holds while its socket is down: which seat, and until when the server keeps
// it (the table's reconnect grace, counted from the moment the page lost its socket). It is
// kept in the tab's session storage, so the app shell a reload brings up knows it too.

const KEY = "baccarat.away";
const DEFAULT_GRACE = 60; // seconds: the server's default, for a table whose view did not say

export class Away {
  constructor() {
    try {
      this.record = JSON.parse(sessionStorage.getItem(KEY) ?? "null");
    } catch {
      this.record = null;
    }
  }

  /** The socket went down while seated at `seat` ({table_id, seat}) of a table whose seats
   * wait `grace` seconds, named by `label` ({name, names} in each language, or null) (the
   * first loss counts: a socket that fails again changes nothing). */
  begin(seat, grace, label) {
    if (!seat || this.record?.table_id === seat.table_id) return;
    const seconds = grace > 0 ? grace : DEFAULT_GRACE;
    this.record = { table_id: seat.table_id, seat: seat.seat, grace: seconds, until: Date.now() + seconds * 1000,
      label: label ? { name: label.name, names: label.names } : null };
    sessionStorage.setItem(KEY, JSON.stringify(this.record));
  }

  /** Back in the seat, or it is gone for good (the table said so): nothing is held away. */
  end() {
    this.record = null;
    sessionStorage.removeItem(KEY);
  }

  /** The table of the seat held away, or null. */
  get tableId() {
    return this.record?.table_id ?? null;
  }

  /** Whether the seat is still kept: its grace has not run out. */
  get held() {
    return this.record !== null && Date.now() < this.record.until;
  }

  /** What the offline notice says of it: {table_id, seat, label, grace, left (whole seconds)}. */
  get told() {
    if (!this.record) return null;
    return { ...this.record, left: Math.max(0, Math.ceil((this.record.until - Date.now()) / 1000)) };
  }
}

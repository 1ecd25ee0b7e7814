// The page's memory in the browser: one IndexedDB object store per database, for seen.js (the
// commitments it saw) and cosigned.js (the newest cosigned checkpoint). A browser may keep
// nothing for the page (private browsing, IndexedDB refused): then every read answers
// undefined and every write does nothing, so the checks go on without the memory.
//
// Inline in /verify (server/http/verifier.py), as fair.js is: it imports nothing.

/** A request's result, as a promise. */
export function idbRequest(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/**
 * The store `store` of the database `name` (records keyed by `keyPath`), opened on first use:
 * {open, get, put, change}. get answers the record, null when there is none, undefined when the
 * browser keeps nothing; put and change answer false when the write failed (or nothing is kept).
 */
export function keptStore(name, store, keyPath) {
  let opened = null; // the database's promise (null inside it: this browser keeps nothing)
  const open = () => {
    opened ??= new Promise((resolve) => {
      try {
        const req = indexedDB.open(name, 1);
        req.onupgradeneeded = () => req.result.createObjectStore(store, { keyPath });
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => resolve(null);
        req.onblocked = () => resolve(null);
      } catch {
        resolve(null); // no indexedDB at all, or one that refuses to open
      }
    });
    return opened;
  };
  return {
    open,
    async get(key) {
      const db = await open();
      if (!db) return undefined;
      try {
        return (await idbRequest(db.transaction(store).objectStore(store).get(key))) ?? null;
      } catch {
        return undefined;
      }
    },
    async put(record) {
      return this.change(record[keyPath], () => record);
    },
    /** Read a record and write what `fn(record or null)` answers (nothing when it answers
     * null), in one transaction, so that two writers of one record do not lose either's. */
    async change(key, fn) {
      const db = await open();
      if (!db) return false;
      try {
        const records = db.transaction(store, "readwrite").objectStore(store);
        const next = fn((await idbRequest(records.get(key))) ?? null);
        if (next) await idbRequest(records.put(next));
        return true;
      } catch {
        return false;
      }
    },
  };
}

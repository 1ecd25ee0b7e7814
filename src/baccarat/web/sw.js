// The installed app's service worker: it keeps the app's files in its cache, so that a visit
// after the first fetches only the files that changed, and the app opens offline to its
// "connecting" screen. A visit that meets a server error (a proxy with no node up answers its
// own 503 page; a node whose store is away answers 503 too) is answered with the cached app
// shell as well: it says it is reconnecting, asks again with backoff, and takes the player
// back to the seat once a node answers, where the error page would have stayed for good.
//
// The server lists the app's files with a hash of each (assets.json). On each visit the page
// itself comes from the network (the cached copy only when the network fails), the list is
// asked for beside it (a 304 when nothing changed), and a file whose hash changed is fetched
// again before the page's requests are answered from the cache: a visit never runs old code
// against a new server. Requests other than the app's files (the API, the socket, the
// console) are not touched.

const CACHE = "baccarat-app";
const scope = new URL(self.registration.scope);
const LIST = new URL("assets.json", scope).href;
const PAGE = new URL("index.html", scope).href;
const APP_FILES = /^(js|css|icons)\/|^(manifest\.json|index\.html)$/;
// How long a file's request waits for the list before it is answered from the cache anyway.
const LIST_WAIT = 4000;

let looked = null; // the latest look at the list (a promise), started with the page

/** The hash an ETag names (`W/"abc"` -> `abc`). */
const hashOf = (etag) => (etag ?? "").replace(/^W\//, "").replaceAll('"', "");

/** Bring the cache up to the server's list: fetch what changed, drop what is gone. */
async function update() {
  const answer = await fetch(LIST, { cache: "no-cache" });
  if (!answer.ok) throw new Error(`assets.json: ${answer.status}`);
  const { files } = await answer.json();
  const cache = await caches.open(CACHE);
  const held = new Map();
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    held.set(request.url, hashOf(response.headers.get("ETag")));
  }
  const wanted = new Set();
  await Promise.all(Object.entries(files).map(async ([path, hash]) => {
    const url = new URL(path, scope).href;
    wanted.add(url);
    if (held.get(url) === hash) return;
    // The browser's own cache most likely holds it (the page just loaded it): take that copy
    // when it is this version, and ask the server only otherwise.
    let response = await fetch(url, { cache: "force-cache" });
    if (hashOf(response.headers.get("ETag")) !== hash) response = await fetch(url, { cache: "no-cache" });
    if (response.ok) await cache.put(url, response);
  }));
  await Promise.all([...held.keys()].filter((url) => !wanted.has(url)).map((url) => cache.delete(url)));
}

/** The page: from the network, or (offline, or answered with a server error) the cached one;
 * the list is looked at beside it. */
async function page(request) {
  looked = update().catch(() => {});
  let answer;
  try {
    answer = await fetch(request);
  } catch (err) {
    const cached = await caches.match(PAGE);
    if (cached) return cached;
    throw err;
  }
  if (answer.status < 500) return answer;
  return (await caches.match(PAGE)) ?? answer;
}

/** One of the app's files: from the cache once the list has been looked at, else the network. */
async function file(request) {
  if (looked) await Promise.race([looked, new Promise((resolve) => setTimeout(resolve, LIST_WAIT))]);
  const url = new URL(request.url);
  url.search = "";
  const cached = await caches.match(url.href, { ignoreVary: true });
  return cached ?? fetch(request);
}

self.addEventListener("install", (event) => {
  event.waitUntil(update().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  const path = url.pathname.slice(scope.pathname.length);
  if (request.mode === "navigate") {
    // Only the app's own page: /api/enter and the others are the server's to answer.
    if (path === "" || path === "index.html") event.respondWith(page(request));
    return;
  }
  if (APP_FILES.test(path)) event.respondWith(file(request));
});

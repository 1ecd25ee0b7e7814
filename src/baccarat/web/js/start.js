// The page's first step: the installed app's service worker (web/sw.js), then the app. An
// installed app opened offline shows its "connecting" screen (index.html's) and starts once
// the network is back, rather than taking a failed look at its session for a logout.

import "./host.js"; // first: a frame's storage, and what the page that frames the game hears
import { t } from "./i18n.js";

if ("serviceWorker" in navigator) navigator.serviceWorker.register("sw.js").catch(() => {});

const start = () => import("./main.js");

const text = document.querySelector(".boot-text");
if (text) text.textContent = t("connecting");
if (navigator.onLine === false) window.addEventListener("online", start, { once: true });
else start();

"""``GET /launch?token=JWT``: a player arrives from the platform's lobby, signed in.

The token is checked (``tokens``) and used up (``Store.launch``, one use per ``jti``); the
account linked to the platform's user gets a session cookie, and the answer is a small page
that sets the page's language to the token's and goes on to the lobby or the named table.
A refused token is answered ``401`` (``409 token_replayed``) with the code and a sentence.

A launch inside a frame of a page the platform file lists (``frame_origins``) gets its
session as a cookie that works there: ``SameSite=None; Secure; Partitioned`` (a third-party
frame's cookie, kept apart for that top-level site). The page remembers which listed origin
framed it, the only one it then tells anything (``web/js/host.js``).
"""

from __future__ import annotations

import asyncio
import html
import time
from urllib.parse import quote

from aiohttp import web

from baccarat.errors import BaccaratError, RuleViolation
from baccarat.platform.tokens import LaunchTokens
from baccarat.server.http import auth, shoes
from baccarat.server.http.headers import FRAME_ANCESTORS

TOKENS = web.AppKey("platform_tokens", LaunchTokens)

LAUNCH_JS = """\
// Set the game's language to the launch token's; in a frame, pass on which of the listed
// origins framed the game (the one it tells of balances, leaving and closing); then go where
// the token said.
const me = document.currentScript;
const hosts = (me.dataset.hosts || "").split(" ").filter(Boolean);
const next = new URL(me.dataset.next || "/", location.href);
if (window.parent !== window && hosts.length) {
  let seen = location.ancestorOrigins ? location.ancestorOrigins[0] : null;
  if (!seen && document.referrer) seen = new URL(document.referrer).origin;
  const host = hosts.includes(seen) ? seen : hosts.length === 1 ? hosts[0] : null;
  if (host) next.searchParams.set("host", host);
}
try {
  localStorage.setItem("baccarat.lang", me.dataset.lang === "en" ? "en" : "zh-TW");
} catch (e) {
  // Storage may be off (a third-party frame in a private window): the language goes along.
  next.searchParams.set("lang", me.dataset.lang === "en" ? "en" : "zh-TW");
}
location.replace(next.href);
"""


def _page(language: str, target: str, hosts: tuple[str, ...]) -> str:
    lang, next_ = html.escape(language), html.escape(target)
    listed = html.escape(" ".join(hosts))
    return (
        f'<!doctype html><html lang="{lang}"><meta charset="utf-8"><title>…</title>'
        f'<script src="/platform/launch.js" data-lang="{lang}" data-next="{next_}"'
        f' data-hosts="{listed}"></script>'
        f'<noscript><a href="{next_}">Baccarat</a></noscript></html>'
    )


def _framed(request: web.Request) -> bool:
    """Whether the launch came in a frame (the browser says so) that some origin may show."""
    return bool(request.config_dict.get(FRAME_ANCESTORS, ())) and (
        request.headers.get("Sec-Fetch-Dest") == "iframe"
    )


def set_framed_cookie(resp: web.StreamResponse, session: str) -> None:
    """The session as a cookie a third-party frame sends: SameSite=None, Secure (which
    that needs), Partitioned (kept for the top-level site that framed it)."""
    # Written out: the standard library's cookies know no Partitioned before Python 3.14.
    assert session.isascii() and session.replace("-", "").replace("_", "").isalnum()
    resp.headers.add(
        "Set-Cookie",
        f"{auth.COOKIE}={session}; HttpOnly; Max-Age={30 * 24 * 3600}; Path=/; "
        "SameSite=None; Secure; Partitioned",
    )


def _status(exc: BaccaratError) -> int:
    return 409 if isinstance(exc, RuleViolation) else 401


async def launch(request: web.Request) -> web.Response:
    """GET /launch?token=JWT: check the token, link and sign the player in, send them on."""
    store = request.app[auth.STORE]
    try:
        checked = await request.app[TOKENS].check(request.query.get("token", ""), time.time())
        user = await asyncio.to_thread(store.launch, checked.who)
    except BaccaratError as exc:
        return auth.fail(_status(exc), exc.code, exc.message)
    if user.banned:
        return auth.banned(user.banned)
    session = await asyncio.to_thread(store.create_session, user.user_id)
    # Kept as a login's are: the risk view weighs two accounts from one address.
    await asyncio.to_thread(store.note_login_address, user.user_id, auth.client_address(request))
    table = checked.table if checked.table in request.app[shoes.TABLES] else None
    # ``entered`` tells the page a session cookie was just set (as after a node's ticket).
    target = "/?entered=1" + ("" if table is None else f"#/table/{quote(table, safe='')}")
    hosts: tuple[str, ...] = request.config_dict.get(FRAME_ANCESTORS, ())
    page = _page(checked.language, target, hosts)
    resp = web.Response(text=page, content_type="text/html")
    resp.headers["Cache-Control"] = "no-store"
    if _framed(request):
        set_framed_cookie(resp, session)
    else:
        auth.set_session_cookie(resp, request, session)
    return resp


async def launch_js(request: web.Request) -> web.Response:
    """GET /platform/launch.js: the launch page's script (the policy allows no inline one)."""
    return web.Response(text=LAUNCH_JS, content_type="text/javascript")

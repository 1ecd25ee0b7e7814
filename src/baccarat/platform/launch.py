"""``GET /launch?token=JWT``: a player arrives from the platform's lobby, signed in.

The token is checked (``tokens``) and used up (``Store.launch``, one use per ``jti``); the
account linked to the platform's user gets a session cookie, and the answer is a small page
that sets the page's language to the token's and goes on to the lobby or the named table.
A refused token is answered ``401`` (``409 token_replayed``) with the code and a sentence.
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

TOKENS = web.AppKey("platform_tokens", LaunchTokens)

LAUNCH_JS = """\
// Set the game's language to the launch token's, then go where the token said.
const me = document.currentScript;
try {
  localStorage.setItem("baccarat.lang", me.dataset.lang === "en" ? "en" : "zh-TW");
} catch (e) {
  // Storage may be off: the page keeps its own language then.
}
location.replace(me.dataset.next || "/");
"""


def _page(language: str, target: str) -> str:
    lang, next_ = html.escape(language), html.escape(target)
    return (
        f'<!doctype html><html lang="{lang}"><meta charset="utf-8"><title>…</title>'
        f'<script src="/platform/launch.js" data-lang="{lang}" data-next="{next_}"></script>'
        f'<noscript><a href="{next_}">Baccarat</a></noscript></html>'
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
    resp = web.Response(text=_page(checked.language, target), content_type="text/html")
    resp.headers["Cache-Control"] = "no-store"
    auth.set_session_cookie(resp, request, session)
    return resp


async def launch_js(request: web.Request) -> web.Response:
    """GET /platform/launch.js: the launch page's script (the policy allows no inline one)."""
    return web.Response(text=LAUNCH_JS, content_type="text/javascript")

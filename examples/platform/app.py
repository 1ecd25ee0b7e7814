"""A reference platform: the operator's site that puts the baccarat table in front of its
users (docs/integration.md's worked example).

    python examples/platform/app.py --game http://127.0.0.1:8000

It keeps its own SQLite file (users with levels and coins, the transfers it made), signs
launch tokens with a key of its own (published at ``/.well-known/jwks.json``), and moves
coins into and out of the game's wallet through the game's transfer API. At its first start
it writes ``game.toml`` in its data directory: the file ``baccarat serve --platform`` reads.

With ``--wallet seamless`` it keeps the coins itself and the game asks its wallet for each
round's stakes (``seamless.py``); the lobby then has no coins to move.

Pages: ``/`` (the lobby: sign in as a user, open the game, move coins), ``/play`` (a signed
token, then the game), ``/frame`` (the game inside the lobby's own page, told by the game's
messages of the balance, leaving a table and closing). For the game: ``/api/transfers?from=&to=`` (signed: the report
``baccarat reconcile`` compares). For a sandbox (tests, a demo) on this machine only:
``/admin/users``, ``/admin/token``, ``/admin/rotate``.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import html
import json
import secrets
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import aiohttp
import seamless
from aiohttp import web
from joserfc import jwt
from joserfc.jwk import ECKey, KeySet
from yarl import URL

AUDIENCE = "baccarat"
TOKEN_LIFE = 120
USERS = (
    ("u1001", "美美 Mei", 60, 100_000),
    ("u1002", "Kai", 75, 500_000),
    ("u1003", "Newbie", 12, 20_000),
)
WORDS = {
    "zh-TW": {
        "title": "星光平台",
        "signin": "以此身分登入",
        "level": "等級",
        "coins": "平台星幣",
        "game": "遊戲錢包",
        "play": "進入百家樂",
        "in": "轉入遊戲",
        "out": "轉出遊戲",
        "amount": "數量",
        "never": "尚未進入遊戲",
        "signout": "登出",
        "low": "百家樂需要等級 50",
        "done": "完成",
        "failed": "失敗",
        "pending": "處理中",
        "lang": "English",
        "here": "在本頁遊玩",
        "closed": "遊戲已關閉",
        "back": "回到大廳",
    },
    "en": {
        "title": "Starlight Platform",
        "signin": "Sign in as",
        "level": "Level",
        "coins": "Platform coins",
        "game": "Game wallet",
        "play": "Play baccarat",
        "in": "Move into the game",
        "out": "Move out of the game",
        "amount": "Amount",
        "never": "Not in the game yet",
        "signout": "Sign out",
        "low": "Baccarat needs level 50",
        "done": "done",
        "failed": "failed",
        "pending": "pending",
        "lang": "中文",
        "here": "Play in this page",
        "closed": "The game has closed",
        "back": "Back to the lobby",
    },
}


# The platform's state ---------------------------------------------------------------------


class Platform:
    """The users, their coins, the transfers, the signing keys and the shared secret."""

    def __init__(self, data: Path, base: str, game: str, wallet: str = "transfer") -> None:
        data.mkdir(parents=True, exist_ok=True)
        self.data, self.base, self.game = data, base, game.rstrip("/")
        self.mode = wallet
        """``transfer``: coins move into the game's wallet and back; ``seamless``: the game
        asks this platform's wallet for every round's coins."""
        self.db = sqlite3.connect(data / "platform.db", isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.executescript(
            "CREATE TABLE IF NOT EXISTS users (id TEXT PRIMARY KEY, name TEXT, level INT,"
            " coins INT CHECK (coins >= 0));"
            "CREATE TABLE IF NOT EXISTS transfers (id TEXT PRIMARY KEY, user TEXT, amount INT,"
            " status TEXT, created_at REAL, error TEXT);"
        )
        for uid, name, level, coins in USERS:
            self.db.execute(
                "INSERT OR IGNORE INTO users VALUES (?, ?, ?, ?)", (uid, name, level, coins)
            )
        self.secret = self._secret()
        self.keys = self._keys()
        self.wallet = seamless.Wallet(self.db, self.secret)
        self._write_game_file()

    def _secret(self) -> str:
        path = self.data / "secret.txt"
        if not path.exists():
            path.write_text(secrets.token_urlsafe(32))
            path.chmod(0o600)
        return path.read_text().strip()

    def _keys(self) -> list[ECKey]:
        path = self.data / "keys.json"
        if not path.exists():
            self._save_keys([_new_key()])
        return [ECKey.import_key(k) for k in json.loads(path.read_text())]

    def _save_keys(self, keys: list[ECKey]) -> None:
        path = self.data / "keys.json"
        path.write_text(json.dumps([k.as_dict(private=True) for k in keys]))
        path.chmod(0o600)

    def rotate(self) -> str:
        """A new signing key; the JWKS keeps the one before it while its tokens live."""
        self.keys = [_new_key(), self.keys[0]]
        self._save_keys(self.keys)
        return str(self.keys[0].kid)

    def jwks(self) -> dict[str, Any]:
        return KeySet(self.keys).as_dict(private=False)

    def _write_game_file(self) -> None:
        url = f"{self.base}/api/wallet" if self.mode == "seamless" else f"{self.base}/api"
        (self.data / "game.toml").write_text(
            f'issuer = "{self.base}"\naudience = "{AUDIENCE}"\n'
            f'jwks_url = "{self.base}/.well-known/jwks.json"\nwallet = "{self.mode}"\n'
            f'wallet_url = "{url}"\nsecret_file = "secret.txt"\n'
            # This platform's own pages may show the game in a frame (/frame).
            f'frame_origins = ["{self.base}"]\n'
        )

    def user(self, uid: str) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM users WHERE id = ?", (uid,)).fetchone()

    def token(
        self, uid: str, lang: str, table: str | None = None, overrides: dict[str, Any] | None = None
    ) -> str:
        """A launch token for the user (``overrides`` change claims: a sandbox's bad tokens)."""
        row = self.user(uid)
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.base,
            "aud": AUDIENCE,
            "sub": uid,
            "name": row["name"] if row else uid,
            "level": row["level"] if row else 0,
            "locale": lang,
            "iat": now,
            "exp": now + TOKEN_LIFE,
            "jti": uuid.uuid4().hex,
        }
        if table:
            claims["table"] = table
        claims.update(overrides or {})
        key = self.keys[0]
        return jwt.encode({"alg": "ES256", "kid": key.kid, "typ": "JWT"}, claims, key)


def _new_key() -> ECKey:
    return ECKey.generate_key("P-256", parameters={"kid": secrets.token_hex(8), "use": "sig"})


# Signed calls (docs/integration.md, "Signatures") ----------------------------------------


def signature(secret: str, stamp: str, method: str, path_qs: str, body: bytes) -> str:
    message = f"{stamp}\n{method}\n{path_qs}\n".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signed_headers(secret: str, method: str, path_qs: str, body: bytes = b"") -> dict[str, str]:
    stamp = str(int(time.time()))
    return {
        "X-Platform-Timestamp": stamp,
        "X-Platform-Signature": signature(secret, stamp, method, path_qs, body),
        "Content-Type": "application/json",
    }


async def call_game(p: Platform, method: str, path_qs: str, data: Any = None) -> tuple[int, Any]:
    """Call the game's API, signed; (status, JSON body). Raises on a network failure."""
    body = b"" if data is None else json.dumps(data).encode()
    headers = signed_headers(p.secret, method, path_qs, body)
    timeout = aiohttp.ClientTimeout(total=10)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.request(method, p.game + path_qs, data=body or None, headers=headers) as resp,
    ):
        return resp.status, await resp.json(content_type=None)


# Transfers ---------------------------------------------------------------------------------


def start_transfer(p: Platform, uid: str, amount: int) -> str | None:
    """Record a transfer (a deposit takes the coins now); None when the user lacks them."""
    tid = f"pf-{uuid.uuid4().hex}"
    p.db.execute("BEGIN IMMEDIATE")
    try:
        if amount > 0:
            done = p.db.execute(
                "UPDATE users SET coins = coins - ? WHERE id = ? AND coins >= ?",
                (amount, uid, amount),
            )
            if done.rowcount == 0:
                p.db.execute("ROLLBACK")
                return None
        p.db.execute(
            "INSERT INTO transfers VALUES (?, ?, ?, 'pending', ?, NULL)",
            (tid, uid, amount, time.time()),
        )
        p.db.execute("COMMIT")
    except Exception:
        p.db.execute("ROLLBACK")
        raise
    return tid


def finish_transfer(p: Platform, tid: str, status: int, answer: Any) -> str:
    """Record the game's answer: done (a withdrawal's coins arrive), or failed (a deposit's
    coins go back). A 5xx leaves it pending, to be sent again with the same id."""
    row = p.db.execute("SELECT * FROM transfers WHERE id = ?", (tid,)).fetchone()
    if row["status"] != "pending" or status >= 500:
        return str(row["status"])
    p.db.execute("BEGIN IMMEDIATE")
    if status == 200:
        if row["amount"] < 0:
            p.db.execute(
                "UPDATE users SET coins = coins - ? WHERE id = ?", (row["amount"], row["user"])
            )
        p.db.execute("UPDATE transfers SET status = 'done' WHERE id = ?", (tid,))
    else:
        if row["amount"] > 0:
            p.db.execute(
                "UPDATE users SET coins = coins + ? WHERE id = ?", (row["amount"], row["user"])
            )
        code = (answer or {}).get("error", {}).get("code", str(status))
        p.db.execute("UPDATE transfers SET status = 'failed', error = ? WHERE id = ?", (code, tid))
    p.db.execute("COMMIT")
    return "done" if status == 200 else "failed"


async def send_transfer(p: Platform, tid: str) -> tuple[str, Any]:
    """Send a pending transfer to the game (again: the same id never moves coins twice)."""
    row = p.db.execute("SELECT * FROM transfers WHERE id = ?", (tid,)).fetchone()
    body = {"transfer_id": tid, "user": row["user"], "amount": row["amount"]}
    for attempt in range(3):
        try:
            status, answer = await call_game(p, "POST", "/api/platform/transfers", body)
        except (aiohttp.ClientError, TimeoutError):
            await asyncio.sleep(0.5 * (attempt + 1))
            continue
        return finish_transfer(p, tid, status, answer), answer
    return "pending", None


async def resend_pending(p: Platform) -> None:
    for row in p.db.execute("SELECT id FROM transfers WHERE status = 'pending'").fetchall():
        await send_transfer(p, row["id"])


# Pages ------------------------------------------------------------------------------------

PLATFORM = web.AppKey("platform", Platform)
STYLE = """
body{font-family:system-ui,"Noto Sans TC",sans-serif;margin:0;background:#10131c;color:#eee}
header{display:flex;justify-content:space-between;align-items:center;padding:12px 20px;
background:#1b2233;border-bottom:2px solid #c9a227}
h1{font-size:1.3rem;margin:0;color:#f3d36b}main{max-width:720px;margin:auto;padding:16px}
.card{background:#1b2233;border-radius:12px;padding:16px;margin:12px 0}
.row{display:flex;flex-wrap:wrap;gap:12px;align-items:center;justify-content:space-between}
button,.play{background:#c9a227;color:#111;border:0;border-radius:8px;padding:10px 16px;
font-size:1rem;cursor:pointer;text-decoration:none;display:inline-block}
input{padding:9px;border-radius:8px;border:1px solid #555;background:#0c0f16;color:#eee;width:8em}
a{color:#9ec3ff}.big{font-size:1.6rem;font-weight:600}.muted{color:#9aa}
table{width:100%;border-collapse:collapse}td{padding:4px 0;border-bottom:1px solid #2a3346}
"""


def _lang(request: web.Request) -> str:
    lang = request.query.get("lang") or request.cookies.get("pf_lang", "zh-TW")
    return "en" if lang == "en" else "zh-TW"


def _page(lang: str, body: str) -> web.Response:
    w = WORDS[lang]
    other = "zh-TW" if lang == "en" else "en"
    doc = (
        f'<!doctype html><html lang="{"en" if lang == "en" else "zh-Hant"}"><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{w['title']}</title><style>{STYLE}</style>"
        f'<header><h1>★ {w["title"]}</h1><a id="lang" href="/?lang={other}">{w["lang"]}</a></header>'
        f"<main>{body}</main></html>"
    )
    resp = web.Response(text=doc, content_type="text/html")
    resp.set_cookie("pf_lang", lang, samesite="Lax")
    return resp


def _signed_in(request: web.Request) -> sqlite3.Row | None:
    return request.app[PLATFORM].user(request.cookies.get("pf_user", ""))


async def lobby(request: web.Request) -> web.Response:
    p, lang = request.app[PLATFORM], _lang(request)
    w, user = WORDS[lang], _signed_in(request)
    if user is None:
        rows = p.db.execute("SELECT * FROM users ORDER BY id").fetchall()
        items = "".join(
            f'<form method="post" action="/signin" class="card row"><span>{html.escape(r["name"])}'
            f' · {w["level"]} {r["level"]}</span><input type="hidden" name="user" value="{r["id"]}">'
            f'<button id="signin-{r["id"]}">{w["signin"]}</button></form>'
            for r in rows
        )
        return _page(lang, items)
    if p.mode == "seamless":
        return _page(lang, _seamless_lobby(user, w))
    await resend_pending(p)
    user = _signed_in(request)
    assert user is not None
    try:
        status, answer = await call_game(
            p, "GET", f"/api/platform/balance?user={quote(user['id'])}"
        )
        game = f"{answer['balance']:,}" if status == 200 else w["never"]
    except (aiohttp.ClientError, TimeoutError):
        game = "?"
    play = _play_button(user, w)
    history = "".join(
        f"<tr><td>{r['amount']:+,}</td><td>{w[r['status']]}</td><td class=muted>{r['error'] or ''}</td></tr>"
        for r in p.db.execute(
            "SELECT * FROM transfers WHERE user = ? ORDER BY created_at DESC LIMIT 5", (user["id"],)
        )
    )
    body = (
        f'<div class="card row"><div><div class="big" id="name">{html.escape(user["name"])}</div>'
        f'<div>{w["level"]} <b id="level">{user["level"]}</b></div></div>'
        f'<form method="post" action="/signout"><button>{w["signout"]}</button></form></div>'
        f'<div class="card row"><div>{w["coins"]}<div class="big" id="coins">{user["coins"]:,}</div></div>'
        f'<div>{w["game"]}<div class="big" id="game-coins">{game}</div></div></div>'
        f'<div class="card row">{play}</div>'
        f'<form class="card row" method="post" action="/wallet"><label>{w["amount"]} '
        f'<input id="amount" name="amount" type="number" min="1" step="1" value="10000"></label>'
        f'<button id="move-in" name="direction" value="in">{w["in"]}</button>'
        f'<button id="move-out" name="direction" value="out">{w["out"]}</button></form>'
        f'<div class="card"><table id="transfers">{history}</table></div>'
    )
    return _page(lang, body)


def _play_button(user: sqlite3.Row, w: dict[str, str]) -> str:
    if user["level"] >= 50:
        return (
            f'<a class="play" id="play" href="/play">{w["play"]}</a>'
            f'<a id="play-here" href="/frame">{w["here"]}</a>'
        )
    return f'<span class="muted">{w["low"]}</span>'


def _seamless_lobby(user: sqlite3.Row, w: dict[str, str]) -> str:
    """With the seamless wallet the platform's coins are the only balance: the game asks for
    each round's stakes and pays the results back."""
    return (
        f'<div class="card row"><div><div class="big" id="name">{html.escape(user["name"])}</div>'
        f'<div>{w["level"]} <b id="level">{user["level"]}</b></div></div>'
        f'<form method="post" action="/signout"><button>{w["signout"]}</button></form></div>'
        f'<div class="card row"><div>{w["coins"]}<div class="big" id="coins">{user["coins"]:,}</div>'
        f'</div></div><div class="card row">{_play_button(user, w)}</div>'
    )


FRAME_JS = """
// The game's messages (docs/integration.md, "Embedding"): only from the game's origin.
window.gameMessages = [];
addEventListener("message", (e) => {
  if (e.origin !== GAME || !e.data || e.data.source !== "baccarat") return;
  window.gameMessages.push(e.data);
  const line = document.createElement("li");
  line.textContent = JSON.stringify(e.data);
  document.getElementById("game-messages").append(line);
  if (e.data.type === "balance") {
    document.getElementById("frame-coins").textContent = e.data.coins.toLocaleString("en-US");
  } else if (e.data.type === "close") {
    document.getElementById("game").remove();
    document.getElementById("game-closed").hidden = false;
  }
});
"""


async def frame(request: web.Request) -> web.Response:
    """The game inside this page: a frame opened at /play, and the game's messages."""
    p, user, lang = request.app[PLATFORM], _signed_in(request), _lang(request)
    if user is None or user["level"] < 50:
        raise web.HTTPSeeOther("/")
    w, game = WORDS[lang], json.dumps(str(URL(p.game).origin()))
    body = (
        f'<div class="card row"><div>{w["game"]} <b class="big" id="frame-coins">…</b></div>'
        f'<a href="/">{w["back"]}</a></div>'
        '<iframe id="game" src="/play" title="Baccarat" '
        'style="width:100%;height:min(80vh,760px);border:0;border-radius:12px"></iframe>'
        f'<p id="game-closed" class="card" hidden>{w["closed"]} · <a href="/">{w["back"]}</a></p>'
        f'<ul id="game-messages" class="muted"></ul><script>const GAME = {game};{FRAME_JS}</script>'
    )
    return _page(lang, body)


async def signin(request: web.Request) -> web.Response:
    form = await request.post()
    resp = web.HTTPSeeOther("/")
    resp.set_cookie("pf_user", str(form.get("user", "")), samesite="Lax", httponly=True)
    raise resp


async def signout(request: web.Request) -> web.Response:
    resp = web.HTTPSeeOther("/")
    resp.del_cookie("pf_user")
    raise resp


async def play(request: web.Request) -> web.Response:
    p, user = request.app[PLATFORM], _signed_in(request)
    if user is None:
        raise web.HTTPSeeOther("/")
    token = p.token(user["id"], _lang(request), request.query.get("table"))
    raise web.HTTPSeeOther(f"{p.game}/launch?{urlencode({'token': token})}")


async def wallet(request: web.Request) -> web.Response:
    p, user = request.app[PLATFORM], _signed_in(request)
    form = await request.post()
    if user is None:
        raise web.HTTPSeeOther("/")
    amount = int(str(form.get("amount", "0")) or 0)
    if amount > 0:
        tid = start_transfer(p, user["id"], amount if form.get("direction") == "in" else -amount)
        if tid is not None:
            await send_transfer(p, tid)
    raise web.HTTPSeeOther("/")


# For the game and the sandbox --------------------------------------------------------------


async def jwks(request: web.Request) -> web.Response:
    return web.json_response(request.app[PLATFORM].jwks())


async def report(request: web.Request) -> web.Response:
    """GET /api/transfers?from=T&to=T, signed by the game: the transfers done in the period."""
    p = request.app[PLATFORM]
    if not p.wallet.signed(request, b""):
        return web.json_response(
            {"error": {"code": "bad_signature", "message": "Not signed."}}, status=401
        )
    try:  # whole Unix seconds, as docs/integration.md says the game sends them
        start, end = int(request.query["from"]), int(request.query["to"])
    except (KeyError, ValueError):
        refusal = {"code": "bad_period", "message": "'from' and 'to' are whole seconds."}
        return web.json_response({"error": refusal}, status=400)
    rows = p.db.execute(
        "SELECT * FROM transfers WHERE status = 'done' AND created_at >= ? AND created_at < ?"
        " ORDER BY created_at",
        (start, end),
    )
    found = [
        {
            "transfer_id": r["id"],
            "user": r["user"],
            "amount": r["amount"],
            "created_at": r["created_at"],
        }
        for r in rows
    ]
    return web.json_response({"transfers": found})


@web.middleware
async def local_admin(request: web.Request, handler: Any) -> web.StreamResponse:
    if request.path.startswith("/admin/") and request.remote not in ("127.0.0.1", "::1"):
        raise web.HTTPForbidden()
    response: web.StreamResponse = await handler(request)
    return response


async def admin_users(request: web.Request) -> web.Response:
    """GET: every user and transfer; POST {id, name, level, coins}: a user."""
    p = request.app[PLATFORM]
    if request.method == "POST":
        d = await request.json()
        p.db.execute(
            "INSERT OR REPLACE INTO users VALUES (?, ?, ?, ?)",
            (d["id"], d["name"], d["level"], d["coins"]),
        )
    users = [dict(r) for r in p.db.execute("SELECT * FROM users ORDER BY id")]
    transfers = [dict(r) for r in p.db.execute("SELECT * FROM transfers ORDER BY created_at")]
    wallet = p.wallet.transactions()
    return web.json_response({"users": users, "transfers": transfers, "wallet": wallet})


async def admin_token(request: web.Request) -> web.Response:
    """POST {user, lang, table, claims}: a launch token, claims overridden (a sandbox's)."""
    d = await request.json()
    p = request.app[PLATFORM]
    token = p.token(d["user"], d.get("lang", "en"), d.get("table"), d.get("claims", {}))
    return web.json_response(
        {"token": token, "launch": f"{p.game}/launch?{urlencode({'token': token})}"}
    )


async def admin_transfer(request: web.Request) -> web.Response:
    """POST {user, amount}: what the wallet form does, answered with the game's answer."""
    d = await request.json()
    p = request.app[PLATFORM]
    tid = start_transfer(p, d["user"], int(d["amount"]))
    if tid is None:
        return web.json_response({"status": "refused", "error": "insufficient_coins"}, status=409)
    status, answer = await send_transfer(p, tid)
    return web.json_response({"transfer_id": tid, "status": status, "answer": answer})


async def admin_rotate(request: web.Request) -> web.Response:
    return web.json_response({"kid": request.app[PLATFORM].rotate()})


def make_app(p: Platform) -> web.Application:
    app = web.Application(middlewares=[local_admin])
    app[PLATFORM] = p
    app.router.add_get("/", lobby)
    app.router.add_post("/signin", signin)
    app.router.add_post("/signout", signout)
    app.router.add_get("/play", play)
    app.router.add_get("/frame", frame)
    app.router.add_post("/wallet", wallet)
    app.router.add_get("/.well-known/jwks.json", jwks)
    app.router.add_get("/api/transfers", report)
    app.router.add_route("*", "/admin/users", admin_users)
    app.router.add_post("/admin/token", admin_token)
    app.router.add_post("/admin/transfer", admin_transfer)
    app.router.add_post("/admin/rotate", admin_rotate)
    seamless.add_routes(app, p.wallet)
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", required=True, help="where the game answers (http://HOST:PORT)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument(
        "--data", default="platform-data", help="its SQLite file, keys and game.toml"
    )
    parser.add_argument(
        "--wallet",
        choices=("transfer", "seamless"),
        default="transfer",
        help="move coins into the game's wallet (transfer), or keep them here (seamless)",
    )
    args = parser.parse_args()
    base = f"http://{args.host}:{args.port}"
    platform = Platform(Path(args.data), base, args.game, args.wallet)
    print(f"game file: {Path(args.data).resolve() / 'game.toml'}", flush=True)
    print(f"  (baccarat serve --platform {Path(args.data) / 'game.toml'})", flush=True)
    print(f"open:     {base}/", flush=True)
    web.run_app(make_app(platform), host=args.host, port=args.port, print=None)


if __name__ == "__main__":
    main()

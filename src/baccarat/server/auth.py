"""Accounts over HTTP: register, login, logout, me; sessions by cookie or bearer token.

The session token goes to a browser as an HttpOnly SameSite=Lax cookie and to other clients
in the JSON body. Login is rate limited per IP address and per username.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict, deque
from collections.abc import Callable
from typing import Any

from aiohttp import web

from baccarat.errors import BaccaratError, Conflict, InvalidInput
from baccarat.server import wire
from baccarat.server.config import ServerSettings
from baccarat.store import Store, User

COOKIE = "baccarat_session"
WINDOW = 60.0
"""The rate limit counts attempts over this many seconds."""
MIN_PASSWORD = 6


def user_json(user: User) -> dict[str, Any]:
    """A user as the protocol shows it (no secrets)."""
    return {
        "id": user.user_id,
        "name": user.username,
        "display_name": user.display_name,
        "level": user.level,
        "coins": user.coins,
    }


def fail(status: int, code: str, message: str, **headers: str) -> web.Response:
    """An HTTP error answer in the protocol's shape."""
    return web.json_response(
        {"error": {"code": code, "message": message}}, status=status, headers=headers or None
    )


class RateLimiter:
    """At most ``limit`` attempts per key within ``window`` seconds."""

    def __init__(
        self, limit: int, window: float = WINDOW, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._hits: dict[str, deque[float]] = defaultdict(deque)

    def retry_after(self, *keys: str) -> float:
        """Seconds to wait if any key is over the limit, else 0 (and the attempt counts)."""
        now = self.clock()
        wait = 0.0
        for key in keys:
            hits = self._hits[key]
            while hits and hits[0] <= now - self.window:
                hits.popleft()
            if len(hits) >= self.limit:
                wait = max(wait, hits[0] + self.window - now)
        if wait > 0:
            return wait
        for key in keys:
            self._hits[key].append(now)
        if len(self._hits) > 100_000:
            # Forget idle keys so a flood of names cannot grow memory without bound.
            for key in [k for k, v in self._hits.items() if not v]:
                del self._hits[key]
        return 0.0


def request_token(request: web.Request) -> str | None:
    """The session token a request carries: bearer header, then cookie, then ``?token=``."""
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        token = header[7:].strip()
    else:
        token = request.cookies.get(COOKIE) or request.query.get("token") or ""
    # A token is short ASCII; anything else (raw bytes in a header arrive as lone
    # surrogates) names no session and must not reach the hash.
    return token if token and len(token) <= 256 and token.isascii() else None


async def current_user(request: web.Request) -> tuple[User, str] | None:
    """The logged-in user of a request and its token, or None."""
    token = request_token(request)
    if token is None:
        return None
    store: Store = request.app[STORE]
    user = await asyncio.to_thread(store.user_for_session, token)
    return None if user is None else (user, token)


async def _body(request: web.Request) -> dict[str, Any]:
    # Bytes, not ``request.json()``: JSON is UTF-8 whatever charset the header claims, and
    # ``wire`` bounds nesting and refuses lone surrogates before anything reaches the store.
    data = wire.loads(await request.read())
    if not isinstance(data, dict):
        raise InvalidInput("bad_message", "The body is a JSON object.")
    return data


def _credentials(data: dict[str, Any]) -> tuple[str, str]:
    username, password = data.get("username"), data.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        raise InvalidInput("bad_message", "Send 'username' and 'password' as text.")
    return username, password


def _logged_in(request: web.Request, user: User, token: str, status: int) -> web.Response:
    resp = web.json_response({"user": user_json(user), "token": token}, status=status)
    resp.set_cookie(
        COOKIE,
        token,
        httponly=True,
        samesite="Lax",
        path="/",
        secure=request.secure,
        max_age=30 * 24 * 3600,
    )
    return resp


def _error(exc: BaccaratError) -> web.Response:
    status = 409 if isinstance(exc, Conflict) else 400
    return fail(status, exc.code, exc.message)


async def register(request: web.Request) -> web.Response:
    """POST /api/register: create an account and log it in."""
    settings = request.app[SETTINGS]
    if not request.app[ALLOW_REGISTER]:
        return fail(403, "registration_closed", "This server does not accept new accounts.")
    store: Store = request.app[STORE]
    try:
        data = await _body(request)
        username, password = _credentials(data)
        if len(password) < MIN_PASSWORD:
            raise InvalidInput(
                "bad_password", f"A password needs at least {MIN_PASSWORD} characters."
            )
        display = data.get("display_name")
        if display is not None and (not isinstance(display, str) or not 0 < len(display) <= 32):
            raise InvalidInput("bad_message", "A display name is 1 to 32 characters of text.")
        wait = request.app[LIMITERS][0].retry_after(f"ip:{request.remote}")
        if wait:
            return _limited(wait)
        user = await asyncio.to_thread(
            store.create_user,
            username,
            password,
            display_name=display,
            level=settings.start_level,
            coins=settings.start_coins,
        )
        token = await asyncio.to_thread(store.create_session, user.user_id)
    except BaccaratError as exc:
        return _error(exc)
    return _logged_in(request, user, token, 201)


def _limited(wait: float) -> web.Response:
    return fail(
        429,
        "rate_limited",
        "Too many attempts; wait a minute and try again.",
        **{"Retry-After": str(max(1, round(wait)))},
    )


async def login(request: web.Request) -> web.Response:
    """POST /api/login: check the password, open a session."""
    store: Store = request.app[STORE]
    try:
        username, password = _credentials(await _body(request))
    except BaccaratError as exc:
        return _error(exc)
    by_ip, by_name = request.app[LIMITERS]
    wait = max(
        by_ip.retry_after(f"ip:{request.remote}"), by_name.retry_after(username.lower()[:64])
    )
    if wait:
        return _limited(wait)
    user = await asyncio.to_thread(store.authenticate, username, password)
    if user is None:
        return fail(401, "bad_credentials", "The username or the password is wrong.")
    token = await asyncio.to_thread(store.create_session, user.user_id)
    return _logged_in(request, user, token, 200)


async def logout(request: web.Request) -> web.Response:
    """POST /api/logout: end the session and close its sockets."""
    store: Store = request.app[STORE]
    token = request_token(request)
    if token is not None:
        await asyncio.to_thread(store.delete_session, token)
        request.app[ON_LOGOUT](token)
    resp = web.json_response({"ok": True})
    resp.del_cookie(COOKIE, path="/")
    return resp


async def me(request: web.Request) -> web.Response:
    """GET /api/me: the logged-in user."""
    found = await current_user(request)
    if found is None:
        return fail(401, "not_authenticated", "Log in first.")
    return web.json_response({"user": user_json(found[0])})


def origin_allowed(request: web.Request, extra: tuple[str, ...]) -> bool:
    """A browser's Origin must be this server's own host, or one allowed by ``--origin``."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True  # not a browser: a browser always sends Origin on a WebSocket upgrade
    if origin in extra:
        return True
    host = request.headers.get("Host", request.host)
    return origin in (f"http://{host}", f"https://{host}")


# Application keys (aiohttp's typed AppKey keeps them apart from other keys).
STORE = web.AppKey("store", Store)
SETTINGS = web.AppKey("settings", ServerSettings)
ALLOW_REGISTER = web.AppKey("allow_register", bool)
LIMITERS = web.AppKey("limiters", tuple[RateLimiter, RateLimiter])
"""Login attempts per IP address and per username."""
ON_LOGOUT: web.AppKey[Callable[[str], None]] = web.AppKey("on_logout")

"""Accounts over HTTP: register, login, logout, me; sessions by cookie or bearer token.

The session token goes to a browser as an HttpOnly SameSite=Lax cookie and to other clients
in the JSON body. Every POST checks the browser's Origin like the WebSocket does, and login
and register take ``application/json`` only, so another site can neither log a visitor into
an account of its choosing nor register one from a form. Logins and registrations are rate
limited (``baccarat.server.limits``) and their password work runs on its own small, bounded
pool (``baccarat.server.passwords``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from baccarat import names
from baccarat.errors import BaccaratError, Conflict, InvalidInput
from baccarat.protocol import codec
from baccarat.protocol.frames import User as UserJson
from baccarat.server.config import ServerSettings
from baccarat.server.http import proxy
from baccarat.server.limits import AuthLimits
from baccarat.server.passwords import RETRY_AFTER, PasswordPool, PasswordsBusy
from baccarat.store import Store, User

COOKIE = "baccarat_session"
MIN_PASSWORD = 6


def user_json(user: User) -> UserJson:
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


def banned(reason: str) -> web.Response:
    """The answer to a banned account's login: 403, with the operator's reason."""
    error = {"code": "banned", "message": f"This account is banned: {reason}"}
    return web.json_response({"error": {**error, "details": {"reason": reason}}}, status=403)


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
    data = codec.loads(await request.read())
    if not isinstance(data, dict):
        raise InvalidInput("bad_message", "The body is a JSON object.")
    return data


def refuse_cross_site(request: web.Request, *, json_only: bool) -> web.Response | None:
    """The answer to a POST another site may have sent, or None when it may go on.

    A form on another site can post ``text/plain`` or urlencoded bodies without asking the
    browser's permission, and the browser keeps any cookie the answer sets; ``application/
    json`` needs a CORS preflight this server never grants. The Origin rule is the
    WebSocket's (:func:`origin_allowed`)."""
    if not origin_allowed(request, request.app[ORIGINS]):
        return fail(403, "bad_origin", "Requests from this origin are refused.")
    if json_only and request.content_type != "application/json":
        return fail(
            415,
            "unsupported_media_type",
            "Send the body as application/json (Content-Type: application/json).",
        )
    return None


def _credentials(data: dict[str, Any]) -> tuple[str, str]:
    username, password = data.get("username"), data.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        raise InvalidInput("bad_message", "Send 'username' and 'password' as text.")
    return username, password


def set_session_cookie(resp: web.StreamResponse, request: web.Request, token: str) -> None:
    """Give the browser its session as an HttpOnly, SameSite=Lax cookie."""
    resp.set_cookie(
        COOKIE,
        token,
        httponly=True,
        samesite="Lax",
        path="/",
        secure=proxy.secure(request),
        max_age=30 * 24 * 3600,
    )


def _logged_in(request: web.Request, user: User, token: str, status: int) -> web.Response:
    resp = web.json_response({"user": user_json(user), "token": token}, status=status)
    set_session_cookie(resp, request, token)
    return resp


def _error(exc: BaccaratError) -> web.Response:
    status = 409 if isinstance(exc, Conflict) else 400
    return fail(status, exc.code, exc.message)


def _busy(exc: PasswordsBusy) -> web.Response:
    return fail(503, exc.code, exc.message, **{"Retry-After": str(RETRY_AFTER)})


def _limited(wait: float, message: str) -> web.Response:
    seconds = max(1, round(wait))
    return fail(
        429, "rate_limited", f"{message} Try again in {seconds} s.", **{"Retry-After": str(seconds)}
    )


def client_address(request: web.Request) -> str:
    """The address a request came from (behind a trusted proxy, the one it names)."""
    return proxy.client_address(request)


def _registration(data: dict[str, Any]) -> tuple[str, str, str | None]:
    username, password = _credentials(data)
    names.verify_username(username)
    if len(password) < MIN_PASSWORD:
        raise InvalidInput("bad_password", f"A password needs at least {MIN_PASSWORD} characters.")
    display = data.get("display_name")
    if display is not None:
        display = names.verify_display_name(display)
    return username, password, display


async def register(request: web.Request) -> web.Response:
    """POST /api/register: create an account and log it in."""
    refused = refuse_cross_site(request, json_only=True)
    if refused is not None:
        return refused
    settings = request.app[SETTINGS]
    if not request.app[ALLOW_REGISTER]:
        return fail(403, "registration_closed", "This server does not accept new accounts.")
    store: Store = request.app[STORE]
    try:
        username, password, display = _registration(await _body(request))
        # Only well-formed requests count: a typo costs nobody one of the few registrations.
        wait = request.app[LIMITS].register(client_address(request))
        if wait:
            return _limited(wait, "Too many new accounts from here.")
        user = await request.app[PASSWORDS].run(
            lambda: store.create_user(
                username,
                password,
                display_name=display,
                level=settings.start_level,
                coins=settings.start_coins,
            )
        )
        token = await asyncio.to_thread(store.create_session, user.user_id)
        await asyncio.to_thread(store.note_login_address, user.user_id, client_address(request))
    except PasswordsBusy as exc:
        return _busy(exc)
    except BaccaratError as exc:
        return _error(exc)
    return _logged_in(request, user, token, 201)


async def login(request: web.Request) -> web.Response:
    """POST /api/login: check the password, open a session."""
    refused = refuse_cross_site(request, json_only=True)
    if refused is not None:
        return refused
    store: Store = request.app[STORE]
    try:
        username, password = _credentials(await _body(request))
    except BaccaratError as exc:
        return _error(exc)
    limits = request.app[LIMITS]
    address = client_address(request)
    wait = limits.login_address(address)
    if wait:
        return _limited(wait, "Too many logins from here.")
    if not names.could_be_username(username):
        # No account has such a name: nothing to look up, no password to hash.
        return _bad_credentials()
    wait = limits.login_name(names.username_key(username), address)
    if wait:
        return _limited(wait, "Too many logins for this name.")
    try:
        user = await request.app[PASSWORDS].run(store.authenticate, username, password)
    except PasswordsBusy as exc:
        return _busy(exc)
    if user is None:
        return _bad_credentials()
    if user.banned:
        return banned(user.banned)
    token = await asyncio.to_thread(store.create_session, user.user_id)
    # Kept for the risk view: a pair of accounts from one address weighs more.
    await asyncio.to_thread(store.note_login_address, user.user_id, address)
    return _logged_in(request, user, token, 200)


def _bad_credentials() -> web.Response:
    return fail(401, "bad_credentials", "The username or the password is wrong.")


async def logout(request: web.Request) -> web.Response:
    """POST /api/logout: end the session and close its sockets."""
    refused = refuse_cross_site(request, json_only=False)
    if refused is not None:
        return refused
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
    return web.json_response({"user": user_json(await request.app[SHOWN](found[0]))})


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
ORIGINS = web.AppKey("origins", tuple[str, ...])
"""Browser origins allowed besides the server's own (``--origin``)."""
LIMITS = web.AppKey("limits", AuthLimits)
PASSWORDS = web.AppKey("passwords", PasswordPool)
ON_LOGOUT: web.AppKey[Callable[[str], None]] = web.AppKey("on_logout")
SHOWN: web.AppKey[Callable[[User], Awaitable[User]]] = web.AppKey("shown")
"""The user with the balance to show them (the platform's, with a seamless wallet)."""

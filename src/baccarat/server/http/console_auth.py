"""The operator console's logins: a password and a TOTP code (RFC 6238), a session of its own.

An operator's first console login enrols the authenticator: the answer carries the secret
as an ``otpauth://`` URI and its QR code, and the login succeeds once a code from it is
given. The console's session is a separate token in a separate cookie (HttpOnly,
SameSite=Strict, half an hour), so a game session never opens the console and the console's
never plays. A request to ``/api/admin/*`` without a console session is 401; with only a
game session (a player's token) it is 403.
"""

from __future__ import annotations

import asyncio
import datetime
import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pyotp
import segno
from aiohttp import web

from baccarat import names
from baccarat.errors import BaccaratError, InvalidInput, NotFound
from baccarat.server.http import auth, proxy
from baccarat.server.http.keys import SERVER
from baccarat.server.limits import RateLimiter
from baccarat.server.passwords import PasswordsBusy
from baccarat.store import Store, User
from baccarat.store.operators import ADMIN_SESSION_TTL, CONSOLE_ROLES, Actor
from baccarat.store.records import user_wallet

COOKIE = "baccarat_console"
ISSUER = "Baccarat console"
MAX_AGENT = 200
"""Characters of a user agent kept in the log."""
OPERATOR = web.RequestKey("operator", User)
"""The operator a console request acts as (set by :func:`operator_only`)."""


CLI_OPERATOR = User(0, "cli", "cli", 0, 0, 0.0, role="admin")
"""Who ``baccarat admin`` acts as through the console API: ``cli``, with an admin's powers
(its token is made by writing the database, which the command may do anyway)."""


def _console_token(request: web.Request) -> str | None:
    header = request.headers.get("Authorization", "")
    if header.startswith("Console "):
        return header[len("Console ") :].strip() or None
    return request.cookies.get(COOKIE) or None


def _cli_token(request: web.Request) -> str | None:
    header = request.headers.get("Authorization", "")
    return header[len("Console-CLI ") :].strip() if header.startswith("Console-CLI ") else None


def _set_cookie(resp: web.StreamResponse, request: web.Request, token: str) -> None:
    resp.set_cookie(
        COOKIE,
        token,
        max_age=int(ADMIN_SESSION_TTL),
        # The whole address: behind one public address each node's console API is under
        # its own path (``/node/b/api/admin``), and the console acts on every node's tables.
        path="/",
        httponly=True,
        samesite="Strict",
        secure=proxy.secure(request),
    )


async def current_operator(request: web.Request) -> User | None:
    """The operator of a live console session, or None."""
    store: Store = request.app[auth.STORE]
    cli = _cli_token(request)
    if cli is not None:
        return CLI_OPERATOR if await asyncio.to_thread(store.cli_token_good, cli) else None
    token = _console_token(request)
    if token is None:
        return None
    return await asyncio.to_thread(store.operator_for_session, token)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def operator_only(
    handler: Handler, *, admin: bool = False, actions: RateLimiter | None = None
) -> Handler:
    """Wrap a console handler: a console session is needed (an admin's with ``admin``), a
    POST must be same-origin JSON, and counts against the operator's ``actions`` limit."""

    async def guarded(request: web.Request) -> web.StreamResponse:
        if request.method == "POST":
            refused = auth.refuse_cross_site(request, json_only=True)
            if refused is not None:
                return refused
        operator = await current_operator(request)
        if operator is None:
            if await auth.current_user(request) is not None:
                return auth.fail(403, "not_operator", "The console is for operators only.")
            return auth.fail(401, "console_login", "Log in to the console first.")
        if admin and operator.role != "admin":
            return auth.fail(403, "not_admin", "Only an admin may do this.")
        wait = actions.retry_after(f"op:{operator.user_id}") if actions is not None else 0
        if wait:
            seconds = max(1, round(wait))
            return auth.fail(
                429, "rate_limited", f"Too many actions; wait {seconds} s.", **{
                    "Retry-After": str(seconds)
                }
            )  # fmt: skip
        request[OPERATOR] = operator
        return await handler(request)

    return guarded


def acting(request: web.Request) -> User:
    """The operator a guarded request acts as."""
    operator = request[OPERATOR]
    return operator


def _enrolment(user: User, secret: str) -> dict[str, Any]:
    uri = pyotp.TOTP(secret).provisioning_uri(name=user.username, issuer_name=ISSUER)
    return {"secret": secret, "uri": uri, "qr": segno.make(uri).svg_data_uri(scale=5)}


def _code(data: dict[str, Any]) -> str | None:
    code = data.get("code")
    if code is None or code == "":
        return None
    if not isinstance(code, str) or not (code.isascii() and code.isdigit() and len(code) == 6):
        raise InvalidInput("bad_code", "The code is the 6 digits your authenticator shows.")
    return code


BAD_CREDENTIALS = "The username, the password or the code is wrong."
"""One answer for any wrong credential: a wrong password and a wrong (or used, or missing)
code read the same, so an answer never tells that the password was right."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """One console login as the log keeps it: the name given, from where, with what."""

    username: str
    address: str
    agent: str

    def seen(self) -> dict[str, str]:
        """Where the attempt came from, for its log entry."""
        return {"address": self.address, "user_agent": self.agent}


def _attempt(request: web.Request, username: str) -> Attempt:
    agent = request.headers.get("User-Agent", "")
    agent = "".join(c for c in agent if c.isprintable())[:MAX_AGENT]
    name = username if names.could_be_username(username) else "?"
    return Attempt(name, proxy.client_address(request), agent)


async def _logged(
    request: web.Request, attempt: Attempt, user: User | None, action: str, why: str
) -> None:
    """Log a console login's step (with the address and the user agent) and count it."""
    store: Store = request.app[auth.STORE]
    actor = Actor(user.username if user else attempt.username, user.user_id if user else None)
    # A wrong password for a real account is logged under that account, so its page shows
    # it; the actor keeps no id, as nobody proved to be that account.
    target = user_wallet(user.user_id) if user else await _target_named(store, attempt.username)
    await asyncio.to_thread(store.log_action, actor, action, target, why, None, attempt.seen())
    request.app[SERVER].metrics.console_logins.labels(LOGIN_OUTCOMES[action]).inc()


async def _target_named(store: Store, username: str) -> str:
    """The account a login named, as the log's target; ``name:NAME`` when none holds it."""
    try:
        return user_wallet(await asyncio.to_thread(store.user_id_of, username))
    except NotFound:
        return f"name:{username}"


LOGIN_OUTCOMES = {
    "console_login": "success",
    "console_login_failed": "failure",
    "totp_enrolled": "enrolled",
    "console_locked": "locked",
}


async def _refused(
    request: web.Request, attempt: Attempt, user: User | None, why: str
) -> web.Response:
    await _logged(request, attempt, user, "console_login_failed", why)
    return auth.fail(401, "bad_credentials", BAD_CREDENTIALS)


async def _second_factor(
    request: web.Request, attempt: Attempt, user: User, code: str | None
) -> web.Response | None:
    """None when ``code`` is good for the user's authenticator, else the answer to send
    (the enrolment on a first login)."""
    store: Store = request.app[auth.STORE]
    secret, enrolled = await asyncio.to_thread(store.totp, user.user_id)
    if secret is None:
        secret = pyotp.random_base32()
        await asyncio.to_thread(store.set_totp, user.user_id, secret, enrolled=False)
    if code is None and not enrolled:
        error = {"code": "totp_enrol", "message": "Scan the QR code, then give its first code."}
        body = {"error": {**error, "details": _enrolment(user, secret)}}
        return web.json_response(body, status=401)
    if code is None:
        return await _refused(request, attempt, user, "no code")
    step = _matching_step(secret, code)
    if step is None or not await asyncio.to_thread(store.use_totp_step, user.user_id, step):
        limit = request.app[auth.SETTINGS].console_code_attempts
        if await asyncio.to_thread(store.code_failed, user.user_id, limit):
            await _logged(request, attempt, user, "console_locked", f"{limit} wrong codes in a row")
        return await _refused(request, attempt, user, "wrong code" if step is None else "used code")
    if not enrolled:
        await _logged(request, attempt, user, "totp_enrolled", "first code accepted")
    return None


def _matching_step(secret: str, code: str) -> int | None:
    """The time step whose code ``code`` is: this one or one either side (a phone's clock a
    little off still logs in); None when it is none of them."""
    totp = pyotp.TOTP(secret)
    now = totp.timecode(datetime.datetime.now(tz=datetime.UTC))
    for step in (now, now - 1, now + 1):
        if hmac.compare_digest(totp.generate_otp(step), code):
            return step
    return None


def _credentials(data: object) -> tuple[str, str, str | None]:
    if not isinstance(data, dict):
        raise InvalidInput("bad_request", "Send a JSON object.")
    username, password = data.get("username"), data.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        raise InvalidInput("bad_request", "Give 'username' and 'password' as text.")
    return username, password, _code(data)


def _limited(request: web.Request, username: str, address: str) -> web.Response | None:
    limits = request.app[auth.LIMITS]
    wait = limits.login_address(address) or (
        limits.login_name(names.username_key(username), address)
        if names.could_be_username(username)
        else 0
    )
    if not wait:
        return None
    request.app[SERVER].metrics.console_logins.labels("rate_limited").inc()
    return auth.fail(429, "rate_limited", "Too many logins; wait a moment.", **{
        "Retry-After": str(max(1, round(wait)))
    })  # fmt: skip


async def login(request: web.Request) -> web.Response:
    """POST /api/admin/login: password, then the authenticator's code; a console session.
    Every step but a rate-limited try is in the operator log, with address and user agent."""
    refused = auth.refuse_cross_site(request, json_only=True)
    if refused is not None:
        return refused
    store: Store = request.app[auth.STORE]
    try:
        username, password, code = _credentials(await request.json())
    except BaccaratError as exc:
        return auth.fail(400, exc.code, exc.message)
    except ValueError:
        return auth.fail(400, "bad_request", "The body is not JSON.")
    attempt = _attempt(request, username)
    limited = _limited(request, username, attempt.address)
    if limited is not None:
        return limited
    try:
        user = await request.app[auth.PASSWORDS].run(store.authenticate, username, password)
    except PasswordsBusy:
        return auth.fail(503, "busy", "Too many logins at once; try again in a moment.")
    answer = await _checked(request, attempt, user, code)
    if answer is not None or user is None:
        return answer or await _refused(request, attempt, None, "wrong password")
    token = await asyncio.to_thread(store.create_admin_session, user.user_id)
    await _logged(request, attempt, user, "console_login", "password and code")
    resp = web.json_response({"operator": operator_json(user), "token": token})
    _set_cookie(resp, request, token)
    return resp


async def _checked(
    request: web.Request, attempt: Attempt, user: User | None, code: str | None
) -> web.Response | None:
    """The answer that refuses the login, or None when the user may have a console session."""
    store: Store = request.app[auth.STORE]
    if user is None:
        # A locked account says so whatever the password, so the lock tells nothing of it.
        locked = await asyncio.to_thread(store.console_locked_named, attempt.username)
        why = "locked" if locked else "wrong password"
        await _logged(request, attempt, None, "console_login_failed", why)
        return _locked() if locked else auth.fail(401, "bad_credentials", BAD_CREDENTIALS)
    if user.banned:
        await _logged(request, attempt, user, "console_login_failed", "banned")
        return auth.banned(user.banned)
    if user.role not in CONSOLE_ROLES:
        await _logged(request, attempt, user, "console_login_failed", "not an operator")
        return auth.fail(403, "not_operator", "The console is for operators only.")
    if await asyncio.to_thread(store.console_locked, user.user_id):
        await _logged(request, attempt, user, "console_login_failed", "locked")
        return _locked()
    return await _second_factor(request, attempt, user, code)


def _locked() -> web.Response:
    return auth.fail(
        403,
        "console_locked",
        "Too many wrong codes locked this account out of the console; an admin can lift it.",
    )


async def logout(request: web.Request) -> web.Response:
    """POST /api/admin/logout: end the console session."""
    refused = auth.refuse_cross_site(request, json_only=False)
    if refused is not None:
        return refused
    token = _console_token(request)
    if token is not None:
        store: Store = request.app[auth.STORE]
        await asyncio.to_thread(store.delete_admin_session, token)
    resp = web.json_response({"ok": True})
    resp.del_cookie(COOKIE, path="/")
    return resp


def operator_json(user: User) -> dict[str, Any]:
    """The operator as the console shows them."""
    return {"user_id": user.user_id, "username": user.username, "role": user.role}


async def me(request: web.Request) -> web.Response:
    """GET /api/admin/me: who the console acts as."""
    return web.json_response({"operator": operator_json(acting(request))})

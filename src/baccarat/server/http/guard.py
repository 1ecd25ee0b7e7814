"""The login guard: the user a request is logged in as, or the 401 that answers it.

A handler that needs a user calls ``require_user`` at the point of its checks where the
login comes, and goes on with the user; a request without a live session stops there, and
the application's middleware ``answer_not_logged_in`` answers it ``401 not_authenticated``."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from baccarat.server.http import auth
from baccarat.store import User


class NotLoggedIn(Exception):
    """The request carries no live session."""


async def require_user(request: web.Request) -> tuple[User, str]:
    """The logged-in user of a request and its token; raise ``NotLoggedIn`` without one."""
    found = await auth.current_user(request)
    if found is None:
        raise NotLoggedIn
    return found


@web.middleware
async def answer_not_logged_in(request: web.Request, handler: Any) -> web.StreamResponse:
    """``401 not_authenticated`` for a request ``require_user`` stopped."""
    try:
        response: web.StreamResponse = await handler(request)
    except NotLoggedIn:
        return auth.fail(401, "not_authenticated", "Log in first.")
    return response

"""The application's key for the server it serves (the routes and the console read it)."""

from __future__ import annotations

from aiohttp import web

from baccarat.server.app import Server

SERVER = web.AppKey("server", Server)

"""The server: HTTP, WebSocket and the browser client's files in one process, one asyncio
task per table. ``create_app(Server(store, rooms))`` builds the aiohttp application."""

from baccarat.server.app import Server
from baccarat.server.config import RoomsConfig, load_rooms
from baccarat.server.http.routes import create_app

__all__ = ["RoomsConfig", "Server", "create_app", "load_rooms"]

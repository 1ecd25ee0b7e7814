"""Fixtures of the server tests (the helpers live in server_live.py)."""

from server_live import live

__all__ = ["live"]

"""The store's rendezvous of ``baccarat admin`` and the running servers: where each server's
console API answers, and the one-minute tokens the command acts through it with.

The command's authority is the database's: whoever can write it may act as ``cli`` with or
without a server, so a token is made by writing its hash here and is good for a minute.
"""

from __future__ import annotations

import secrets
import time

import sqlalchemy as sa

from baccarat.store import accounts
from baccarat.store import schema as s
from baccarat.store.engine import reading

CLI_TOKEN_TTL = 60.0
"""Seconds a token of ``baccarat admin`` is good for: one command's work."""
FRESH = 30.0
"""An endpoint not renewed for this long belongs to a server that is gone."""
RENEW = 10.0
"""Seconds between a running server's renewals of its endpoint."""


class Endpoints:
    """Running servers' console addresses and the command line's tokens: a part of the store."""

    engine: sa.Engine

    def advertise(self, node_id: str, url: str) -> None:
        """Say (again) that this node's console API answers at ``url``."""
        with self.engine.begin() as conn:
            conn.execute(
                sa.delete(s.console_endpoints).where(s.console_endpoints.c.node_id == node_id)
            )
            conn.execute(
                sa.insert(s.console_endpoints).values(node_id=node_id, url=url, seen_at=time.time())
            )

    def withdraw(self, node_id: str) -> None:
        """This node stops answering (a planned stop)."""
        with self.engine.begin() as conn:
            conn.execute(
                sa.delete(s.console_endpoints).where(s.console_endpoints.c.node_id == node_id)
            )

    def endpoints(self, fresh: float = FRESH) -> list[str]:
        """The console URLs of the servers that renewed theirs within ``fresh`` seconds,
        the latest first."""
        with reading(self.engine) as conn:
            rows = conn.execute(
                sa.select(s.console_endpoints.c.url)
                .where(s.console_endpoints.c.seen_at >= time.time() - fresh)
                .order_by(s.console_endpoints.c.seen_at.desc())
            )
            return [str(url) for (url,) in rows]

    def fresh_nodes(self, fresh: float = FRESH) -> set[str]:
        """The nodes that renewed their console address within ``fresh`` seconds: running."""
        with reading(self.engine) as conn:
            rows = conn.execute(
                sa.select(s.console_endpoints.c.node_id).where(
                    s.console_endpoints.c.seen_at >= time.time() - fresh
                )
            )
            return {str(node_id) for (node_id,) in rows}

    def create_cli_token(self, ttl: float = CLI_TOKEN_TTL) -> str:
        """A token that acts as ``cli`` on a running server's console for ``ttl`` seconds."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(sa.delete(s.cli_tokens).where(s.cli_tokens.c.expires_at <= now))
            conn.execute(
                sa.insert(s.cli_tokens).values(
                    token_hash=accounts.token_hash(token), expires_at=now + ttl
                )
            )
        return token

    def cli_token_good(self, token: str) -> bool:
        """Whether ``token`` is a live token of ``baccarat admin``."""
        if not token or len(token) > 256 or not token.isascii():
            return False
        with reading(self.engine) as conn:
            found = conn.scalar(
                sa.select(sa.func.count())
                .select_from(s.cli_tokens)
                .where(
                    s.cli_tokens.c.token_hash == accounts.token_hash(token),
                    s.cli_tokens.c.expires_at > time.time(),
                )
            )
        return bool(found)

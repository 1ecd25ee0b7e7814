"""An operator's word, carried out on this node's sockets: every node hears it through the
cluster's lobby feed (``Directory.announce``), so a ban or a lobby notice reaches the
user's sockets on whichever node they are connected to."""

from __future__ import annotations

import logging

from baccarat.protocol.lobby import LineJson
from baccarat.protocol.messages import notice
from baccarat.server.sockets.connection import CLOSE_BANNED
from baccarat.server.sockets.hub import Hub

log = logging.getLogger("baccarat.server")


def ban_word(user_id: int) -> LineJson:
    """The word that closes a banned user's sockets on every node."""
    return {"kind": "ban", "user_id": user_id}


def notice_word(text: dict[str, str]) -> LineJson:
    """The word that shows a notice on every socket of every node."""
    return {"kind": "notice", "text": text}


class Moderation:
    """Carries out the operators' words on the sockets of one node."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def heard(self, word: LineJson) -> None:
        """Close a banned user's sockets here, or show a notice on every socket here."""
        kind, user_id, text = word.get("kind"), word.get("user_id"), word.get("text")
        if kind == "ban" and isinstance(user_id, int):
            self.close_user(user_id)
        elif kind == "notice" and isinstance(text, dict):
            self.hub.broadcast(
                self.hub.connections, notice({str(k): str(v) for k, v in text.items()})
            )
        else:
            log.warning("an operator's word not understood", extra={"kind": str(kind)})

    def close_user(self, user_id: int) -> int:
        """Close every socket of ``user_id`` on this node (``4003``); how many."""
        closed = 0
        for conn in list(self.hub.connections):
            if conn.user_id == user_id:
                conn.drop(CLOSE_BANNED, "banned")
                closed += 1
        return closed

"""Many nodes as one system: a shared directory of nodes, table leases, seats and the lobby.

``LocalDirectory`` serves a single node (the default); ``RedisDirectory`` lets many nodes that
share one database run as one system. Both implement ``Directory``.
"""

from baccarat.cluster.directory import Directory, LobbyChange, LobbyPage, Owner, SeatClaim
from baccarat.cluster.local import LocalDirectory
from baccarat.cluster.remote import RedisDirectory

__all__ = [
    "Directory",
    "LobbyChange",
    "LobbyPage",
    "LocalDirectory",
    "Owner",
    "RedisDirectory",
    "SeatClaim",
]

"""A multiplayer baccarat table server with a player-dealer, a squeeze and a provably fair shoe."""

__version__ = "0.1.0"

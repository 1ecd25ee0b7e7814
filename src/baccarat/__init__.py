"""A multiplayer baccarat table server with a player-dealer, a squeeze and a provably fair shoe."""

__version__ = "0.1.0"

import os as _os

if _os.environ.get("BACCARAT_COMPILED", "") not in ("", "0"):
    # Before any other module of the package: the compiled build stands in for the hot path.
    from baccarat import compiled as _compiled

    _compiled.install()

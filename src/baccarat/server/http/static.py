"""The browser client's files, served from a list made when the server starts.

A request path is only ever a key looked up in that list: no request (a NUL byte, a
5,000-character name, ``..``, an invalid encoding) reaches the file system, so a bad path
answers 404 and never an error from ``open`` or ``resolve``. A file added to the web root
is served after a restart.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web


class StaticFiles:
    """GET handler for ``/{path}``: ``/`` and a folder are that folder's ``index.html``."""

    def __init__(self, root: Path) -> None:
        root = root.resolve()
        self.files: dict[str, Path] = {}
        for path in sorted(root.rglob("*")):
            if not path.is_file():
                continue
            rel = path.relative_to(root).as_posix()
            self.files[rel] = path
            if path.name == "index.html":
                folder = rel[: -len("index.html")]
                self.files[folder] = path
                self.files[folder.rstrip("/")] = path

    async def serve(self, request: web.Request) -> web.StreamResponse:
        """Serve the named file, or 404."""
        target = self.files.get(request.match_info.get("path", ""))
        if target is None:
            raise web.HTTPNotFound()
        return web.FileResponse(target, headers={"Cache-Control": "no-cache"})

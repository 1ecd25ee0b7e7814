"""The stand-alone shoe verifier page, ``/verify``: one HTML file that needs nothing of ours.

The page (``web/verify.html``) carries the browser's implementation of the shoe's algorithm
(``web/js/fair.js``) inline, put in where the template marks it when the server starts, so a
player can save the page and check a shoe from the disk, without trusting the server that
served the check.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

MARK = "/*FAIR_JS*/"


def verifier_page(web_root: Path) -> bytes:
    """The verifier page with ``fair.js`` inline."""
    template = (web_root / "verify.html").read_text(encoding="utf-8")
    fair = (web_root / "js" / "fair.js").read_text(encoding="utf-8")
    if MARK not in template or "</script" in fair.lower():
        raise ValueError("verify.html has no place for fair.js, or fair.js would end its script")
    return template.replace(MARK, fair, 1).encode("utf-8")


def verifier_routes(web_root: Path) -> list[web.RouteDef]:
    """GET ``/verify`` (and ``/verify.html``, never the bare template): the page, built once."""
    body = verifier_page(web_root)

    async def serve(request: web.Request) -> web.Response:
        return web.Response(
            body=body,
            content_type="text/html",
            charset="utf-8",
            headers={"Cache-Control": "no-cache"},
        )

    return [web.get("/verify", serve), web.get("/verify.html", serve)]

"""The stand-alone shoe verifier page, ``/verify``: one HTML file that needs nothing of ours.

The page (``web/verify.html``) carries the browser's implementation of the shoe's algorithm
(``web/js/fair.js``) and of the commitment log's tree (``web/js/merkle.js``) inline, put in
where the template marks them when the server starts, so a
player can save the page and check a shoe from the disk, without trusting the server that
served the check.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from aiohttp import web

from baccarat.server.http.headers import BASE_POLICY

MARKS = {"/*FAIR_JS*/": "fair.js", "/*MERKLE_JS*/": "merkle.js"}
"""Where the template takes each script of ``web/js/`` it carries inline."""
_INLINE = re.compile(r"<(script|style)\b[^>]*>(.*?)</\1>", re.S)


def verifier_page(web_root: Path) -> bytes:
    """The verifier page with ``fair.js`` and ``merkle.js`` inline."""
    page = (web_root / "verify.html").read_text(encoding="utf-8")
    for mark, name in MARKS.items():
        script = (web_root / "js" / name).read_text(encoding="utf-8")
        if mark not in page or "</script" in script.lower():
            raise ValueError(f"verify.html has no place for {name}, or {name} would end its script")
        page = page.replace(mark, script, 1)
    return page.encode("utf-8")


def page_policy(page: bytes) -> str:
    """The site's Content-Security-Policy, letting in this page's own inline script and style
    by their hashes (and nothing else inline)."""
    sources: dict[str, list[str]] = {"script": [], "style": []}
    for kind, text in _INLINE.findall(page.decode("utf-8")):
        digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()
        sources[kind].append(f"'sha256-{digest}'")
    policy = {
        "script-src 'self'": f"script-src 'self' {' '.join(sources['script'])}",
        "style-src 'self'": f"style-src 'self' {' '.join(sources['style'])}",
    }
    return "; ".join((*(policy.get(p, p) for p in BASE_POLICY), "connect-src 'self'"))


def verifier_routes(web_root: Path) -> list[web.RouteDef]:
    """GET ``/verify`` (and ``/verify.html``, never the bare template): the page, built once."""
    body = verifier_page(web_root)
    policy = page_policy(body)

    async def serve(request: web.Request) -> web.Response:
        return web.Response(
            body=body,
            content_type="text/html",
            charset="utf-8",
            headers={"Cache-Control": "no-cache", "Content-Security-Policy": policy},
        )

    return [web.get("/verify", serve), web.get("/verify.html", serve)]

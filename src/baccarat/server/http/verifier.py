"""The stand-alone shoe verifier page, ``/verify``: one HTML file that needs nothing of ours.

The page (``web/verify.html``) carries the browser's implementation of the shoe's algorithm
(``web/js/fair.js``), of the commitment log's tree (``web/js/merkle.js``), of the page's memory
(``web/js/idb.js``, ``web/js/seen.js``) and of the witnesses' check (``web/js/cosigned.js``)
inline, put in where the template marks them when the server starts, so a player can save the
page and check a shoe from the disk, without trusting the server that served the check. An
import of one of these scripts by another is dropped: inline, they share one module's scope.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from aiohttp import web

from baccarat.server.http.headers import BASE_POLICY

MARKS = {
    "/*FAIR_JS*/": "fair.js",
    "/*MERKLE_JS*/": "merkle.js",
    "/*IDB_JS*/": "idb.js",
    "/*SEEN_JS*/": "seen.js",
    "/*COSIGNED_JS*/": "cosigned.js",
}
"""Where the template takes each script of ``web/js/`` it carries inline."""
_INLINE = re.compile(r"<(script|style)\b[^>]*>(.*?)</\1>", re.S)
_IMPORT = re.compile(r'^import \{[^}]*\} from "\./([\w.]+)";\n', re.M)


def inline_script(web_root: Path, name: str) -> str:
    """``web/js/<name>`` as the page carries it: its imports of scripts also inline dropped
    (a ValueError at start for an import of any other, which the saved page could not load)."""
    script = (web_root / "js" / name).read_text(encoding="utf-8")
    inline = set(MARKS.values())
    for imported in _IMPORT.findall(script):
        if imported not in inline:
            raise ValueError(f"{name} imports {imported}, which verify.html does not carry")
    script = _IMPORT.sub("", script)
    if "</script" in script.lower() or re.search(r"^import\b", script, re.M):
        raise ValueError(f"{name} would end verify.html's script, or imports what it cannot")
    return script


def verifier_page(web_root: Path) -> bytes:
    """The verifier page with its scripts (``MARKS``) inline."""
    page = (web_root / "verify.html").read_text(encoding="utf-8")
    for mark, name in MARKS.items():
        if mark not in page:
            raise ValueError(f"verify.html has no place for {name}")
        page = page.replace(mark, inline_script(web_root, name), 1)
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

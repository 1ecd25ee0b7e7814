"""The browser client's files over a real socket: compressed, named by content, 304 when held."""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import aiohttp
import brotli  # type: ignore[import-untyped]
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from multidict import CIMultiDict

from baccarat.server.http.routes import web_root
from baccarat.server.http.static import StaticFiles, accepted, matches

MODULE = "js/table.js"


@pytest.fixture
async def base(tmp_path: Path) -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_get("/{path:.*}", StaticFiles(web_root()).serve)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("")).rstrip("/")
    finally:
        await server.close()


async def get(base: str, path: str, **headers: str) -> tuple[int, Mapping[str, str], bytes]:
    # auto_decompress off: the test reads the bytes that crossed the wire.
    async with (
        aiohttp.ClientSession(auto_decompress=False) as http,
        http.get(f"{base}/{path}", headers=headers) as answer,
    ):
        return answer.status, CIMultiDict(answer.headers), await answer.read()


async def test_a_module_is_sent_in_brotli_to_a_browser_that_takes_it(base: str) -> None:
    plain = (web_root() / MODULE).read_bytes()
    status, headers, body = await get(base, MODULE, **{"Accept-Encoding": "gzip, deflate, br"})
    assert status == 200
    assert headers["Content-Encoding"] == "br"
    assert headers["Vary"] == "Accept-Encoding"
    assert headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert brotli.decompress(body) == plain
    assert len(body) < len(plain) / 3


async def test_gzip_without_brotli_and_plain_without_either(base: str) -> None:
    plain = (web_root() / MODULE).read_bytes()
    _, headers, body = await get(base, MODULE, **{"Accept-Encoding": "gzip, br;q=0"})
    assert headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(body) == plain
    _, headers, body = await get(base, MODULE, **{"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in headers
    assert body == plain
    assert headers["Vary"] == "Accept-Encoding"


async def test_a_browser_holding_this_version_is_answered_304_without_the_body(
    base: str,
) -> None:
    _, headers, _ = await get(base, MODULE, **{"Accept-Encoding": "br"})
    etag = headers["ETag"]
    assert headers["Cache-Control"] == "no-cache"
    status, again, body = await get(base, MODULE, **{"If-None-Match": etag})
    assert (status, body, again["ETag"]) == (304, b"", etag)
    status, _, body = await get(base, MODULE, **{"If-None-Match": 'W/"another"'})
    assert status == 200 and body


async def test_an_image_is_not_compressed_again(base: str) -> None:
    _, headers, body = await get(base, "icons/icon-192.png", **{"Accept-Encoding": "br, gzip"})
    assert "Content-Encoding" not in headers
    assert body == (web_root() / "icons/icon-192.png").read_bytes()


async def test_the_app_list_names_every_file_of_the_app_by_its_etag(base: str) -> None:
    _, _, body = await get(base, "assets.json", **{"Accept-Encoding": "identity"})
    files = json.loads(body)["files"]
    assert "index.html" in files and MODULE in files and "css/table.css" in files
    assert not any(path.startswith("admin/") for path in files)
    assert "verify.html" not in files
    assert "sw.js" not in files
    _, headers, _ = await get(base, MODULE)
    assert headers["ETag"] == f'W/"{files[MODULE]}"'


async def test_the_page_and_its_worker_are_served_and_a_bad_path_is_404(base: str) -> None:
    status, headers, _ = await get(base, "")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    status, headers, _ = await get(base, "sw.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert (await get(base, "..%2fpyproject.toml"))[0] == 404


def test_accept_encoding_is_read_with_its_weights() -> None:
    assert accepted("gzip, deflate, br, zstd") == ["br", "gzip"]
    assert accepted("br;q=0, gzip;q=0.5") == ["gzip"]
    assert accepted("BR ; q=1.0") == ["br"]
    assert accepted("") == []
    assert accepted("gzip;q=bad") == []


def test_if_none_match_compares_weakly() -> None:
    assert matches('"abc"', 'W/"abc"')
    assert matches('W/"x", W/"abc"', 'W/"abc"')
    assert matches("*", 'W/"abc"')
    assert not matches('"abd"', 'W/"abc"')

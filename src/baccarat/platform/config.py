"""The ``--platform`` file: who the platform is, its keys, and its wallet."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarl import URL

from baccarat.errors import BaccaratError
from baccarat.numbers import whole

WALLETS = ("ledger", "transfer", "seamless")
"""``ledger``: the game's own wallet (coins granted by its operators); ``transfer``: the
platform moves coins in and out; ``seamless``: the platform keeps the balance."""


@dataclass(frozen=True, slots=True)
class PlatformConfig:
    """The platform the game trusts."""

    issuer: str
    """The launch tokens' ``iss``."""
    audience: str
    """The launch tokens' ``aud``: this game."""
    secret: bytes
    """The HMAC key of the calls between the platform and the game, both ways."""
    jwks_url: str | None = None
    public_key: str | None = None
    """A PEM public key (from ``public_key_file``), when the keys are not a JWKS URL."""
    wallet: str = "ledger"
    wallet_url: str | None = None
    """Where the platform answers the game (its transfer report, and in ``seamless``
    mode its wallet)."""
    wallet_timeout: float = 5.0
    """Seconds the seamless wallet waits for the platform's answer to one call."""
    leeway: int = 30
    """Seconds of clock difference a token's times and a call's timestamp may have."""
    max_token_age: int = 300
    """A launch token lives at most this long from ``iat`` to ``exp``."""
    frame_origins: tuple[str, ...] = ()
    """The origins whose pages may show the game in a frame (``scheme://host[:port]``)."""


def _bad(message: str) -> BaccaratError:
    return BaccaratError("bad_config", f"--platform: {message}")


def _text(data: dict[str, Any], key: str, *, required: bool = True) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise _bad(f"'{key}' is a non-empty string.")
    return value


def _secret(data: dict[str, Any], base: Path) -> bytes:
    if "secret_file" in data:
        path = base / str(_text(data, "secret_file"))
        value = path.read_text().strip()
    else:
        value = str(_text(data, "secret"))
    if len(value) < 16:
        raise _bad("the shared secret has at least 16 characters.")
    return value.encode()


def _public_key(data: dict[str, Any], base: Path) -> tuple[str | None, str | None]:
    jwks, key_file = _text(data, "jwks_url", required=False), data.get("public_key_file")
    if (jwks is None) == (key_file is None):
        raise _bad("give the keys as one of 'jwks_url' and 'public_key_file'.")
    if key_file is not None:
        return None, (base / str(key_file)).read_text()
    return jwks, None


MAX_FRAME_ORIGINS = 20


def _bare(url: URL) -> bool:
    """Whether ``url`` is an http(s) origin and nothing more (no user, path, query)."""
    extra = url.user is not None or url.query_string or url.fragment
    return url.scheme in ("http", "https") and bool(url.host) and not extra


def _origin(value: object) -> str:
    """``value`` as an origin, ``scheme://host[:port]`` of http or https and nothing more."""
    url = URL(value) if isinstance(value, str) and value.isascii() else None
    if url is None or url.raw_path not in ("", "/") or not _bare(url):
        raise _bad(
            f"'frame_origins' holds origins such as 'https://platform.example', not {value!r}."
        )
    # As a browser writes an origin: no default port (``location.ancestorOrigins``).
    port = "" if url.is_default_port() else f":{url.port}"
    return f"{url.scheme}://{str(url.host).lower()}{port}"


def _frame_origins(data: dict[str, Any]) -> tuple[str, ...]:
    value = data.get("frame_origins", [])
    if not isinstance(value, list) or len(value) > MAX_FRAME_ORIGINS:
        raise _bad(f"'frame_origins' is a list of at most {MAX_FRAME_ORIGINS} origins.")
    return tuple(dict.fromkeys(_origin(v) for v in value))


def parse(data: dict[str, Any], base: Path) -> PlatformConfig:
    """The configuration in a parsed file; relative paths are from ``base``."""
    wallet = data.get("wallet", "ledger")
    if wallet not in WALLETS:
        raise _bad(f"'wallet' is one of {', '.join(WALLETS)}, not {wallet!r}.")
    wallet_url = _text(data, "wallet_url", required=wallet == "seamless")
    timeout = data.get("wallet_timeout", 5.0)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0.1 <= timeout <= 60
    ):
        raise _bad("'wallet_timeout' is a number of seconds from 0.1 to 60.")
    jwks_url, public_key = _public_key(data, base)
    leeway = data.get("leeway", 30)
    if not whole(leeway) or not 0 <= leeway <= 300:
        raise _bad("'leeway' is a whole number of seconds from 0 to 300.")
    return PlatformConfig(
        issuer=str(_text(data, "issuer")),
        audience=str(_text(data, "audience")),
        secret=_secret(data, base),
        jwks_url=jwks_url,
        public_key=public_key,
        wallet=wallet,
        wallet_url=wallet_url.rstrip("/") if wallet_url else None,
        wallet_timeout=float(timeout),
        leeway=leeway,
        frame_origins=_frame_origins(data),
    )


def load(path: str | Path) -> PlatformConfig:
    """Read a ``--platform`` file; ``bad_config`` saying what is wrong."""
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text())
        return parse(data, file.parent)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise _bad(str(exc)) from None

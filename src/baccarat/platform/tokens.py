"""Launch tokens: the platform's signed word that one of its users opens the game.

A token is a JWT (RFC 7519) signed by the platform with an asymmetric key (RS256, PS256,
ES256 or EdDSA); the game checks it with the platform's public key (one PEM file) or its
JWKS, fetched from ``jwks_url``, kept, and fetched again when a token names a key id the
game has not seen (the platform rotated its key). The claims are ``docs/integration.md``'s.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from joserfc import jwt
from joserfc.errors import ExpiredTokenError, InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet, import_key
from joserfc.jwt import JWTClaimsRegistry

from baccarat.errors import InvalidInput
from baccarat.numbers import whole
from baccarat.platform.config import PlatformConfig
from baccarat.store.platform import Launched

ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"]
LANGUAGES = ("zh-TW", "en")
JWKS_REFRESH = 10.0
"""At most one fetch of the JWKS this often for unknown key ids: a flood of tokens with
made-up key ids does not become a flood of fetches."""
MAX_TOKEN = 8192


@dataclass(frozen=True, slots=True)
class Launch:
    """A checked launch token: who, and where they go."""

    who: Launched
    language: str
    table: str | None


def _refused(code: str, message: str) -> InvalidInput:
    return InvalidInput(code, message)


class PlatformKeys:
    """The platform's public keys: one PEM key, or a JWKS fetched and refreshed."""

    def __init__(
        self, config: PlatformConfig, fetch: Callable[[str], Awaitable[Any]] | None = None
    ) -> None:
        self._url = config.jwks_url
        self._fetch = fetch or _fetch_json
        self._fixed = import_key(config.public_key) if config.public_key else None
        self._set: KeySet | None = None
        self._refreshed_at = -JWKS_REFRESH
        self._lock = asyncio.Lock()

    async def key_set(self, *, refresh: bool = False) -> KeySet:
        """The JWKS as last fetched (fetched now when ``refresh`` and none came lately)."""
        assert self._url is not None
        async with self._lock:
            # Only refreshes for unknown key ids are rationed; the first fetch is free.
            rationed = time.monotonic() - self._refreshed_at < JWKS_REFRESH
            if self._set is None or (refresh and not rationed):
                if self._set is not None:
                    self._refreshed_at = time.monotonic()
                try:
                    self._set = KeySet.import_key_set(await self._fetch(self._url))
                except (aiohttp.ClientError, TimeoutError, ValueError, JoseError) as exc:
                    if self._set is None:
                        raise _refused(
                            "platform_keys_unavailable",
                            f"The platform's keys could not be fetched: {exc}",
                        ) from None
            return self._set

    async def decode(self, token: str) -> jwt.Token:
        """The token with a good signature; ``bad_token`` otherwise."""
        try:
            if self._fixed is not None:
                return jwt.decode(token, self._fixed, algorithms=ALGORITHMS)
            try:
                return jwt.decode(token, await self.key_set(), algorithms=ALGORITHMS)
            except InvalidKeyIdError:
                return jwt.decode(token, await self.key_set(refresh=True), algorithms=ALGORITHMS)
        except InvalidKeyIdError:
            raise _refused(
                "bad_token", "The token names a key the platform does not publish."
            ) from None
        except (JoseError, ValueError) as exc:
            raise _refused("bad_token", f"The token's signature does not check: {exc}") from None


async def _fetch_json(url: str) -> Any:
    timeout = aiohttp.ClientTimeout(total=5)
    async with aiohttp.ClientSession(timeout=timeout) as session, session.get(url) as resp:
        resp.raise_for_status()
        return await resp.json(content_type=None)


class LaunchTokens:
    """Checks launch tokens: signature, issuer, audience, times, and the claims' shapes.
    (That each ``jti`` is used once is the store's: ``Store.launch``.)"""

    def __init__(self, config: PlatformConfig, keys: PlatformKeys | None = None) -> None:
        self.config = config
        self.keys = keys or PlatformKeys(config)

    async def check(self, token: str, now: float) -> Launch:
        """The launch a token asks for, or why it is refused (``bad_token``,
        ``token_expired``, ``wrong_issuer``, ``wrong_audience``, ``bad_claims``)."""
        if not token or len(token) > MAX_TOKEN or not token.isascii():
            raise _refused("bad_token", "Open the game with ?token= and the platform's token.")
        claims = (await self.keys.decode(token)).claims
        self._verify_registered(claims, now)
        return _launch(claims)

    def _verify_registered(self, claims: dict[str, Any], now: float) -> None:
        c = self.config
        registry = JWTClaimsRegistry(
            now=int(now),
            leeway=c.leeway,
            exp={"essential": True},
            iat={"essential": True},
            sub={"essential": True},
            jti={"essential": True},
        )
        try:
            registry.validate(claims)
        except ExpiredTokenError:
            raise _refused("token_expired", "The launch token has expired.") from None
        except JoseError as exc:
            raise _refused("bad_claims", f"The token's claims are refused: {exc}") from None
        if claims.get("iss") != c.issuer:
            raise _refused("wrong_issuer", "The token was not issued by the platform.")
        aud = claims.get("aud")
        if not (aud == c.audience or (isinstance(aud, list) and c.audience in aud)):
            raise _refused("wrong_audience", "The token is not meant for this game.")
        if not whole(claims["exp"]) or not whole(claims["iat"]):
            raise _refused("bad_claims", "'exp' and 'iat' are whole seconds.")
        if claims["exp"] - claims["iat"] > c.max_token_age:
            raise _refused(
                "bad_claims", f"A launch token lives at most {c.max_token_age} s (exp - iat)."
            )


def _launch(claims: dict[str, Any]) -> Launch:
    name, level = claims.get("name"), claims.get("level")
    language, table = claims.get("locale", "zh-TW"), claims.get("table")
    if not isinstance(name, str) or not whole(level):
        raise _refused("bad_claims", "'name' is text and 'level' a whole number.")
    if language not in LANGUAGES:
        language = "en" if isinstance(language, str) and language.startswith("en") else "zh-TW"
    if table is not None and (not isinstance(table, str) or not 0 < len(table) <= 64):
        raise _refused("bad_claims", "'table' names a table id.")
    who = Launched(
        platform_user=str(claims["sub"]),
        display_name=name,
        level=level,
        jti=str(claims["jti"]),
        expires_at=float(claims["exp"]),
    )
    return Launch(who, language, table)

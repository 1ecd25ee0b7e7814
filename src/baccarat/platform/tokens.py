"""Launch tokens: the platform's signed word that one of its users opens the game.

A token is a JWT (RFC 7519) signed by the platform with an asymmetric key (RS256, PS256,
ES256 or EdDSA); the game checks it with the platform's public key (one PEM file) or its
JWKS, fetched from ``jwks_url``, kept, and fetched again when a token names a key id the
game has not seen (the platform rotated its key): at once, at most once per key id every
``JWKS_REFRESH`` seconds and ``JWKS_BURST`` key ids in that time. The claims are
``docs/integration.md``'s: a ``name`` is cleaned into a display name
(``names.clean_display_name``), a ``locale`` of another language falls back to English.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from joserfc import jws, jwt
from joserfc.errors import ExpiredTokenError, InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet, import_key
from joserfc.jwt import JWTClaimsRegistry

from baccarat import names
from baccarat.errors import BaccaratError, InvalidInput
from baccarat.numbers import whole
from baccarat.platform.config import PlatformConfig
from baccarat.store.accounts import verify_level
from baccarat.store.platform import Launched, verify_platform_id

ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"]
JWKS_REFRESH = 10.0
"""A key id the JWKS lacks makes the game fetch it again at once, and then not again for
that key id for this many seconds: a flood of tokens naming it is not a flood of fetches."""
JWKS_BURST = 5
"""At most this many key ids fetched for in :data:`JWKS_REFRESH` seconds: made-up key ids by
the thousand are not a fetch each either."""
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
        self._asked: dict[str, float] = {}
        """Key ids fetched for lately, and when."""
        self._lock = asyncio.Lock()

    async def key_set(self, missing: str | None = None) -> KeySet:
        """The JWKS as last fetched; fetched again now for a key id it lacks (``missing``)
        unless that key id, or too many others, were fetched for lately."""
        async with self._lock:
            if self._set is None or (missing is not None and self._may_fetch(missing)):
                await self._fetch_set()
            assert self._set is not None
            return self._set

    def _may_fetch(self, kid: str) -> bool:
        """Whether a fetch for ``kid`` may go now (and count it)."""
        assert self._set is not None
        if _has(self._set, kid):  # fetched meanwhile, for another launch
            return False
        now = time.monotonic()
        self._asked = {k: at for k, at in self._asked.items() if now - at < JWKS_REFRESH}
        if kid in self._asked or len(self._asked) >= JWKS_BURST:
            return False
        self._asked[kid[:128]] = now
        return True

    async def _fetch_set(self) -> None:
        assert self._url is not None
        try:
            self._set = KeySet.import_key_set(await self._fetch(self._url))
        except (aiohttp.ClientError, TimeoutError, ValueError, JoseError) as exc:
            # The keys already cached stay in use.
            if self._set is None:
                raise _refused(
                    "platform_keys_unavailable",
                    f"The platform's keys could not be fetched: {exc}",
                ) from None

    async def decode(self, token: str) -> jwt.Token:
        """The token with a good signature; ``bad_token`` otherwise."""
        try:
            if self._fixed is not None:
                return jwt.decode(token, self._fixed, algorithms=ALGORITHMS)
            try:
                return jwt.decode(token, await self.key_set(), algorithms=ALGORITHMS)
            except InvalidKeyIdError:
                keys = await self.key_set(missing=_kid(token))
                return jwt.decode(token, keys, algorithms=ALGORITHMS)
        except InvalidKeyIdError:
            raise _refused(
                "bad_token", "The token names a key the platform does not publish."
            ) from None
        except (JoseError, ValueError) as exc:
            raise _refused("bad_token", f"The token's signature does not check: {exc}") from None


def _kid(token: str) -> str:
    """The key id a token's header names ("" for none)."""
    kid = jws.extract_compact(token.encode()).protected.get("kid")
    return kid if isinstance(kid, str) else ""


def _has(keys: KeySet, kid: str) -> bool:
    try:
        keys.get_by_kid(kid)
    except InvalidKeyIdError:
        return False
    return True


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


def language_of(locale: object) -> str:
    """The game's language for a token's ``locale`` (a BCP 47 tag): ``zh-TW`` when absent or
    Chinese (``zh``, ``zh-Hant``, ``zh-HK``, ...), English for any other language."""
    if locale is None:
        return "zh-TW"
    if not isinstance(locale, str) or not 0 < len(locale) <= 35:
        raise _refused("bad_claims", "'locale' is a language tag such as 'zh-TW' or 'en'.")
    primary = locale.replace("_", "-").split("-")[0].lower()
    return "zh-TW" if primary == "zh" else "en"


def _checked(claims: dict[str, Any]) -> tuple[str, str, str, int]:
    """The token's ``sub``, ``jti``, display name and level; ``bad_claims`` saying which
    is malformed."""
    try:
        sub = verify_platform_id(claims.get("sub"), "sub")
        jti = verify_platform_id(claims.get("jti"), "jti")
        level = verify_level(claims.get("level"))
        name = names.clean_display_name(claims.get("name"))
    except BaccaratError as exc:
        raise _refused("bad_claims", exc.message) from None
    return sub, jti, name, level


def _launch(claims: dict[str, Any]) -> Launch:
    sub, jti, name, level = _checked(claims)
    table = claims.get("table")
    if table is not None and (not isinstance(table, str) or not 0 < len(table) <= 64):
        raise _refused("bad_claims", "'table' names a table id.")
    who = Launched(
        platform_user=sub,
        display_name=name,
        level=level,
        jti=jti,
        expires_at=float(claims["exp"]),
    )
    return Launch(who, language_of(claims.get("locale")), table)

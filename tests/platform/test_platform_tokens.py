"""Launch tokens checked: a key id the JWKS lacks is fetched for at once and rationed per
key id; every claim's refusal is ``bad_claims``; a name is cleaned into a display name; a
locale of another language falls back to English."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import ECKey, KeySet

from baccarat.errors import InvalidInput
from baccarat.platform import tokens
from baccarat.platform.config import PlatformConfig
from baccarat.platform.tokens import LaunchTokens, PlatformKeys, language_of

ISSUER = "https://platform.example"


def _key(kid: str) -> ECKey:
    return ECKey.generate_key("P-256", parameters={"kid": kid})


def _token(key: ECKey, **claims: Any) -> str:
    now = int(time.time())
    body = {
        "iss": ISSUER, "aud": "baccarat", "sub": "u1", "name": "Mei", "level": 60,
        "iat": now, "exp": now + 60, "jti": f"j{time.monotonic_ns()}", **claims,
    }  # fmt: skip
    return jwt.encode({"alg": "ES256", "kid": key.kid}, body, key)


class Jwks:
    """The platform's published keys, and each fetch of them."""

    def __init__(self, *keys: ECKey) -> None:
        self.keys = list(keys)
        self.fetches = 0

    async def fetch(self, _url: str) -> Any:
        self.fetches += 1
        return KeySet(self.keys).as_dict(private=False)


def _tokens(jwks: Jwks) -> LaunchTokens:
    config = PlatformConfig(ISSUER, "baccarat", b"s" * 16, jwks_url="https://x/jwks")
    return LaunchTokens(config, PlatformKeys(config, jwks.fetch))


def _check(launch: LaunchTokens, token: str) -> tokens.Launch:
    return asyncio.run(launch.check(token, time.time()))


def _refusal(launch: LaunchTokens, token: str) -> str:
    with pytest.raises(InvalidInput) as refused:
        _check(launch, token)
    return refused.value.code


def test_each_new_key_is_fetched_at_once_even_right_after_another() -> None:
    first = _key("k1")
    jwks = Jwks(first)
    launch = _tokens(jwks)
    assert _check(launch, _token(first)).who.platform_user == "u1"
    for n in range(2, 5):  # three rotations within a second, each key used at once
        key = _key(f"k{n}")
        jwks.keys.insert(0, key)
        assert _check(launch, _token(key)).who.platform_user == "u1"
    assert jwks.fetches == 4


def test_a_key_id_nobody_publishes_is_fetched_for_once_per_ten_seconds() -> None:
    jwks = Jwks(_key("k1"))
    launch = _tokens(jwks)
    stranger = _key("made-up")
    assert _refusal(launch, _token(stranger)) == "bad_token"
    assert _refusal(launch, _token(stranger)) == "bad_token"
    assert jwks.fetches == 2  # the first fetch, and one for the made-up key id
    # Made-up key ids by the dozen: JWKS_BURST fetches in the window, then none.
    for n in range(20):
        assert _refusal(launch, _token(_key(f"x{n}"))) == "bad_token"
    assert jwks.fetches == 1 + tokens.JWKS_BURST


@pytest.mark.parametrize(
    ("claims", "says"),
    [
        ({"sub": "u 1"}, "'sub' is 1 to 128 printable ASCII"),
        ({"sub": 1001}, "Claim 'sub' must be a StringOrURI"),
        ({"jti": "a b"}, "'jti' is 1 to 128 printable ASCII"),
        ({"level": -1}, "A level is a whole number"),
        ({"name": "\u200b \u200b"}, "at least one visible character"),
        ({"name": 7}, "A display name is text"),
        ({"locale": 5}, "'locale' is a language tag"),
        ({"table": ""}, "'table' names a table id"),
    ],
)
def test_every_malformed_claim_is_bad_claims_saying_which(
    claims: dict[str, Any], says: str
) -> None:
    key = _key("k1")
    launch = _tokens(Jwks(key))
    with pytest.raises(InvalidInput) as refused:
        _check(launch, _token(key, **claims))
    assert refused.value.code == "bad_claims" and says in refused.value.message


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("Mei<3", "Mei3"),
        ("Kai\u200bLee", "KaiLee"),
        ("A\u202eB\u2800", "AB"),
        ("  美美  Mei ", "美美 Mei"),
        ("x" * 40, "x" * 32),
        ("Zoë 😀", "Zoë 😀"),
    ],
)
def test_a_name_is_cleaned_into_a_display_name(name: str, shown: str) -> None:
    key = _key("k1")
    assert _check(_tokens(Jwks(key)), _token(key, name=name)).who.display_name == shown


@pytest.mark.parametrize(
    ("locale", "language"),
    [
        (None, "zh-TW"),
        ("zh-TW", "zh-TW"),
        ("zh-Hant-HK", "zh-TW"),
        ("zh_CN", "zh-TW"),
        ("en", "en"),
        ("en-GB", "en"),
        ("fr", "en"),
        ("ja-JP", "en"),
    ],
)
def test_a_locale_falls_back_by_its_language(locale: str | None, language: str) -> None:
    assert language_of(locale) == language

"""Launch tokens: a player arrives from the platform signed in, once per token."""

from __future__ import annotations

import time
from http.cookies import SimpleCookie

from joserfc import jws, jwt
from joserfc.jwk import ECKey
from platform_support import Stack, http

from baccarat.store import open_store


def test_a_good_launch_signs_the_player_in_at_the_platforms_level(stack: Stack) -> None:
    answer = stack.launch(stack.token("u1001"))
    assert answer.status == 200, answer.body
    assert "baccarat_session=" in answer.headers["Set-Cookie"]
    assert 'data-next="/?entered=1"' in answer.body and 'data-lang="en"' in answer.body
    session = stack.session("u1001")
    me = stack.me(session)
    assert (me["level"], me["display_name"], me["coins"]) == (60, "美美 Mei", 0)
    # Kept as a login's address is, for the risk view.
    with open_store(stack.db) as store:
        assert store.login_addresses([me["id"]]) == {me["id"]: frozenset({"127.0.0.1"})}


def test_a_launch_naming_a_table_goes_to_it(stack: Stack) -> None:
    answer = stack.launch(stack.token("u1001", table="t1", locale="zh-TW"))
    assert answer.status == 200, answer.body
    assert 'data-next="/?entered=1#/table/t1"' in answer.body
    assert 'data-lang="zh-TW"' in answer.body


def test_each_launch_takes_the_level_and_name_from_the_token_into_one_account(
    stack: Stack,
) -> None:
    first = stack.me(stack.session("u1002"))
    stack.admin(
        "/admin/users", {"id": "u1002", "name": "Kai the Bold", "level": 82, "coins": 500_000}
    )
    again = stack.me(stack.session("u1002"))
    assert again["id"] == first["id"]
    assert (again["level"], again["display_name"]) == (82, "Kai the Bold")


def test_an_expired_token_is_refused(stack: Stack) -> None:
    now = int(time.time())
    answer = stack.launch(stack.token("u1001", iat=now - 400, exp=now - 200))
    assert (answer.status, answer.body["error"]["code"]) == (401, "token_expired")


def test_a_token_for_another_audience_is_refused(stack: Stack) -> None:
    answer = stack.launch(stack.token("u1001", aud="another-game"))
    assert (answer.status, answer.body["error"]["code"]) == (401, "wrong_audience")


def test_a_token_from_another_issuer_is_refused(stack: Stack) -> None:
    answer = stack.launch(stack.token("u1001", iss="https://evil.example"))
    assert (answer.status, answer.body["error"]["code"]) == (401, "wrong_issuer")


def test_a_token_signed_with_another_key_is_refused(stack: Stack) -> None:
    kid = stack.admin("/.well-known/jwks.json")["keys"][0]["kid"]
    forged_key = ECKey.generate_key("P-256", parameters={"kid": kid})
    now = int(time.time())
    claims = {
        "iss": stack.platform, "aud": "baccarat", "sub": "u1001", "name": "Mei", "level": 99,
        "iat": now, "exp": now + 60, "jti": "forged-1",
    }  # fmt: skip
    forged = jwt.encode({"alg": "ES256", "kid": kid}, claims, forged_key)
    answer = stack.launch(forged)
    assert (answer.status, answer.body["error"]["code"]) == (401, "bad_token")


def test_a_token_used_twice_is_refused_the_second_time(stack: Stack) -> None:
    token = stack.token("u1001")
    assert stack.launch(token).status == 200
    answer = stack.launch(token)
    assert (answer.status, answer.body["error"]["code"]) == (409, "token_replayed")
    assert "Set-Cookie" not in answer.headers


def test_a_token_living_longer_than_five_minutes_is_refused(stack: Stack) -> None:
    now = int(time.time())
    answer = stack.launch(stack.token("u1001", iat=now, exp=now + 3600))
    assert (answer.status, answer.body["error"]["code"]) == (401, "bad_claims")


def test_a_key_rotated_in_the_jwks_is_fetched_for_the_first_token_it_signs(stack: Stack) -> None:
    assert stack.launch(stack.token("u1001")).status == 200  # the old key is cached now
    new_kid = stack.admin("/admin/rotate", {})["kid"]
    token = stack.token("u1001")
    assert jws.extract_compact(token.encode()).protected["kid"] == new_kid
    answer = stack.launch(token)
    assert answer.status == 200, answer.body


def test_a_platform_user_below_the_rooms_level_is_linked_at_that_level(stack: Stack) -> None:
    me = stack.me(stack.session("u1003"))
    assert me["level"] == 12
    with open_store(stack.db) as store:
        assert store.platform_user_of(me["id"]) == "u1003"


def test_a_key_rotated_twice_within_seconds_launches_at_once_each_time(stack: Stack) -> None:
    assert stack.launch(stack.token("u1001")).status == 200
    for _ in range(2):
        stack.admin("/admin/rotate", {})
        answer = stack.launch(stack.token("u1001"))
        assert answer.status == 200, answer.body


def test_a_name_no_display_name_may_hold_is_cleaned_and_a_strange_locale_is_english(
    stack: Stack,
) -> None:
    answer = stack.launch(stack.token("u1003", name="Mei<3\u200b", locale="fr-FR"))
    assert answer.status == 200, answer.body
    assert 'data-lang="en"' in answer.body
    cookie: SimpleCookie = SimpleCookie(answer.headers["Set-Cookie"])
    assert stack.me(cookie["baccarat_session"].value)["display_name"] == "Mei3"


def test_a_malformed_sub_is_bad_claims(stack: Stack) -> None:
    answer = stack.launch(stack.token("u1001", sub="u 1001"))
    assert (answer.status, answer.body["error"]["code"]) == (401, "bad_claims")


def test_only_the_platforms_origin_may_frame_the_game_and_never_the_console(
    stack: Stack,
) -> None:
    for path in ("/", "/launch", "/js/main.js"):
        headers = http("GET", stack.game + path).headers
        assert "X-Frame-Options" not in headers, path
        assert f"frame-ancestors {stack.platform};" in headers["Content-Security-Policy"] + ";"
    for path in ("/admin/", "/api/admin/risk"):
        headers = http("GET", stack.game + path).headers
        assert headers["X-Frame-Options"] == "DENY", path
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"], path


def test_a_launch_in_a_frame_gets_a_session_cookie_that_works_there(stack: Stack) -> None:
    token = stack.token("u1001")
    framed = http("GET", f"{stack.game}/launch?token={token}", headers={"Sec-Fetch-Dest": "iframe"})
    assert framed.status == 200, framed.body
    cookie = framed.headers["Set-Cookie"]
    for part in ("HttpOnly", "SameSite=None", "Secure", "Partitioned"):
        assert part in cookie.split("; "), cookie
    assert f'data-hosts="{stack.platform}"' in framed.body
    session = cookie.split(";")[0].split("=", 1)[1]
    assert stack.me(session)["display_name"] == "美美 Mei"
    plain = stack.launch(stack.token("u1001")).headers["Set-Cookie"]
    assert "SameSite=Lax" in plain and "Partitioned" not in plain

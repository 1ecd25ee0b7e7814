"""Rate limits of logins and registrations: by name and address, so nobody locks out an owner."""

from __future__ import annotations

from http_from import login_from, post
from server_live import ROOMS, Live, live_test

from baccarat.server.config import parse_rooms
from baccarat.server.limits import AuthLimits, RateLimiter

OWNER, ATTACKER, OTHER = "127.0.0.1", "127.0.0.2", "127.0.0.3"


def _rooms(**server: int) -> dict[str, object]:
    return {**ROOMS, "server": {**ROOMS["server"], **server}}


@live_test()
async def test_an_attackers_wrong_passwords_do_not_lock_the_owner_out(live: Live) -> None:
    await live.user("alice")
    for _ in range(10):
        answer = await login_from(live.base, "alice", "guess", source=ATTACKER)
        assert answer.status in (401, 429)
    # The attacker's address is stopped for this name...
    stopped = await login_from(live.base, "alice", "password1", source=ATTACKER)
    assert (stopped.status, stopped.code) == (429, "rate_limited")
    # ...and the owner, from another address, logs in.
    owner = await login_from(live.base, "alice", "password1", source=OWNER)
    assert owner.status == 200, owner.body


@live_test(rooms=_rooms(login_attempts=3, login_attempts_per_name=5))
async def test_guesses_from_many_addresses_meet_the_looser_per_name_ceiling(live: Live) -> None:
    await live.user("alice")
    for source in (ATTACKER, OTHER):
        for _ in range(3):
            await login_from(live.base, "alice", "guess", source=source)
    # Six attempts from two addresses passed the ceiling of five for the name.
    answer = await login_from(live.base, "alice", "password1", source=OWNER)
    assert (answer.status, answer.code) == (429, "rate_limited")
    # Other names are not affected.
    await live.user("bob")
    assert (await login_from(live.base, "bob", "password1", source=OTHER)).status == 200


@live_test(rooms=_rooms(register_per_ip=2, register_per_hour=3))
async def test_registration_has_its_own_low_limits_per_address_and_overall(live: Live) -> None:
    async def register(name: str, source: str) -> tuple[int, str | None]:
        body = {"username": name, "password": "secret12"}
        answer = await post(live.base, "/api/register", body, source=source)
        if answer.status == 429:
            assert int(answer.headers["Retry-After"]) > 60  # an hour's window, not a minute's
        return answer.status, answer.code

    assert await register("a1", OWNER) == (201, None)
    assert await register("a2", OWNER) == (201, None)
    assert await register("a3", OWNER) == (429, "rate_limited")
    assert await register("b1", ATTACKER) == (201, None)
    assert await register("c1", OTHER) == (429, "rate_limited")  # the overall limit
    assert sorted(u.username for u in live.store.list_users()) == ["a1", "a2", "b1"]
    # Logins are counted apart: the registered accounts still log in.
    assert (await login_from(live.base, "a1", "secret12", source=OWNER)).status == 200


@live_test(rooms=_rooms(register_per_ip=1))
async def test_a_malformed_registration_does_not_use_up_the_limit(live: Live) -> None:
    bad = await post(live.base, "/api/register", {"username": "no spaces", "password": "secret12"})
    assert (bad.status, bad.code) == (400, "bad_username")
    good = await post(live.base, "/api/register", {"username": "mei", "password": "secret12"})
    assert good.status == 201


def test_the_default_registration_limits_are_far_below_the_login_limits() -> None:
    settings = parse_rooms({"rooms": ROOMS["rooms"]}).server
    # Registrations are counted per hour, logins per minute: per address, a hundredth or less.
    assert settings.register_per_ip * 100 <= settings.login_attempts_per_ip * 60
    assert settings.register_per_hour <= settings.login_attempts_per_name
    assert settings.login_attempts < settings.login_attempts_per_name


def test_a_limiter_counts_within_its_window_and_forgets_after_it() -> None:
    now = [0.0]
    limiter = RateLimiter(2, 60.0, clock=lambda: now[0])
    assert limiter.retry_after("k") == 0
    assert limiter.retry_after("k") == 0
    assert limiter.retry_after("k") == 60.0
    assert limiter.retry_after("other") == 0
    now[0] = 60.0
    assert limiter.retry_after("k") == 0


def test_login_limits_key_the_name_with_the_address() -> None:
    now = [0.0]
    settings = parse_rooms({"server": {"login_attempts": 2}, "rooms": ROOMS["rooms"]}).server
    limits = AuthLimits.from_settings(settings, clock=lambda: now[0])
    assert limits.login_name("sam", "10.0.0.1") == 0
    assert limits.login_name("sam", "10.0.0.1") == 0
    assert limits.login_name("sam", "10.0.0.1") > 0
    assert limits.login_name("sam", "10.0.0.2") == 0
    assert limits.login_name("eve", "10.0.0.1") == 0

"""Console logins over real HTTP: each step in the operator log with its address and user
agent and in the metrics, one answer for any wrong credential, and a lockout after wrong
codes that only an admin lifts."""

from __future__ import annotations

import re

import aiohttp
import pyotp
from server_live import Live, live_test
from test_server_console import call, console

AGENT = "Mozilla/5.0 (console test)"


def logins(text: str) -> dict[str, float]:
    """The console login counter's series in a metrics page, by outcome."""
    return {
        m.group(1): float(m.group(2))
        for m in re.finditer(r'baccarat_console_logins_total\{outcome="(\w+)"\} (\S+)', text)
    }


@live_test(metrics_token="t0k3n")
async def test_console_logins_are_logged_counted_and_answered_alike(live: Live) -> None:
    live.server.limits.login_per_name_and_ip.limit = 100  # (this server's is 3 a minute)
    before = await _scrape(live)
    assert set(before) == {"success", "failure", "enrolled", "locked", "rate_limited"}
    http = await console(live, "boss", "admin")  # enrols, then logs in
    await http.close()
    user = live.store.get_user(live.store.user_id_of("boss"))
    secret, _ = live.store.totp(user.user_id)
    assert secret is not None
    login = f"{live.base}/api/admin/login"
    async with aiohttp.ClientSession(headers={"User-Agent": AGENT}) as other:
        wrong_password = {"username": "boss", "password": "nope-nope", "code": "123456"}
        right = {"username": "boss", "password": "password1"}
        wrong_code = f"{(int(pyotp.TOTP(secret).now()) + 500_000) % 1_000_000:06d}"
        answers = [
            await call(other, "POST", login, wrong_password),
            await call(other, "POST", login, {**right, "code": wrong_code}),
            await call(other, "POST", login, {"username": "nobody", "password": "x"}),
        ]
    # A wrong password and a wrong code answer the same code and the same sentence.
    assert len({(status, str(body)) for status, body in answers}) == 1
    assert answers[0][0] == 401 and answers[0][1]["error"]["code"] == "bad_credentials"
    entries = live.store.operator_log()
    steps = [(e.action, e.actor, e.reason) for e in entries[:6]]
    assert steps == [
        ("console_login_failed", "nobody", "wrong password"),
        ("console_login_failed", "boss", "wrong code"),
        ("console_login_failed", "boss", "wrong password"),
        ("console_login", "boss", "password and code"),
        ("totp_enrolled", "boss", "first code accepted"),
        ("set_role", "cli", "a test operator"),
    ]
    assert entries[0].target == "name:nobody" and entries[1].target == f"user:{user.user_id}"
    # A wrong password for a real account is under that account, by nobody proved to be it.
    assert (entries[2].target, entries[2].actor_id) == (f"user:{user.user_id}", None)
    assert entries[1].after == {"address": "127.0.0.1", "user_agent": AGENT}
    after = await _scrape(live)
    assert after["success"] - before["success"] == 1
    assert after["enrolled"] - before["enrolled"] == 1
    assert after["failure"] - before["failure"] == 3


async def _scrape(live: Live) -> dict[str, float]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{live.base}/metrics", headers={"Authorization": "Bearer t0k3n"}) as resp,
    ):
        assert resp.status == 200
        return logins(await resp.text())


@live_test()
async def test_wrong_codes_lock_the_console_until_an_admin_lifts_it(live: Live) -> None:
    admin = await console(live, "boss", "admin")
    oper = await console(live, "oper1", "operator")
    try:
        night, _ = await live.user("night")
        live.store.set_role(night.user_id, "operator", "a night operator")
        secret = pyotp.random_base32()
        live.store.set_totp(night.user_id, secret, enrolled=True)
        login = f"{live.base}/api/admin/login"
        creds = {"username": "night", "password": "password1"}
        wrong = f"{(int(pyotp.TOTP(secret).now()) + 500_000) % 1_000_000:06d}"
        # (a session per try: the per-name limit of this server is 3 a minute per address,
        # and each session here comes from 127.0.0.1 too, so the limit is raised for the test)
        live.server.limits.login_per_name_and_ip.limit = 100
        for _ in range(5):
            async with aiohttp.ClientSession() as anon:
                status, body = await call(anon, "POST", login, {**creds, "code": wrong})
                assert (status, body["error"]["code"]) == (401, "bad_credentials")
        # Locked: the right code no longer opens it, and a wrong password reads the same.
        async with aiohttp.ClientSession() as anon:
            good = {**creds, "code": pyotp.TOTP(secret).now()}
            status, body = await call(anon, "POST", login, good)
            assert (status, body["error"]["code"]) == (403, "console_locked")
            bad = {"username": "night", "password": "wrong-one", "code": "000000"}
            status, body = await call(anon, "POST", login, bad)
            assert (status, body["error"]["code"]) == (403, "console_locked")
        assert [e.action for e in live.store.operator_log(action="console_locked")] == [
            "console_locked"
        ]
        url = f"{live.base}/api/admin/users/{night.user_id}"
        status, body = await call(admin, "GET", url)
        assert body["console_locked"] is True
        # An operator cannot lift it; an admin can, with a reason.
        status, body = await call(oper, "POST", f"{url}/unlock", {"reason": "it was me"})
        assert (status, body["error"]["code"]) == (403, "not_admin")
        status, body = await call(admin, "POST", f"{url}/unlock", {"reason": "called them"})
        assert status == 200
        [entry] = live.store.operator_log(action="unlock")
        assert (entry.actor, entry.before["console_locked"] is not None) == ("boss", True)
        assert entry.after == {"code_failures": 0, "console_locked": None}
        async with aiohttp.ClientSession() as anon:
            status, body = await call(anon, "POST", login, good)
            assert status == 200, body
    finally:
        await admin.close()
        await oper.close()

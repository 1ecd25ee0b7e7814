"""Rate limits of logins and registrations, kept in memory by one server.

Login attempts are counted three ways, each over a minute: per address (a ceiling for one
source of many names), per username from one address (the tight limit: an attacker at one
address gets few guesses), and per username from every address together (a looser ceiling
against guessing from many addresses). The tight limit is keyed by the pair, so an attacker
who spends it does not lock the owner out: the owner, from another address, is only stopped
by the per-username ceiling. Registrations have their own limits, over an hour: per address
and for the whole server.

Usernames enter every key in their canonical form (``baccarat.names.username_key``). Each
refusal is counted under the name of the ``[server]`` setting that refused it, which is the one
an operator raises when honest users meet it (``baccarat_auth_rate_limited``).
"""

from __future__ import annotations

import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from baccarat.server.config import ServerSettings

MINUTE = 60.0
HOUR = 3600.0
LIMITS = (
    "login_attempts_per_ip",
    "login_attempts",
    "login_attempts_per_name",
    "register_per_ip",
    "register_per_hour",
)
"""The ``[server]`` settings that limit logins and registrations."""
MAX_KEYS = 100_000
"""Past this many keys a limiter forgets the idle ones, so a flood of names cannot grow
memory without bound."""


class RateLimiter:
    """At most ``limit`` attempts per key within ``window`` seconds."""

    def __init__(
        self, limit: int, window: float = MINUTE, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._hits: dict[str, deque[float]] = defaultdict(deque)

    def retry_after(self, *keys: str) -> float:
        """Seconds to wait if any key is over its limit, else 0 (and the attempt counts)."""
        now = self.clock()
        wait = 0.0
        for key in keys:
            hits = self._hits[key]
            while hits and hits[0] <= now - self.window:
                hits.popleft()
            if len(hits) >= self.limit:
                wait = max(wait, hits[0] + self.window - now)
        if wait > 0:
            return wait
        for key in keys:
            self._hits[key].append(now)
        if len(self._hits) > MAX_KEYS:
            self._forget(now)
        return 0.0

    def _forget(self, now: float) -> None:
        for key in [k for k, v in self._hits.items() if not v or v[-1] <= now - self.window]:
            del self._hits[key]


@dataclass
class AuthLimits:
    """Every limit of logins and registrations of one server."""

    login_per_ip: RateLimiter
    login_per_name_and_ip: RateLimiter
    login_per_name: RateLimiter
    register_per_ip: RateLimiter
    register_total: RateLimiter
    refused: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LIMITS, 0))
    """Attempts refused since start, by the setting whose limit refused them."""

    @classmethod
    def from_settings(
        cls, settings: ServerSettings, clock: Callable[[], float] = time.monotonic
    ) -> AuthLimits:
        """The limits the ``[server]`` section asks for."""
        return cls(
            login_per_ip=RateLimiter(settings.login_attempts_per_ip, MINUTE, clock),
            login_per_name_and_ip=RateLimiter(settings.login_attempts, MINUTE, clock),
            login_per_name=RateLimiter(settings.login_attempts_per_name, MINUTE, clock),
            register_per_ip=RateLimiter(settings.register_per_ip, HOUR, clock),
            register_total=RateLimiter(settings.register_per_hour, HOUR, clock),
        )

    def login_address(self, address: str) -> float:
        """Count a login attempt from ``address``; seconds to wait if it is over its limit."""
        return self._count("login_attempts_per_ip", self.login_per_ip.retry_after(f"ip:{address}"))

    def login_name(self, name_key: str, address: str) -> float:
        """Count a login attempt as ``name_key`` from ``address``; seconds to wait, or 0."""
        pair = self.login_per_name_and_ip.retry_after(f"name:{name_key}\nip:{address}")
        if pair:
            return self._count("login_attempts", pair)
        wait = self.login_per_name.retry_after(f"name:{name_key}")
        return self._count("login_attempts_per_name", wait)

    def register(self, address: str) -> float:
        """Count a registration from ``address``; seconds to wait, or 0."""
        wait = self.register_per_ip.retry_after(f"ip:{address}")
        if wait:
            return self._count("register_per_ip", wait)
        return self._count("register_per_hour", self.register_total.retry_after("all"))

    def _count(self, limit: str, wait: float) -> float:
        """Pass ``wait`` on, counting a refusal by ``limit`` when there is one."""
        if wait:
            self.refused[limit] += 1
        return wait

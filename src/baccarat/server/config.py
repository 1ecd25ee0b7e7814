"""The rooms file: the server's settings, rooms and tables, read from TOML and checked first.

Its ``[server]`` section (registration, login limits, rates, the metrics listener), its
``[timers]`` and each ``[[rooms]]`` with its tables are read into typed settings before
anything starts. A configuration that breaks a rule (a ``chip_unit`` that is not a multiple
of 100, a timer that is not a positive number, a floor that cannot work, an unknown key, a
duplicate id) raises ``InvalidInput`` with the offending key named, and the server refuses
to start.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from baccarat.bets import LIMITS, max_liability
from baccarat.errors import InvalidInput
from baccarat.numbers import whole
from baccarat.table.config import SEATS, TableConfig

TIMERS: dict[str, float] = {
    "betting": 15.0,
    "squeeze": 10.0,
    "squeeze_peel": 3.0,
    "squeeze_extra": 5.0,
    "result": 5.0,
    "shuffle": 2.0,
    "urge_cooldown": 10.0,
    "reconnect_grace": 60.0,
}
"""Timer names and their defaults, in seconds (``TableConfig`` calls them ``<name>_seconds``)."""

SERVER_KEYS = {
    "allow_register",
    "start_level",
    "start_coins",
    "login_attempts",
    "login_attempts_per_ip",
    "login_attempts_per_name",
    "register_per_ip",
    "register_per_hour",
    "password_hash_workers",
    "password_hash_queue",
    "metrics_listen",
    "command_rate",
    "squeeze_rate",
    "grant_approve_above",
    "grant_daily_cap",
    "console_code_attempts",
}
ROOM_KEYS = {
    "id",
    "name",
    "min_level",
    "chip_unit",
    "bettor_floor",
    "dealer_floor",
    "tables",
    "timers",
    "dealer_round_limit",
    "nodes",
}
TOP_KEYS = {"server", "rooms", "timers"}
TABLE_KEYS = {"id", "name", "nodes"}
LANGS = ("zh-TW", "en")
"""The languages a room's or a table's name is given in (the browser client's languages)."""


@dataclass(frozen=True)
class ServerSettings:
    """The ``[server]`` section: registration and login policy, password hashing, metrics."""

    allow_register: bool = True
    start_level: int = 50
    start_coins: int = 100_000
    login_attempts: int = 10
    """Login attempts per minute for one username from one IP address."""
    login_attempts_per_ip: int = 60
    """Login attempts per minute from one IP address, whatever the names (bots share one)."""
    login_attempts_per_name: int = 100
    """Login attempts per minute for one username from all addresses together (a ceiling
    looser than ``login_attempts``, so one address cannot lock an owner out)."""
    register_per_ip: int = 5
    """Registrations per hour from one IP address."""
    register_per_hour: int = 100
    """Registrations per hour from all addresses together."""
    password_hash_workers: int = 2
    """Threads that hash and check passwords (each hash holds 19 MiB while it runs)."""
    password_hash_queue: int = 16
    """Password checks that may wait for a thread; past that a login or registration is
    answered 503 with Retry-After."""
    metrics_listen: str = ""
    """``HOST:PORT`` of a second listener that serves only ``/metrics`` ("" for none)."""
    command_rate: float = 50.0
    """Commands per second one socket may send (bursts of two seconds' worth)."""
    squeeze_rate: float = 10.0
    """Peel moves per second that reach a table and every screen at it (the latest wins).
    Most of a table's frames are peel moves: fewer a second carry more tables on a core,
    and the onlookers' screens ease over a longer step."""
    grant_approve_above: int = 100_000
    """An operator's grant of more coins than this (given or taken) waits for a second
    operator's approval; so does any grant to oneself."""
    grant_daily_cap: int = 1_000_000
    """Coins one operator may give within 24 hours (granted, or waiting for approval)."""
    console_code_attempts: int = 5
    """Wrong authenticator codes in a row (after the right password) that lock an account
    out of the console until an admin lifts the lock."""


@dataclass(frozen=True)
class RoomSettings:
    """One room: its entry level, chip unit, floors, timers and the ids of its tables."""

    room_id: str
    names: dict[str, str]
    """The room's name in each of ``LANGS``."""
    min_level: int
    chip_unit: int
    bettor_floor: int
    dealer_floor: int
    table_ids: tuple[str, ...]
    timers: dict[str, float] = field(default_factory=lambda: dict(TIMERS))
    dealer_round_limit: int = 10
    """Rounds in a row one dealer may deal while someone waits in the dealer queue (連莊上限)."""
    table_names: dict[str, dict[str, str]] = field(default_factory=dict)
    """Each table's name in each of ``LANGS`` (by default the room's name and its number)."""
    nodes: tuple[str, ...] = ()
    """The nodes the room's tables are pinned to (none: any node)."""
    table_nodes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Tables pinned to nodes of their own (over the room's pin)."""

    @property
    def name(self) -> str:
        """The room's name in English (the language of logs and of the Python client)."""
        return self.names["en"]

    def names_of(self, table_id: str) -> dict[str, str]:
        """A table's name in each of ``LANGS``."""
        named = self.table_names.get(table_id)
        if named is not None:
            return named
        number = self.table_ids.index(table_id) + 1
        return {lang: f"{self.names[lang]} {number}" for lang in LANGS}


@dataclass(frozen=True)
class RoomsConfig:
    """The whole file: server settings and rooms, in file order."""

    server: ServerSettings
    rooms: tuple[RoomSettings, ...]

    def table_configs(self, speed: float = 1.0) -> dict[str, TableConfig]:
        """Every table's ``TableConfig``, timers divided by ``speed``, in file order."""
        return {t: table_config(r, t).scaled(speed) for r in self.rooms for t in r.table_ids}

    def table_room(self) -> dict[str, RoomSettings]:
        """Each table id mapped to its room."""
        return {t: r for r in self.rooms for t in r.table_ids}

    def pins(self) -> dict[str, frozenset[str]]:
        """The tables pinned to nodes (``nodes`` of a room or a table), each with its nodes."""
        pins: dict[str, frozenset[str]] = {}
        for room in self.rooms:
            for table_id in room.table_ids:
                nodes = room.table_nodes.get(table_id, room.nodes)
                if nodes:
                    pins[table_id] = frozenset(nodes)
        return pins


def table_config(room: RoomSettings, table_id: str) -> TableConfig:
    """The pure table's settings for one table of ``room``."""
    timers: dict[str, Any] = {f"{name}_seconds": value for name, value in room.timers.items()}
    return TableConfig(
        table_id=table_id,
        room=room.room_id,
        chip_unit=room.chip_unit,
        bettor_floor=room.bettor_floor,
        dealer_floor=room.dealer_floor,
        min_level=room.min_level,
        dealer_round_limit=room.dealer_round_limit,
        **timers,
    )


def _fail(where: str, message: str) -> InvalidInput:
    return InvalidInput("bad_config", f"{where}: {message}")


def _int(where: str, value: object, *, minimum: int = 0) -> int:
    if not whole(value) or value < minimum:
        raise _fail(where, f"must be a whole number >= {minimum}, not {value!r}.")
    return value


def _positive(where: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise _fail(where, f"must be a positive number, not {value!r}.")
    return float(value)


def _between(where: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise _fail(where, f"must be a number from {low:g} to {high:g}, not {value!r}.")
    return float(value)


def _text(where: str, value: object) -> str:
    if not isinstance(value, str) or not value or len(value) > 64:
        raise _fail(where, f"must be a non-empty text of at most 64 characters, not {value!r}.")
    return value


def _names(where: str, value: object) -> dict[str, str]:
    """A name: one text for every language, or a table with a text for each of ``LANGS``."""
    if isinstance(value, str):
        text = _text(where, value)
        return dict.fromkeys(LANGS, text)
    if not isinstance(value, dict):
        raise _fail(
            where,
            f"must be a text or a table of {' and '.join(LANGS)} texts "
            f'(such as {{zh-TW = "一般區", en = "Standard"}}), not {value!r}.',
        )
    extra = sorted(set(value) - set(LANGS))
    if extra:
        raise _fail(where, f"unknown language(s) {', '.join(extra)}; known: {', '.join(LANGS)}.")
    for lang in LANGS:
        if lang not in value:
            raise _fail(f"{where}.{lang}", "is missing: a name is given in every language.")
    return {lang: _text(f"{where}.{lang}", value[lang]) for lang in LANGS}


def _node_ids(where: str, value: object) -> tuple[str, ...]:
    """A pin: a non-empty list of node ids."""
    if not isinstance(value, list) or not value:
        raise _fail(where, "must be a non-empty list of node ids (each node's --node-id).")
    return tuple(_text(f"{where}[{i}]", v) for i, v in enumerate(value))


def _table_pins(where: str, tables: object) -> dict[str, tuple[str, ...]]:
    """The tables given as ``{id = ..., nodes = [...]}``, with their nodes."""
    pins: dict[str, tuple[str, ...]] = {}
    for i, entry in enumerate(tables if isinstance(tables, list) else []):
        if isinstance(entry, dict) and "nodes" in entry:
            pins[str(entry["id"])] = _node_ids(f"{where}[{i}].nodes", entry["nodes"])
    return pins


def _tables(where: str, tables: object) -> tuple[tuple[str, ...], dict[str, dict[str, str]]]:
    """Table ids, and the names of the tables given as ``{id = ..., name = ...}``."""
    if not isinstance(tables, list) or not tables:
        raise _fail(where, "must be a non-empty list of table ids.")
    ids: list[str] = []
    named: dict[str, dict[str, str]] = {}
    for i, entry in enumerate(tables):
        if isinstance(entry, dict):
            _unknown(f"{where}[{i}]", entry, TABLE_KEYS)
            if "id" not in entry:
                raise _fail(f"{where}[{i}]", "the key 'id' is required.")
            table_id = _text(f"{where}[{i}].id", entry["id"])
            if "name" in entry:
                named[table_id] = _names(f"{where}[{i}].name", entry["name"])
        else:
            table_id = _text(where, entry)
        ids.append(table_id)
    return tuple(ids), named


def _unknown(where: str, data: dict[str, Any], known: set[str]) -> None:
    extra = sorted(set(data) - known)
    if extra:
        raise _fail(where, f"unknown key(s) {', '.join(extra)}; known: {', '.join(sorted(known))}.")


def _timers(where: str, data: object, base: dict[str, float]) -> dict[str, float]:
    if not isinstance(data, dict):
        raise _fail(where, "must be a table of timers in seconds.")
    _unknown(where, data, set(TIMERS))
    out = dict(base)
    for name, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise _fail(f"{where}.{name}", f"must be a positive number of seconds, not {value!r}.")
        if value > 3600:
            raise _fail(f"{where}.{name}", f"must be at most 3600 seconds, not {value!r}.")
        out[name] = float(value)
    return out


def _server(data: object) -> ServerSettings:
    if not isinstance(data, dict):
        raise _fail("server", "must be a table.")
    _unknown("server", data, SERVER_KEYS)
    allow = data.get("allow_register", True)
    if not isinstance(allow, bool):
        raise _fail("server.allow_register", f"must be true or false, not {allow!r}.")
    return ServerSettings(
        allow_register=allow,
        start_level=_int("server.start_level", data.get("start_level", 50)),
        start_coins=_int("server.start_coins", data.get("start_coins", 100_000)),
        login_attempts=_int("server.login_attempts", data.get("login_attempts", 10), minimum=1),
        login_attempts_per_ip=_int(
            "server.login_attempts_per_ip", data.get("login_attempts_per_ip", 60), minimum=1
        ),
        login_attempts_per_name=_int(
            "server.login_attempts_per_name", data.get("login_attempts_per_name", 100), minimum=1
        ),
        register_per_ip=_int("server.register_per_ip", data.get("register_per_ip", 5), minimum=1),
        register_per_hour=_int(
            "server.register_per_hour", data.get("register_per_hour", 100), minimum=1
        ),
        password_hash_workers=_int(
            "server.password_hash_workers", data.get("password_hash_workers", 2), minimum=1
        ),
        password_hash_queue=_int(
            "server.password_hash_queue", data.get("password_hash_queue", 16), minimum=0
        ),
        metrics_listen=listen_address(
            "server.metrics_listen", data.get("metrics_listen", ""), empty=True
        ),
        command_rate=_positive("server.command_rate", data.get("command_rate", 50.0)),
        squeeze_rate=_between("server.squeeze_rate", data.get("squeeze_rate", 10.0), 1, 30),
        grant_approve_above=_int(
            "server.grant_approve_above", data.get("grant_approve_above", 100_000)
        ),
        grant_daily_cap=_int("server.grant_daily_cap", data.get("grant_daily_cap", 1_000_000)),
        console_code_attempts=_int(
            "server.console_code_attempts", data.get("console_code_attempts", 5), minimum=1
        ),
    )


def listen_address(where: str, value: object, *, empty: bool = False) -> str:
    """Check a ``HOST:PORT`` to listen on (``[::1]:PORT`` for IPv6); return it."""
    if empty and value == "":
        return ""
    if isinstance(value, str):
        host, sep, port = value.rpartition(":")
        if sep and host and port.isdigit() and 0 < int(port) < 65536:
            return value
    raise _fail(where, f"must be HOST:PORT (such as 127.0.0.1:9100), not {value!r}.")


def split_address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (checked by :func:`listen_address`) as a host and a port."""
    host, _, port = value.rpartition(":")
    return host.strip("[]"), int(port)


def _room(index: int, data: object, timers: dict[str, float]) -> RoomSettings:
    where = f"rooms[{index}]"
    if not isinstance(data, dict):
        raise _fail(where, "must be a table.")
    _unknown(where, data, ROOM_KEYS)
    for key in ("id", "chip_unit", "tables"):
        if key not in data:
            raise _fail(where, f"the key {key!r} is required.")
    room_id = _text(f"{where}.id", data["id"])
    where = f"room {room_id!r}"
    chip_unit = _int(f"{where}.chip_unit", data["chip_unit"], minimum=100)
    if chip_unit % 100:
        raise _fail(
            f"{where}.chip_unit",
            f"must be a multiple of 100 coins so every 1% commission is whole, not {chip_unit}.",
        )
    table_ids, table_names = _tables(f"{where}.tables", data["tables"])
    # A bettor floor below one chip seats bettors who cannot bet; a dealer floor below the
    # largest liability the limits allow seats a dealer who may not be able to pay.
    bettor_floor = _int(f"{where}.bettor_floor", data.get("bettor_floor", 10 * chip_unit))
    if bettor_floor < chip_unit:
        raise _fail(
            f"{where}.bettor_floor",
            f"must be at least one chip ({chip_unit} coins), not {bettor_floor}.",
        )
    # The dealer floor defaults to the largest Player/Banker liability (docs/rules.md, "Rooms").
    liability = max_liability(chip_unit, SEATS - 1)
    dealer_floor = _int(f"{where}.dealer_floor", data.get("dealer_floor", liability))
    if dealer_floor < liability:
        raise _fail(
            f"{where}.dealer_floor",
            f"must be at least the largest liability the limits allow ({SEATS - 1} seats x "
            f"{LIMITS['player']} chips x {chip_unit} = {liability} coins), not {dealer_floor}.",
        )
    return RoomSettings(
        room_id=room_id,
        names=_names(f"{where}.name", data.get("name", room_id)),
        min_level=_int(f"{where}.min_level", data.get("min_level", 50)),
        chip_unit=chip_unit,
        bettor_floor=bettor_floor,
        dealer_floor=dealer_floor,
        table_ids=table_ids,
        timers=_timers(f"{where}.timers", data.get("timers", {}), timers),
        dealer_round_limit=_int(
            f"{where}.dealer_round_limit", data.get("dealer_round_limit", 10), minimum=1
        ),
        table_names=table_names,
        nodes=_node_ids(f"{where}.nodes", data["nodes"]) if "nodes" in data else (),
        table_nodes=_table_pins(f"{where}.tables", data["tables"]),
    )


def parse_rooms(data: dict[str, Any]) -> RoomsConfig:
    """Check a parsed TOML document and build the configuration."""
    _unknown("top level", data, TOP_KEYS)
    timers = _timers("timers", data.get("timers", {}), TIMERS)
    rooms_data = data.get("rooms")
    if not isinstance(rooms_data, list) or not rooms_data:
        raise _fail("rooms", "at least one [[rooms]] section is needed.")
    rooms = tuple(_room(i, r, timers) for i, r in enumerate(rooms_data))
    seen_rooms: set[str] = set()
    seen_tables: set[str] = set()
    for room in rooms:
        if room.room_id in seen_rooms:
            raise _fail(f"room {room.room_id!r}", "the room id is used twice.")
        seen_rooms.add(room.room_id)
        for table_id in room.table_ids:
            if table_id in seen_tables:
                raise _fail(f"table {table_id!r}", "the table id is used twice.")
            seen_tables.add(table_id)
    return RoomsConfig(server=_server(data.get("server", {})), rooms=rooms)


def load_rooms(path: str | Path | None = None) -> RoomsConfig:
    """Read a rooms file (the packaged ``rooms.toml`` when ``path`` is None)."""
    if path is None:
        text = resources.files("baccarat").joinpath("rooms.toml").read_text(encoding="utf-8")
        where = "rooms.toml"
    else:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidInput("bad_config", f"{path}: cannot be read ({exc.strerror}).") from exc
        where = str(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput("bad_config", f"{where}: not valid TOML ({exc}).") from exc
    try:
        return parse_rooms(data)
    except InvalidInput as exc:
        raise InvalidInput("bad_config", f"{where}: {exc.message}") from exc

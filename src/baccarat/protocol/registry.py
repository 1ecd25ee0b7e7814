"""Every command of protocol v1, listed once: its ``type`` on the wire, its typed class, its
fields, and how the server carries it out.

Pure: no I/O. :mod:`.parse` reads a frame through ``BY_TYPE``, :mod:`.encode` writes one
through ``BY_CLASS`` (the Python client sends with it), and the server's dispatcher routes
each command by its entry's ``route``: a new command is a line of ``REGISTRY`` and its
handler in the table.

A command is the table's own dataclass (:mod:`baccarat.table.commands`), which acts for the
connection's user (its ``user_id`` is never a field of the frame), or one of :mod:`.requests`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Literal, get_args

from baccarat.protocol import fields as f
from baccarat.protocol.fields import Fields
from baccarat.protocol.ids import UserId
from baccarat.protocol.requests import (
    Leave,
    LobbySubscribe,
    LobbyUnsubscribe,
    Ping,
    QueueUp,
    Request,
    Resync,
    TakeSeat,
    Watch,
)
from baccarat.table.commands import (
    ClearBets,
    Command,
    Double,
    Emote,
    LeaveQueue,
    OpenCard,
    PlaceChip,
    Rebet,
    Say,
    SetAutoOpen,
    SqueezeProgress,
    StandUp,
    Undo,
    Urge,
)

Route = Literal["server", "at_once", "at_seat", "at_table"]
"""How the server carries a command out:

- ``server``: by a handler of its own for the class: a request, or a table command that needs
  the server first (a chat line's mute, a preference's record, a peel move's coalescing);
- ``at_once``: at the table where the user sits, run at once when that table idles (the
  betting window's commands write nothing);
- ``at_seat``: at the table where the user sits, in the table's order;
- ``at_table``: at the table where the user sits, else the one the connection watches.
"""

Frame = dict[str, object]
"""A frame's fields beside its ``type`` and ``id``."""

_MISSING = object()


@dataclasses.dataclass(frozen=True, slots=True)
class Field:
    """One field of a frame: its name on the wire, its check, and the command's attribute it
    fills (``attr``, when named otherwise). An ``optional`` field may be left out: it reads
    as the attribute's default and is written only when it differs."""

    name: str
    check: Callable[[object], object]
    attr: str = ""
    optional: bool = False

    @property
    def target(self) -> str:
        """The command's attribute this field fills."""
        return self.attr or self.name


class Entry:
    """One command: its ``type``, its class, its fields in frame order, and its route."""

    __slots__ = (
        "_acts",
        "_kept",
        "_make",
        "_reads",
        "coalesced",
        "command",
        "defaults",
        "fields",
        "route",
        "type",
        "unsent",
    )

    def __init__(
        self,
        kind: str,
        command: type[Command | Request],
        fields: tuple[Field, ...],
        route: Route,
        *,
        coalesced: bool = False,
    ) -> None:
        self.type = kind
        self.command = command
        self.fields = fields
        self.route = route
        self.coalesced = coalesced
        """Moves the server may replace by a later one: not rate limited, nor timed."""
        if route != "server" and command not in get_args(Command):
            raise TypeError(f"{kind}: only a table's command goes to a table ({route})")
        self.defaults, self.unsent = _defaults(kind, command, fields)
        # Read once here: a frame is read on every command, peel moves many a second.
        self._make: Callable[..., Command | Request] = command
        self._acts = "user_id" in self.unsent
        self._kept = tuple((k, v) for k, v in self.unsent.items() if k != "user_id")
        self._reads = tuple(
            (
                f.name,
                f.target,
                f.check,
                self.defaults.get(f.target, _MISSING) if f.optional else _MISSING,
            )
            for f in fields
        )

    def read(self, user_id: UserId, frame: Fields) -> Command | Request:
        """The command of a frame's fields, acting for ``user_id`` when it acts for a user."""
        values: dict[str, object] = {"user_id": user_id} if self._acts else {}
        for name, target, check, default in self._reads:
            if default is _MISSING:
                values[target] = frame.take(name, check)
            else:
                values[target] = frame.maybe(name, check, default)
        return self._make(**values)

    def write(self, command: Command | Request) -> Frame:
        """The frame's fields of ``command`` (which is of this entry's class)."""
        for name, default in self._kept:
            if getattr(command, name) != default:
                raise ValueError(
                    f"a client sends {self.type} without a {name}; the server gives one"
                )
        out: Frame = {}
        for name, target, _, default in self._reads:
            value = getattr(command, target)
            if value != default:
                out[name] = value
        return out


def _defaults(
    kind: str, command: type[Command | Request], fields: tuple[Field, ...]
) -> tuple[dict[str, object], dict[str, object]]:
    """The defaults of the optional fields' attributes, and the attributes no frame carries
    (the user's id, or what only the server sets) with their defaults."""
    declared = _declared(command)
    targets = {field.target for field in fields}
    if not targets <= declared.keys():
        raise TypeError(f"{kind}: {command.__name__} has no {sorted(targets - declared.keys())}")
    unsent = {name: default for name, default in declared.items() if name not in targets}
    defaults = {field.target: declared[field.target] for field in fields if field.optional}
    if _MISSING in defaults.values() or _MISSING in (unsent | {"user_id": None}).values():
        # Checked once, as the module loads: a frame must be able to make the command.
        raise TypeError(f"{kind}: a frame cannot make a {command.__name__}")
    return defaults, unsent


def _declared(command: type[Command | Request]) -> dict[str, object]:
    """Each attribute of the command's class, with its default (``_MISSING`` if none)."""
    return {
        a.name: _MISSING if a.default is dataclasses.MISSING else a.default
        for a in dataclasses.fields(command)
    }


def _entry(
    kind: str,
    command: type[Command | Request],
    route: Route,
    *fields: Field,
    coalesced: bool = False,
) -> Entry:
    return Entry(kind, command, fields, route, coalesced=coalesced)


REGISTRY: tuple[Entry, ...] = (
    _entry("ping", Ping, "server"),
    _entry(
        "lobby.subscribe",
        LobbySubscribe,
        "server",
        Field("page", f.page, optional=True),
        Field("room", f.room_id, optional=True),
        Field("road", f.road, optional=True),
    ),
    _entry("lobby.unsubscribe", LobbyUnsubscribe, "server"),
    _entry("table.watch", Watch, "server", Field("table_id", f.table_id)),
    _entry("table.leave", Leave, "server"),
    _entry("resync", Resync, "server"),
    _entry("sit", TakeSeat, "server", Field("table_id", f.table_id), Field("seat", f.seat)),
    _entry("stand", StandUp, "at_seat"),
    _entry("bet", PlaceChip, "at_once", Field("area", f.area), Field("chip", f.chip)),
    _entry("clear", ClearBets, "at_once"),
    _entry("rebet", Rebet, "at_once"),
    _entry("double", Double, "at_once"),
    _entry("undo", Undo, "at_once"),
    _entry("urge", Urge, "at_seat"),
    _entry(
        "squeeze",
        SqueezeProgress,
        "server",
        Field("hand", f.hand),
        Field("progress", f.progress),
        Field("corner", f.corner),
        coalesced=True,
    ),
    _entry("open", OpenCard, "at_seat", Field("hand", f.hand)),
    _entry("queue.join", QueueUp, "server"),
    _entry("queue.leave", LeaveQueue, "at_table"),
    _entry("prefs", SetAutoOpen, "server", Field("auto_open", f.flag, attr="on")),
    _entry("say", Say, "server", Field("text", f.chat_text)),
    _entry("emote", Emote, "at_seat", Field("emote", f.emote)),
)
"""Every command a client may send, once each."""

BY_TYPE: Mapping[str, Entry] = {entry.type: entry for entry in REGISTRY}
"""Each command's entry by its ``type`` on the wire (how a frame is read)."""
BY_CLASS: Mapping[type[object], Entry] = {entry.command: entry for entry in REGISTRY}
"""Each command's entry by its class (how a command is written and routed)."""

if len(BY_TYPE) != len(REGISTRY) or len(BY_CLASS) != len(REGISTRY):
    raise TypeError("a command's type and class are each listed once")

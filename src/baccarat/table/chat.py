"""Table chat and emotes (聊天/表情): seated users speak, everyone at the table reads.

A message keeps what its user typed: it is put in Unicode NFC (no width folding: "，！…"
stay full-width), runs of whitespace become one space (of ideographic spaces, one ideographic
space), and it is trimmed. Control characters, invisible ones (zero-width spaces and joiners
outside an emoji, bidirectional overrides, which could make a line read as something else,
fillers) and private-use, unassigned or surrogate code points are dropped. It is refused when
nothing is left or it is longer than :data:`MAX_CHARS`. Each user has a small budget (a token bucket of :data:`BURST`
messages, refilled one every :data:`REFILL_SECONDS`). An emote is one name of
:data:`EMOTES`; the client draws it.

The table keeps only its last :data:`KEPT` messages, in memory, for the snapshot of a user
who arrives; nothing of the chat is written anywhere.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import deque
from dataclasses import dataclass, field
from typing import Protocol

from baccarat.errors import InvalidInput, RuleViolation
from baccarat.table.commands import Emote, Say
from baccarat.table.events import ChatMessage
from baccarat.table.seats import Occupant

MAX_CHARS = 120
"""The longest message, in characters after normalisation."""
BURST = 5
"""Messages a user may send at once."""
REFILL_SECONDS = 2.0
"""One more message allowed every this many seconds, up to :data:`BURST`."""
KEPT = 30
"""Messages a table keeps for the snapshot."""
EMOTES: tuple[str, ...] = ("clap", "laugh", "cry", "angry", "thumbs_up", "fire", "lucky", "wow")

_SPACES = re.compile(r"\s+")
_DROPPED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn"}
"""Controls, format characters (zero-width, bidirectional), surrogates, private use, unassigned."""
_INVISIBLE = {chr(c) for c in (0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800)}
"""Characters that draw nothing though they are letters or marks: fillers, a blank pattern."""
_ZWJ = "\u200d"


@dataclass(slots=True)
class Chat:
    """One table's chat: its last messages and each user's budget."""

    messages: deque[ChatMessage] = field(default_factory=lambda: deque(maxlen=KEPT))
    budgets: dict[int, tuple[float, float]] = field(default_factory=dict)
    """Each user's (messages left, when counted)."""
    next_id: int = 1


class Room(Protocol):
    """What the chat reads of its table (the table's state keeps a :class:`Chat`)."""

    @property
    def chat(self) -> Chat: ...

    def occupant(self, user_id: int) -> Occupant | None: ...


def normalize(text: object) -> str:
    """The message as it will be shown, or ``InvalidInput`` saying what is wrong with it."""
    if not isinstance(text, str):
        raise InvalidInput("bad_text", "A message is text.")
    clean = _SPACES.sub(_space, visible(unicodedata.normalize("NFC", text))).strip()
    if not clean:
        raise InvalidInput("empty_message", "The message is empty.")
    if len(clean) > MAX_CHARS:
        raise InvalidInput(
            "message_too_long",
            f"A message is at most {MAX_CHARS} characters; this one has {len(clean)}.",
            limit=MAX_CHARS,
        )
    return clean


def visible(text: str) -> str:
    """``text`` without its controls and invisible characters; whitespace is kept (a tab or a
    line break becomes a space later), and a zero-width joiner inside an emoji sequence."""
    kept: list[str] = []
    for i, ch in enumerate(text):
        if ch == _ZWJ:
            joins = bool(kept) and _emoji(kept[-1]) and _emoji(text[i + 1 : i + 2])
            if joins:
                kept.append(ch)
        elif ch.isspace() or not (
            ch in _INVISIBLE or unicodedata.category(ch) in _DROPPED_CATEGORIES
        ):
            kept.append(ch)
    return "".join(kept)


def _emoji(ch: str) -> bool:
    # A pictograph, a skin tone, or the variation selector that asks for the emoji form.
    if len(ch) != 1:
        return False
    return unicodedata.category(ch) == "So" or ch == "\ufe0f" or 0x1F3FB <= ord(ch) <= 0x1F3FF


def _space(run: re.Match[str]) -> str:
    return "\u3000" if set(run.group()) == {"\u3000"} else " "


def _left(chat: Chat, user_id: int, now: float) -> float:
    tokens, at = chat.budgets.get(user_id, (float(BURST), now))
    return min(float(BURST), tokens + max(0.0, now - at) / REFILL_SECONDS)


def _verify_speaker(t: Room, user_id: int, now: float) -> Occupant:
    occ = t.occupant(user_id)
    if occ is None:
        raise RuleViolation("not_seated", "Only seated users speak at the table; take a seat.")
    if _left(t.chat, user_id, now) < 1:
        wait = (1 - _left(t.chat, user_id, now)) * REFILL_SECONDS
        raise RuleViolation(
            "chat_rate_limited",
            f"Too many messages; wait {math.ceil(wait)} more second(s).",
            seconds_left=round(wait, 3),
        )
    return occ


def verify_say(t: Room, c: Say, now: float) -> tuple[Occupant, str]:
    """Raise why ``c`` is refused; return the speaker and the normalised text."""
    text = normalize(c.text)
    return _verify_speaker(t, c.user_id, now), text


def verify_emote(t: Room, c: Emote, now: float) -> Occupant:
    """Raise why ``c`` is refused; return the speaker."""
    if c.emote not in EMOTES:
        raise InvalidInput("unknown_emote", f"The emotes are {', '.join(EMOTES)}, not {c.emote!r}.")
    return _verify_speaker(t, c.user_id, now)


def can_speak(t: Room, user_id: int, now: float) -> bool:
    """Whether ``user_id`` may send a message now (seated, budget left)."""
    try:
        _verify_speaker(t, user_id, now)
    except RuleViolation:
        return False
    return True


def _post(t: Room, occ: Occupant, now: float, text: str | None, emote: str | None) -> ChatMessage:
    chat = t.chat
    chat.budgets[occ.user_id] = (_left(chat, occ.user_id, now) - 1, now)
    msg = ChatMessage(chat.next_id, occ.user_id, occ.name, occ.seat, text, emote)
    chat.next_id += 1
    chat.messages.append(msg)
    return msg


def say(t: Room, c: Say, now: float) -> list[ChatMessage]:
    """Post a seated user's message to everyone at the table."""
    occ, text = verify_say(t, c, now)
    return [_post(t, occ, now, text, None)]


def emote(t: Room, c: Emote, now: float) -> list[ChatMessage]:
    """Post a seated user's emote to everyone at the table."""
    occ = verify_emote(t, c, now)
    return [_post(t, occ, now, None, c.emote)]

"""Table chat and emotes (聊天/表情): seated users speak, everyone at the table reads.

A message is normalised (Unicode NFKC, runs of whitespace folded to one space, trimmed) and
refused when it is empty, longer than :data:`MAX_CHARS`, or holds a control character, a
private-use or unassigned code point, or a bidirectional override (which could make a line
read as something else). Each user has a small budget (a token bucket of :data:`BURST`
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
from typing import TYPE_CHECKING

from baccarat.errors import InvalidInput, RuleViolation
from baccarat.table.commands import Emote, Say
from baccarat.table.events import ChatMessage

if TYPE_CHECKING:
    from baccarat.table.seats import Occupant
    from baccarat.table.table import Table

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
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)}
_FORBIDDEN_CATEGORIES = {"Cc", "Cs", "Co", "Cn"}


@dataclass(slots=True)
class Chat:
    """One table's chat: its last messages and each user's budget."""

    messages: deque[ChatMessage] = field(default_factory=lambda: deque(maxlen=KEPT))
    budgets: dict[int, tuple[float, float]] = field(default_factory=dict)
    """Each user's (messages left, when counted)."""
    next_id: int = 1


def normalize(text: object) -> str:
    """The message as it will be shown, or ``InvalidInput`` saying what is wrong with it."""
    if not isinstance(text, str):
        raise InvalidInput("bad_text", "A message is text.")
    clean = _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip()
    if not clean:
        raise InvalidInput("empty_message", "The message is empty.")
    for ch in clean:
        if ch in _BIDI or unicodedata.category(ch) in _FORBIDDEN_CATEGORIES:
            raise InvalidInput(
                "bad_text", f"The message holds a control character (U+{ord(ch):04X})."
            )
    if len(clean) > MAX_CHARS:
        raise InvalidInput(
            "message_too_long",
            f"A message is at most {MAX_CHARS} characters; this one has {len(clean)}.",
            limit=MAX_CHARS,
        )
    return clean


def _left(chat: Chat, user_id: int, now: float) -> float:
    tokens, at = chat.budgets.get(user_id, (float(BURST), now))
    return min(float(BURST), tokens + max(0.0, now - at) / REFILL_SECONDS)


def _verify_speaker(t: Table, user_id: int, now: float) -> Occupant:
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


def verify_say(t: Table, c: Say, now: float) -> tuple[Occupant, str]:
    """Raise why ``c`` is refused; return the speaker and the normalised text."""
    text = normalize(c.text)
    return _verify_speaker(t, c.user_id, now), text


def verify_emote(t: Table, c: Emote, now: float) -> Occupant:
    """Raise why ``c`` is refused; return the speaker."""
    if c.emote not in EMOTES:
        raise InvalidInput("unknown_emote", f"The emotes are {', '.join(EMOTES)}, not {c.emote!r}.")
    return _verify_speaker(t, c.user_id, now)


def can_speak(t: Table, user_id: int, now: float) -> bool:
    """Whether ``user_id`` may send a message now (seated, budget left)."""
    try:
        _verify_speaker(t, user_id, now)
    except RuleViolation:
        return False
    return True


def _post(t: Table, occ: Occupant, now: float, text: str | None, emote: str | None) -> ChatMessage:
    chat = t.chat
    chat.budgets[occ.user_id] = (_left(chat, occ.user_id, now) - 1, now)
    msg = ChatMessage(chat.next_id, occ.user_id, occ.name, occ.seat, text, emote)
    chat.next_id += 1
    chat.messages.append(msg)
    return msg


def say(t: Table, c: Say, now: float) -> list[ChatMessage]:
    """Post a seated user's message to everyone at the table."""
    occ, text = verify_say(t, c, now)
    return [_post(t, occ, now, text, None)]


def emote(t: Table, c: Emote, now: float) -> list[ChatMessage]:
    """Post a seated user's emote to everyone at the table."""
    occ = verify_emote(t, c, now)
    return [_post(t, occ, now, None, c.emote)]

"""Usernames and display names: what is allowed, and the one form each is compared in.

A **username** is what a person logs in with: 1 to 32 ASCII letters, digits, ``_``, ``.``
or ``-``, and none of the reserved names (``RESERVED``). Its canonical form (:func:`username_key`) is NFKC, then Unicode case folding,
then NFKC again (the shape of Unicode's ``toNFKC_Casefold``). That one form is the key of
every lookup, of uniqueness in the store, and of every rate limit, so ``Sam``, ``sam``,
``ſam`` (long s) and ``ｓａｍ`` (full width) are the same name everywhere.

A **display name** is what other people see at a table. It follows the Nickname profile of
RFC 8266 (through ``precis_i18n``): spaces are mapped to the ASCII space, trimmed and
collapsed, the text is normalised with NFKC (whose output is also NFC), and control
characters, default-ignorable characters (zero-width spaces and joiners, bidi embeddings,
overrides and isolates, variation selectors, soft hyphens), old Hangul jamo fillers and
unassigned code points are refused. On top of the profile: no ``<`` or ``>`` (no real name
needs them, and every screen showing a name then has nothing to escape that could open
markup), no Braille blank (an invisible character the profile lets through), at most 3
combining marks in a row, and 1 to 32 characters. Display names are unique under the
profile's form, fully case folded (:func:`display_key`).

A name another system gives (a platform's launch token) is **cleaned** into a display name
instead (:func:`clean_display_name`): every character the rules refuse is dropped, marks
past the third in a row are dropped, and the result is cut to 32 characters.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from precis_i18n import get_profile

from baccarat.errors import InvalidInput

USERNAME_MAX = 32
DISPLAY_MAX = 32
"""Longest display name, in code points after normalisation."""
MAX_MARKS = 3
"""Most combining marks allowed in a row (no name needs more; stacks of them are noise)."""

RESERVED = frozenset({"cli", "system", "player", "operator", "admin"})
"""Names the operator log uses for who acted (``cli``: ``baccarat admin``; ``system``: the
server) and the roles' names: no account may take one (compared in canonical form), so a
line of the log cannot be read as another actor's."""

_USERNAME = re.compile(rf"[A-Za-z0-9_.-]{{1,{USERNAME_MAX}}}")
_NICKNAME = get_profile("NicknameCasePreserved")
_REFUSED = {"<", ">", "\u2800"}
"""Characters refused in display names beyond the profile (see the module docstring)."""


def username_key(name: str) -> str:
    """The canonical form of a username (or of anything typed as one)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def verify_username(name: object) -> str:
    """Check a new username: 1-32 ASCII letters, digits, ``_ . -``; return it."""
    if not isinstance(name, str) or not _USERNAME.fullmatch(name):
        shown = name if isinstance(name, str) else type(name).__name__
        raise InvalidInput(
            "bad_username",
            f"{shown!a} is not a username: use 1 to {USERNAME_MAX} letters A-Z, digits, "
            "'_', '.' or '-'.",
        )
    if username_key(name) in RESERVED:
        raise InvalidInput(
            "reserved_name",
            f"{name!a} is reserved (the operator log and the roles use it): choose another name.",
        )
    return name


def could_be_username(text: str) -> bool:
    """Whether ``text`` (as typed at login) names an account that could exist."""
    return len(text) <= 4 * USERNAME_MAX and bool(_USERNAME.fullmatch(username_key(text)))


def _bad_display(why: str) -> InvalidInput:
    return InvalidInput("bad_display_name", f"A display name {why}.")


def verify_display_name(name: object) -> str:
    """Check a display name; return its normalised form (the form to store and show)."""
    if not isinstance(name, str):
        raise _bad_display("is text")
    if len(name) > 4 * DISPLAY_MAX:
        raise _bad_display(f"has at most {DISPLAY_MAX} characters")
    out = _enforce_nickname(name)
    _verify_not_refused(out)
    if len(out) > DISPLAY_MAX:
        raise _bad_display(f"has at most {DISPLAY_MAX} characters, not {len(out)}")
    _verify_mark_runs(out)
    return out


def clean_display_name(name: object) -> str:
    """The display name a name from elsewhere becomes: the characters a display name may not
    hold dropped (controls, invisible and direction-changing characters, ``<``, ``>``, the
    Braille blank), combining marks past the third in a row dropped, cut to
    :data:`DISPLAY_MAX` characters; ``bad_display_name`` when nothing visible is left."""
    if not isinstance(name, str):
        raise _bad_display("is text")
    kept = "".join(ch for ch in name[: 8 * DISPLAY_MAX] if _may_hold(ch))
    out, run = [], 0
    for ch in _enforce_nickname(kept):
        run = run + 1 if _is_mark(ch) else 0
        if run <= MAX_MARKS:
            out.append(ch)
    return verify_display_name("".join(out)[:DISPLAY_MAX])


@cache
def _may_hold(ch: str) -> bool:
    """Whether a display name may hold ``ch`` (between two letters)."""
    if ch in _REFUSED:
        return False
    try:
        _NICKNAME.enforce(f"x{ch}x")
    except UnicodeEncodeError:
        return False
    return True


def _enforce_nickname(name: str) -> str:
    """The profile's form of ``name``."""
    try:
        out: str = _NICKNAME.enforce(name)
    except UnicodeEncodeError as exc:
        raise _profile_refusal(exc, name) from None
    return out


def _profile_refusal(exc: UnicodeEncodeError, name: str) -> InvalidInput:
    """The profile's refusal of ``name``, said so a person can fix it."""
    if exc.reason.endswith("empty"):
        return _bad_display("needs at least one visible character")
    # The error points into the text as mapped so far, not into ``name``.
    seen = exc.object if isinstance(exc.object, str) else name
    bad = seen[exc.start] if 0 <= exc.start < len(seen) else "?"
    return _bad_display(
        f"may not contain U+{ord(bad):04X} ({_char_name(bad)}): control, invisible and "
        "direction-changing characters are refused"
    )


def _verify_not_refused(out: str) -> None:
    """Refuse the characters the profile lets through but a display name may not hold."""
    for ch in out:
        if ch in _REFUSED:
            raise _bad_display(f"may not contain U+{ord(ch):04X} ({_char_name(ch)})")


def _verify_mark_runs(out: str) -> None:
    """Refuse more than MAX_MARKS combining marks in a row."""
    run = 0
    for ch in out:
        run = run + 1 if _is_mark(ch) else 0
        if run > MAX_MARKS:
            raise _bad_display(f"has at most {MAX_MARKS} combining marks in a row")


def _is_mark(ch: str) -> bool:
    """A combining character, or any character of a Mark category."""
    return bool(unicodedata.combining(ch)) or unicodedata.category(ch)[0] == "M"


def display_key(name: str) -> str:
    """The form display names are unique in: the profile's form, case folded, NFKC."""
    # RFC 8266 compares lower-cased names; full case folding also equates "ß" with "ss"
    # and final sigma with sigma, which is what "the same name" means to a reader.
    enforced: str = _NICKNAME.enforce(name)
    return unicodedata.normalize("NFKC", enforced.casefold())


_KINDS = {"Cc": "a control character", "Cs": "a lone surrogate", "Cn": "unassigned"}


def _char_name(ch: str) -> str:
    name = unicodedata.name(ch, "").lower()
    return name or _KINDS.get(unicodedata.category(ch), "unnamed")

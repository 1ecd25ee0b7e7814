"""Table chat and emotes: seated users speak, text is normalised and bounded, budgets hold."""

from __future__ import annotations

import pytest
from tablekit import Game, rejects

from baccarat.bots.bot import CHAT_LOST, CHAT_WON
from baccarat.errors import InvalidInput
from baccarat.protocol.events import event_data
from baccarat.table import Emote, Say
from baccarat.table.chat import BURST, EMOTES, KEPT, MAX_CHARS, REFILL_SECONDS, normalize
from baccarat.table.events import ChatMessage, recipient


def seated() -> Game:
    g = Game()
    g.sit(1, 0)
    g.sit(2, 1)
    return g


def test_a_seated_user_speaks_to_everyone_and_the_snapshot_keeps_it() -> None:
    g = seated()
    [msg] = g.do(Say(2, "  好路！  莊  連  "))
    assert isinstance(msg, ChatMessage) and recipient(msg) is None
    assert event_data(msg, g.now) == {
        "id": 1,
        "user_id": 2,
        "name": "u2",
        "seat": 1,
        "text": "好路！ 莊 連",
        "emote": None,
    }
    g.do(Emote(1, "clap"))
    for viewer in (None, 1, 2, 99):
        chat = g.view(viewer)["chat"]
        assert [(m["user_id"], m["text"], m["emote"]) for m in chat] == [
            (2, "好路！ 莊 連", None),
            (1, None, "clap"),
        ]


def test_spectators_read_but_do_not_speak() -> None:
    g = seated()
    rejects(g, Say(9, "hello"), "not_seated")
    rejects(g, Emote(9, "wow"), "not_seated")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "empty_message"),
        ("   \t\n ", "empty_message"),
        ("x" * (MAX_CHARS + 1), "message_too_long"),
        ("\u200b\u200d\x07\u3164", "empty_message"),
        (12, "bad_text"),
    ],
)
def test_bad_text_is_refused_with_its_reason(text: object, code: str) -> None:
    with pytest.raises(InvalidInput) as err:
        normalize(text)
    assert err.value.code == code
    g = seated()
    rejects(g, Say(2, text), code)  # type: ignore[arg-type]


def test_a_message_keeps_its_full_width_punctuation_and_letters() -> None:
    assert normalize("好牌，！…") == "好牌，！…"
    assert normalize("ＡＢＣ　１２３") == "ＡＢＣ　１２３"
    assert normalize("e\u0301") == "\u00e9"  # NFC: one character where one was meant


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("bell\x07", "bell"),
        ("nul\x00 x", "nul x"),
        ("swap \u202edcba", "swap dcba"),
        ("private \ue000", "private"),
        ("zero\u200bwidth\ufeff", "zerowidth"),
        ("soft\u00adhyphen", "softhyphen"),
        ("filler\u3164", "filler"),
        ("a\u200d b", "a b"),
        ("👨\u200d👩\u200d👧 family", "👨\u200d👩\u200d👧 family"),
    ],
)
def test_controls_and_invisible_characters_are_dropped(typed: str, kept: str) -> None:
    assert normalize(typed) == kept


def test_every_line_a_bot_says_arrives_as_written() -> None:
    for line in (*CHAT_WON, *CHAT_LOST):
        assert normalize(line) == line


def test_text_is_normalised_before_its_length_is_counted() -> None:
    assert normalize("a\n\nb\tc") == "a b c"
    assert normalize("👍🏽 一房兩廳") == "👍🏽 一房兩廳"
    assert normalize("y" * MAX_CHARS) == "y" * MAX_CHARS


def test_unknown_emotes_are_refused() -> None:
    g = seated()
    rejects(g, Emote(2, "rocket"), "unknown_emote")
    for name in EMOTES:
        g.do(Emote(2, name))
        g.now += REFILL_SECONDS


def test_each_user_has_a_budget_that_refills() -> None:
    g = seated()
    for i in range(BURST):
        g.do(Say(2, f"m{i}"))
    details = rejects(g, Say(2, "one more"), "chat_rate_limited")
    assert details["seconds_left"] == REFILL_SECONDS
    g.do(Say(1, "the dealer has a budget of their own"))
    g.now += REFILL_SECONDS
    g.do(Say(2, "again"))
    rejects(g, Emote(2, "wow"), "chat_rate_limited")


def test_the_table_keeps_only_its_last_messages() -> None:
    g = seated()
    for i in range(KEPT + 5):
        g.do(Say(2, f"m{i}"))
        g.now += REFILL_SECONDS
    chat = g.view(None)["chat"]
    assert len(chat) == KEPT and chat[0]["text"] == "m5" and chat[-1]["id"] == KEPT + 5

"""Usernames and display names: the allowed sets and the one form each is compared in."""

from __future__ import annotations

import pytest

from baccarat.errors import InvalidInput
from baccarat.names import (
    DISPLAY_MAX,
    could_be_username,
    display_key,
    username_key,
    verify_display_name,
    verify_username,
)


@pytest.mark.parametrize("typed", ["sam", "Sam", "SAM", "ſam", "ｓａｍ", "ＳＡＭ", "ſ\u0061m"])
def test_every_spelling_of_a_username_has_one_canonical_form(typed: str) -> None:
    assert username_key(typed) == "sam"


def test_the_canonical_form_is_stable() -> None:
    for text in ("Straße", "ǅ", "ﬁx", "ΣΑΣ", "İ"):
        once = username_key(text)
        assert username_key(once) == once


@pytest.mark.parametrize("name", ["a", "A.b-c_9", "x" * 32])
def test_the_allowed_usernames(name: str) -> None:
    assert verify_username(name) == name


@pytest.mark.parametrize("name", ["", "x" * 33, "a b", "ſam", "sam\u200b", "\ud800", 7, None])
def test_usernames_outside_the_set_are_refused_with_a_printable_sentence(name: object) -> None:
    with pytest.raises(InvalidInput) as err:
        verify_username(name)
    assert err.value.code == "bad_username"
    err.value.message.encode("ascii")  # no lone surrogate or odd character in the answer


def test_a_login_name_that_no_account_can_have_is_recognised() -> None:
    assert could_be_username("ſam")
    assert not could_be_username("a b")
    assert not could_be_username("\ud800")
    assert not could_be_username("x" * 10_000)


def test_display_name_keys_fold_case_width_and_spacing() -> None:
    keys = {display_key(verify_display_name(n)) for n in ("Mei Lin", "MEI  LIN", "ｍｅｉ ｌｉｎ")}
    assert keys == {"mei lin"}
    assert display_key("Straße") == display_key("STRASSE")


def test_a_display_name_at_the_length_limit_is_accepted_and_one_over_refused() -> None:
    assert verify_display_name("王" * DISPLAY_MAX) == "王" * DISPLAY_MAX
    with pytest.raises(InvalidInput):
        verify_display_name("王" * (DISPLAY_MAX + 1))


@pytest.mark.parametrize("text", ["", " ", "\u3000", "\u200b", 5, None])
def test_an_empty_or_non_text_display_name_is_refused(text: object) -> None:
    with pytest.raises(InvalidInput) as err:
        verify_display_name(text)
    assert err.value.code == "bad_display_name"

"""Accounts, passwords, levels, grants from the mint, and sessions."""

from __future__ import annotations

import pytest

from baccarat.errors import Conflict, InvalidInput, NotFound, RuleViolation
from baccarat.store import Store
from baccarat.store.accounts import password_hasher


def test_a_new_user_starts_with_the_given_level_and_coins(store: Store) -> None:
    user = store.create_user("Mei", "pw", display_name="Mei Lin", level=60, coins=2_500)
    assert (user.username, user.display_name, user.level, user.coins) == (
        "Mei",
        "Mei Lin",
        60,
        2_500,
    )
    assert store.get_user(user.user_id) == user
    assert store.mint_balance() == -2_500


def test_usernames_are_unique_whatever_their_case(store: Store) -> None:
    store.create_user("Mei", "pw")
    with pytest.raises(Conflict) as err:
        store.create_user("mEI", "other")
    assert err.value.code == "name_taken"
    assert store.get_user_by_name("MEI").username == "Mei"
    assert len(store.list_users()) == 1


@pytest.mark.parametrize("name", ["", "has space", "x" * 33, "semi;colon"])
def test_a_malformed_username_is_refused(store: Store, name: str) -> None:
    with pytest.raises(InvalidInput) as err:
        store.create_user(name, "pw")
    assert err.value.code == "bad_username"
    assert store.list_users() == []


def test_negative_opening_coins_are_refused(store: Store) -> None:
    with pytest.raises(InvalidInput) as err:
        store.create_user("Mei", "pw", coins=-1)
    assert err.value.code == "bad_amount"
    assert store.list_users() == []


def test_only_the_right_password_authenticates(store: Store) -> None:
    user = store.create_user("Mei", "correct horse")
    assert store.authenticate("mei", "correct horse") == user
    assert store.authenticate("Mei", "wrong") is None
    assert store.authenticate("nobody", "correct horse") is None


def test_passwords_are_stored_hashed(store: Store) -> None:
    store.create_user("Mei", "correct horse")
    with store.engine.connect() as conn:
        stored = conn.exec_driver_sql("SELECT password_hash FROM users").scalar_one()
    assert "correct horse" not in stored and stored.startswith("$argon2")


def test_set_level_changes_only_the_level(store: Store) -> None:
    store.create_user("Mei", "pw", coins=100)
    user = store.set_level("mei", 70)
    assert (user.level, user.coins) == (70, 100)
    with pytest.raises(InvalidInput):
        store.set_level("mei", -1)
    with pytest.raises(NotFound):
        store.set_level("nobody", 60)


def test_a_grant_comes_from_the_mint_and_can_be_taken_back(store: Store) -> None:
    store.create_user("Mei", "pw")
    assert store.grant("Mei", 1_000, "welcome") == 1_000
    assert store.grant("Mei", -400, "correction") == 600
    assert store.mint_balance() == -600
    assert store.total_coins()["total"] == 0


def test_taking_back_more_than_the_wallet_holds_is_refused(store: Store) -> None:
    store.create_user("Mei", "pw", coins=100)
    with pytest.raises(RuleViolation) as err:
        store.grant("Mei", -101, "correction")
    assert err.value.code == "insufficient_coins"
    assert store.get_user_by_name("Mei").coins == 100


def test_a_grant_with_a_key_happens_once(store: Store) -> None:
    store.create_user("Mei", "pw")
    assert store.grant("Mei", 500, "prize", key="grant:prize-1") == 500
    assert store.grant("Mei", 500, "prize", key="grant:prize-1") == 500
    assert store.mint_balance() == -500


@pytest.mark.parametrize("coins", [0, True])
def test_a_grant_of_no_coins_is_refused(store: Store, coins: int) -> None:
    store.create_user("Mei", "pw")
    with pytest.raises(InvalidInput) as err:
        store.grant("Mei", coins, "nothing")
    assert err.value.code == "bad_amount"


def test_granting_to_an_unknown_user_is_refused(store: Store) -> None:
    with pytest.raises(NotFound) as err:
        store.grant("nobody", 5, "x")
    assert err.value.code == "unknown_user"


def test_a_session_token_finds_its_user_until_deleted(store: Store) -> None:
    user = store.create_user("Mei", "pw")
    token = store.create_session(user.user_id)
    assert store.user_for_session(token) == user
    assert store.user_for_session(token + "x") is None
    store.delete_session(token)
    assert store.user_for_session(token) is None


def test_an_expired_session_finds_nobody(store: Store) -> None:
    user = store.create_user("Mei", "pw")
    token = store.create_session(user.user_id, ttl=-1.0)
    assert store.user_for_session(token) is None


def test_a_session_for_an_unknown_user_is_refused(store: Store) -> None:
    with pytest.raises(NotFound):
        store.create_session(999)


@pytest.mark.parametrize("display", ["", "   ", "x" * 33, "x" * 65])
def test_a_blank_or_long_display_name_is_refused(store: Store, display: str) -> None:
    with pytest.raises(InvalidInput) as err:
        store.create_user("Mei", "pw", display_name=display)
    assert err.value.code == "bad_display_name"
    assert store.list_users() == []


@pytest.mark.parametrize("typed", ["sam", "SAM", "ſam", "ｓａｍ", "Ｓam"])
def test_every_form_of_a_username_with_the_same_canonical_key_finds_one_account(
    store: Store, typed: str
) -> None:
    store.create_user("Sam", "pw")
    assert store.get_user_by_name(typed).username == "Sam"
    assert store.authenticate(typed, "pw") is not None


@pytest.mark.parametrize("name", ["ſam", "ｓａｍ", "sam\u200b", "s\u0430m", "\ud800"])
def test_a_username_outside_the_ascii_set_is_refused_at_registration(
    store: Store, name: str
) -> None:
    with pytest.raises(InvalidInput) as err:
        store.create_user(name, "pw")
    assert err.value.code == "bad_username"
    assert store.list_users() == []


@pytest.mark.parametrize(
    ("display", "shown"),
    [
        ("  Mei   Lin ", "Mei Lin"),  # spaces trimmed and collapsed
        ("Mei\u3000Lin", "Mei Lin"),  # an ideographic space is a space
        ("ＭＥＩ", "MEI"),  # full width folded to ASCII (NFKC)
        ("Zoe\u0308", "Zoë"),  # composed (NFKC output is NFC)
        ("王小明", "王小明"),
        ("Tom & Jerry's", "Tom & Jerry's"),
    ],
)
def test_a_display_name_is_stored_normalised(store: Store, display: str, shown: str) -> None:
    assert store.create_user("Mei", "pw", display_name=display).display_name == shown


@pytest.mark.parametrize(
    "display",
    [
        "Mei\nLin",  # control characters
        "Mei\x00",
        "\u202eieM",  # a bidi override
        "Mei\u2066Lin\u2069",  # a bidi isolate
        "Me\u200bi",  # zero-width space
        "Me\u200di",  # zero-width joiner
        "Mei\ufe0f",  # a variation selector
        "Mei\u00ad",  # a soft hyphen
        "\u3164",  # a Hangul filler (blank)
        "\u2800",  # Braille blank
        "<b>Mei</b>",  # markup
        "Mei\ud800",  # a lone surrogate
        "e\u0301\u0302\u0303\u0304\u0305",  # stacked combining marks
    ],
)
def test_a_display_name_with_control_invisible_or_markup_characters_is_refused(
    store: Store, display: str
) -> None:
    with pytest.raises(InvalidInput) as err:
        store.create_user("Mei", "pw", display_name=display)
    assert err.value.code == "bad_display_name"
    assert err.value.message.startswith("A display name")
    assert store.list_users() == []


@pytest.mark.parametrize("copy", ["mei lin", "MEI LIN", "Mei  Lin", "ＭＥＩ ＬＩＮ"])
def test_display_names_are_unique_under_case_folding(store: Store, copy: str) -> None:
    store.create_user("Mei", "pw", display_name="Mei Lin")
    with pytest.raises(Conflict) as err:
        store.create_user("impostor", "pw", display_name=copy)
    assert err.value.code == "display_name_taken"
    assert [u.username for u in store.list_users()] == ["Mei"]


def test_a_username_that_is_someones_display_name_needs_another_display_name(
    store: Store,
) -> None:
    store.create_user("first", "pw", display_name="Straße")
    with pytest.raises(Conflict) as err:
        store.create_user("STRASSE", "pw")
    assert err.value.code == "display_name_taken"
    assert store.create_user("STRASSE", "pw", display_name="Mr S").display_name == "Mr S"


def test_a_hash_with_older_parameters_verifies_and_is_replaced_at_login(store: Store) -> None:
    from argon2 import PasswordHasher

    old = PasswordHasher(time_cost=1, memory_cost=2048, parallelism=2)
    user = store.create_user("Mei", "pw")
    with store.engine.begin() as conn:
        conn.exec_driver_sql(
            "UPDATE users SET password_hash = %s WHERE id = %s"
            if store.backend == "postgresql"
            else "UPDATE users SET password_hash = ? WHERE id = ?",
            (old.hash("secret"), user.user_id),
        )
    upgraded = type(store)(store.url, hasher=password_hasher())
    try:
        assert upgraded.authenticate("mei", "wrong") is None
        assert upgraded.authenticate("mei", "secret") is not None
        with store.engine.connect() as conn:
            stored = conn.exec_driver_sql("SELECT password_hash FROM users").scalar_one()
        assert stored.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
        assert upgraded.authenticate("mei", "secret") is not None
    finally:
        upgraded.close()


def test_the_squeeze_preference_is_remembered_per_user(store: Store) -> None:
    alice = store.create_user("alice_pref", "password1")
    bob = store.create_user("bob_pref", "password1")
    assert store.auto_open(alice.user_id) is False
    store.set_auto_open(alice.user_id, True)
    store.set_auto_open(alice.user_id, True)
    assert (store.auto_open(alice.user_id), store.auto_open(bob.user_id)) == (True, False)
    store.set_auto_open(alice.user_id, False)
    assert store.auto_open(alice.user_id) is False

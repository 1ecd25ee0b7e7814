"""Reconciliation's comparison and the calls' signature, as pure functions."""

from __future__ import annotations

import pytest

from baccarat.errors import InvalidInput
from baccarat.platform import signing
from baccarat.platform.report import (
    Entry,
    differences,
    net_entries,
    platform_entries,
    platform_transactions,
)


def test_every_kind_of_difference_inside_the_period_is_named_and_nothing_outside() -> None:
    game = [
        Entry("a", "u1", 100, 50.0),
        Entry("b", "u1", 100, 50.0),
        Entry("c", "u1", 100, 50.0),
        Entry("d", "u1", 100, 50.0),
        Entry("late", "u1", 100, 150.0),
    ]
    platform = [
        Entry("a", "u1", 100, 49.0),
        Entry("b", "u2", 100, 49.0),
        Entry("c", "u1", -100, 49.0),
        Entry("e", "u1", 100, 51.0),
    ]
    found = {d.transfer_id: d.kind for d in differences(game, platform, 0.0, 100.0)}
    assert found == {
        "b": "user_differs",
        "c": "amount_differs",
        "d": "missing_at_platform",
        "e": "missing_in_game",
    }


def test_a_malformed_report_is_refused() -> None:
    with pytest.raises(InvalidInput):
        platform_entries({"transfers": [{"transfer_id": "a", "user": "u", "amount": 1.5}]})


def test_a_signature_covers_the_body_and_the_path() -> None:
    headers = signing.sign(b"s" * 16, 1000.0, "POST", "/api/platform/transfers", b"{}")
    signing.verify(b"s" * 16, 1000.0, headers, "POST", "/api/platform/transfers", b"{}")
    for path, body in (("/api/platform/transfers", b"{ }"), ("/api/platform/balance", b"{}")):
        with pytest.raises(InvalidInput) as err:
            signing.verify(b"s" * 16, 1000.0, headers, "POST", path, body)
        assert err.value.code == "bad_signature"


def test_a_seamless_difference_is_named_by_round_and_user_not_as_a_transfer() -> None:
    ours = net_entries([("r:1", "u:9", -500, 10.0), ("r:1", "u:9", 1000, 11.0)])
    theirs = platform_transactions(
        {"transactions": [{"transaction_id": "r:1:5:debit", "round_id": "r:1", "user": "u:9",
                           "amount": -500, "created_at": 10.5}]}
    )  # fmt: skip
    (found,) = differences(ours, theirs, 0.0, 100.0)
    assert found.json() == {
        "round_id": "r:1",
        "user": "u:9",
        "kind": "amount_differs",
        "game": {"user": "u:9", "amount": 500, "at": 10.0},
        "platform": {"user": "u:9", "amount": -500, "at": 10.5},
    }
    assert found.line().startswith("round r:1 of u:9: amount_differs: ")
    transfer = differences([Entry("t1", "u1", 5, 1.0)], [], 0.0, 100.0)[0].json()
    assert transfer["transfer_id"] == "t1" and "round_id" not in transfer

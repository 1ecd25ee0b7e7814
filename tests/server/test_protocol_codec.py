"""JSON on the wire: strict, bounded reading; writing that always encodes as UTF-8."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.errors import InvalidInput
from baccarat.protocol.codec import MAX_DEPTH, depth, dumps, loads, loads_own

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    # Beyond 64 bits orjson reads an integer as a float (the protocol's ids stop at 2**53).
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@pytest.mark.parametrize(
    "text",
    [
        "[" * 1000 + "]" * 1000,
        "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
        '{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1),
        "[" * 100_000,
        r'{"id":"\ud800"}',
        r'{"\udfff":1}',
        r'["\udc00\ud800"]',
        '{"id":NaN}',
        '{"id":Infinity}',
        '{"id":-Infinity}',
        '{"id":1e400}',
        '{"id":' + "9" * 5000 + "}",
        "{'id':1}",
        "",
        b"\xff\xfe",
        b'{"id":"\xed\xa0\x80"}',
    ],
)
def test_hostile_json_is_a_bad_message(text: str | bytes) -> None:
    with pytest.raises(InvalidInput) as err:
        loads(text)
    assert err.value.code == "bad_message"
    assert err.value.message


def test_nesting_up_to_the_bound_is_read() -> None:
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert depth(loads(text)) == MAX_DEPTH
    assert loads(r'"\ud83d\ude00"') == "\U0001f600"


@given(JSON_VALUES)
def test_any_json_up_to_the_bound_reads_back_the_same(value: Any) -> None:
    text = json.dumps(value)
    if depth(value) > MAX_DEPTH:
        with pytest.raises(InvalidInput):
            loads(text)
    else:
        assert loads(text) == json.loads(text)


@given(JSON_VALUES | st.text(alphabet=st.characters(codec=None)))
def test_whatever_is_written_encodes_as_utf8_and_reads_as_json(value: Any) -> None:
    message = {"type": "error", "id": value, "echo": [value]}
    text = dumps(message)
    text.encode("utf-8")
    assert json.loads(text)["type"] == "error"


def test_a_lone_surrogate_is_written_as_the_replacement_character() -> None:
    assert dumps({"id": "a\ud800b"}) == '{"id":"a\ufffdb"}'
    assert dumps({"name": "阿明"}) == '{"name":"阿明"}'


def test_own_json_reads_back_what_dumps_wrote_and_refuses_what_is_not_json() -> None:
    line = {"table_id": "t1", "beads": [{"winner": "banker"}] * 3, "names": {"zh-TW": "龍"}}
    assert loads_own(dumps(line)) == line
    with pytest.raises(InvalidInput) as err:
        loads_own('{"table_id": ')
    assert err.value.code == "bad_message"

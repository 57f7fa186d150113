"""engine/jsontext.py: the fast codec gives back exactly what the standard library would."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from engine import jsontext

_scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text()
_floats = st.floats(allow_nan=False, allow_infinity=False)
_json = st.recursive(
    _scalars | _floats,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text() | st.integers(-100, 100), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(_json)
def test_copy_and_round_trip_equal_the_standard_library(value: Any) -> None:
    expected = json.loads(json.dumps(value))  # int keys to strings, tuples to lists
    assert jsontext.copy(value) == expected
    assert jsontext.loads(jsontext.dumps(value)) == expected
    assert jsontext.loads(json.dumps(value)) == expected  # stored before: still read
    assert json.loads(jsontext.dumpb(value)) == expected  # stored now: the stdlib reads it


def test_key_order_is_kept() -> None:
    # An engine may depend on its dicts' order (Attila reveals conflict cards in commit order).
    value = {"z": 1, "a": 2, "m": {"3": 0, "1": 0}}
    assert list(jsontext.copy(value)) == ["z", "a", "m"]
    assert list(jsontext.copy(value)["m"]) == ["3", "1"]

"""Reading whole numbers from text that anyone may have sent."""

from __future__ import annotations

import re

#: A whole number as text in a query string or a form: ASCII digits with an optional minus,
#: at most 18 of them. ``int()`` also reads " 10", "+10", "1_0" and other scripts' digits.
WHOLE_NUMBER = re.compile(r"-?[0-9]{1,18}")


def is_ascii_digits(text: str) -> bool:
    """``text`` is one or more of 0-9. ``str.isdigit()`` alone also takes ``²`` and other
    Unicode digits, which ``int()`` refuses (a 500) or reads as a number no client meant."""
    return text.isascii() and text.isdigit()


def whole_number(text: str) -> int | None:
    """``text`` read as ``WHOLE_NUMBER``: the integer, or None for anything else. The API's
    integer query parameters (service/http/schemas/common.py ``QueryInteger``) and the web
    forms' numbers are read by this one rule."""
    return int(text) if WHOLE_NUMBER.fullmatch(text) else None

"""Reading whole numbers from text that anyone may have sent."""

from __future__ import annotations


def is_ascii_digits(text: str) -> bool:
    """``text`` is one or more of 0-9. ``str.isdigit()`` alone also takes ``²`` and other
    Unicode digits, which ``int()`` refuses (a 500) or reads as a number no client meant."""
    return text.isascii() and text.isdigit()

"""The marker of translatable English (``N_``) and a template's two forms (``Plural``).

Imports nothing, so that every engine module can mark its sentences, engine.core too (its
refusals are said in a mail-in player's language, workers/mailin.py). engine.sentences, which
fills templates, re-exports both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import overload


@dataclass(frozen=True)
class Plural:
    """A template in its singular and plural form; ``count`` picks one (as ngettext does)."""

    one: str
    other: str

    def pick(self, count: int) -> str:
        return self.one if count == 1 else self.other


@overload
def N_(one: str) -> str: ...
@overload
def N_(one: str, other: str) -> Plural: ...
def N_(one: str, other: str | None = None) -> str | Plural:
    """Marks a template for extraction (babel.cfg: keyword ``N_:1`` and ``N_:1,2``); two
    arguments make a ``Plural``. Translates nothing itself."""
    return one if other is None else Plural(one, other)

"""What every game's ``describe`` shares: templates with named placeholders, plural forms
chosen by a count, and the reader-facing name of a seat.

A sentence is always one whole template (``"{player} placed a {people} in {province}."``)
filled with values, never pieced together from fragments: a translator (issue #15, gettext)
must see the whole sentence to reorder it. Where the wording depends on a number, a
``Plural`` holds the singular and the plural template, like ``ngettext``. A list of names
(peoples, hexes, cards) is one value, joined by ``join``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import Event


@dataclass(frozen=True)
class Plural:
    """A template in its singular and plural form; ``count`` picks one (as ngettext does)."""

    one: str
    other: str

    def pick(self, count: int) -> str:
        return self.one if count == 1 else self.other


Template = str | Plural
#: Turns one event into a sentence; the describers of a game are keyed by event kind.
Describer = Callable[[Event, Sequence[str]], str]


def fill(template: Template, count: int | None = None, **values: Any) -> str:
    """The sentence: ``template`` (its form for ``count`` if plural) with ``values`` filled."""
    if isinstance(template, Plural):
        if count is None:
            raise ValueError("a plural template needs a count")
        return template.pick(count).format(count=count, **values)
    return template.format(**values)


def player(names: Sequence[str], seat: int) -> str:
    """The name the readers know a seat by; a seat without a name still reads as a person."""
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"Player {seat + 1}"


def join(items: Iterable[str]) -> str:
    """Several names as one placeholder value."""
    return ", ".join(items)


def describe_with(
    describers: Mapping[str, Describer],
    silent: frozenset[str],
    event: Event,
    names: Sequence[str],
) -> str | None:
    """The sentence for ``event`` from a game's table of describers; None for its silent
    kinds and for kinds it does not know (a newer engine's events in an older reader)."""
    if event.kind in silent:
        return None
    if event.kind == "game_ended" and "resigned" in event.data.get("reasons", ()):
        return _won_by_resignation(event, names)
    describer = describers.get(event.kind) or SEAT_DESCRIBERS.get(event.kind)
    return None if describer is None else describer(event, names)


#: The events every game shares (engine/core.py: resigning and coming back).
SEAT_TEMPLATES: dict[str, Template] = {
    "resigned": "{player} resigned.",
    "resigned.forfeit": "{player} forfeited the game after missing deadlines.",
    "rejoined": "{player} took over the seat and plays on.",
    "game_ended.resigned": "The game is over: {winners} won, everyone else having resigned.",
}


def _resigned(event: Event, names: Sequence[str]) -> str:
    key = "resigned.forfeit" if event.data.get("forfeit") else "resigned"
    return fill(SEAT_TEMPLATES[key], player=player(names, int(event.data["seat"])))


def _rejoined(event: Event, names: Sequence[str]) -> str:
    return fill(SEAT_TEMPLATES["rejoined"], player=player(names, int(event.data["seat"])))


def _won_by_resignation(event: Event, names: Sequence[str]) -> str:
    winners = join(player(names, int(s)) for s in event.data["winners"])
    return fill(SEAT_TEMPLATES["game_ended.resigned"], winners=winners)


SEAT_DESCRIBERS: Mapping[str, Describer] = {"resigned": _resigned, "rejoined": _rejoined}

"""What every game's ``describe`` shares: templates with named placeholders, plural forms
chosen by a count, and the reader-facing name of a seat.

A sentence is always one whole template (``"{player} placed a {people} in {province}."``)
filled with values, never pieced together from fragments: a translator (issue #15, gettext)
must see the whole sentence to reorder it. Where the wording depends on a number, a
``Plural`` holds the singular and the plural template, like ``ngettext``. A list of names
(peoples, hexes, cards) is one value, joined by ``join``.

Languages (docs/i18n.md): the engine speaks English and knows no catalog. A caller that wants
another language passes a ``Translator`` to ``describe``; while that call runs, ``fill``
hands each template to it and ``word`` each data word (a people, a province, a building), so
the describers themselves stay as they are. Templates are marked for extraction with the
no-op ``N_`` (babel.cfg lists it as a keyword), and ``Plural`` forms as ``N_(one, other)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from engine.core import Event, Translator
from engine.translatable import N_ as N_  # re-exported: the describers import it from here
from engine.translatable import Plural

Template = str | Plural


#: The translator of the describe call running now (None: English). A context variable, so
#: threads and greenlets describing in different languages at once do not mix.
_TRANSLATOR: ContextVar[Translator | None] = ContextVar("engine_translator", default=None)


@contextmanager
def translating(words: Translator | None) -> Iterator[None]:
    """Within this block ``fill`` and ``word`` use ``words``."""
    token = _TRANSLATOR.set(words)
    try:
        yield
    finally:
        _TRANSLATOR.reset(token)


def word(english: str) -> str:
    """A data word in the language of the describe call running now."""
    words = _TRANSLATOR.get()
    return english if words is None else words.word(english)


#: Turns one event into a sentence; the describers of a game are keyed by event kind.
Describer = Callable[[Event, Sequence[str]], str]


def fill(template: Template, count: int | None = None, **values: Any) -> str:
    """The sentence: ``template`` (its form for ``count`` if plural) with ``values`` filled."""
    words = _TRANSLATOR.get()
    if isinstance(template, Plural):
        if count is None:
            raise ValueError("a plural template needs a count")
        if words is not None:
            return words.plural(template.one, template.other, count).format(count=count, **values)
        return template.pick(count).format(count=count, **values)
    text = template if words is None else words.text(template)
    return text.format(**values)


def player(names: Sequence[str], seat: int) -> str:
    """The name the readers know a seat by; a seat without a name still reads as a person."""
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return fill(SEAT_TEMPLATES["player"], number=seat + 1)


class Words(dict[str, str]):
    """A table of data words (id -> English name) that answers in the language of the
    describe call running now."""

    def __getitem__(self, key: str) -> str:
        return word(super().__getitem__(key))

    def get(self, key: str, default: Any = None) -> Any:
        return word(super().__getitem__(key)) if key in self else default


def join(items: Iterable[str]) -> str:
    """Several names as one placeholder value."""
    return ", ".join(items)


def describe_with(
    describers: Mapping[str, Describer],
    silent: frozenset[str],
    event: Event,
    names: Sequence[str],
    words: Translator | None = None,
) -> str | None:
    """The sentence for ``event`` from a game's table of describers; None for its silent
    kinds and for kinds it does not know (a newer engine's events in an older reader).
    ``words``: the reader's language (None: English)."""
    with translating(words):
        return _describe(describers, silent, event, names)


def _describe(
    describers: Mapping[str, Describer], silent: frozenset[str], event: Event, names: Sequence[str]
) -> str | None:
    if event.kind in silent:
        return None
    if event.kind == "game_ended" and "resigned" in event.data.get("reasons", ()):
        return _won_by_resignation(event, names)
    describer = describers.get(event.kind) or SEAT_DESCRIBERS.get(event.kind)
    return None if describer is None else describer(event, names)


#: The events every game shares (engine/core.py: resigning and coming back).
SEAT_TEMPLATES: dict[str, Template] = {
    "resigned": N_("{player} resigned."),
    "resigned.forfeit": N_("{player} forfeited the game after missing deadlines."),
    "rejoined": N_("{player} took over the seat and plays on."),
    "game_ended.resigned": N_("The game is over: {winners} won, everyone else having resigned."),
    "player": N_("Player {number}"),
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

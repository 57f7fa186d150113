"""The languages a player reads Kurier in (issue #15): gettext catalogs, read at run time.

English is the source language: every msgid is the English text, so English needs no
catalog. Each other language is one file, ``service/translations/<lang>/LC_MESSAGES/
messages.po``, parsed with Babel when first asked for and compiled in memory (no ``.mo`` file
is committed or written). ``translations(lang)`` is the gettext object for a language;
``gettext``/``ngettext``/``word`` need no Flask request, so a worker writing a mail calls
them with the player's ``language`` preference; code deep in a call (pictures, a mail's
templates: ``install_jinja``) runs inside ``speaking(lang)`` and calls ``say``/``say_n``.
The web pages use the same objects through Flask-Babel (service/http/web/__init__.py).
docs/i18n.md: how to add a string or a language.

Also here: the engine's translate hook (``EngineWords``, the ``Translator`` of
engine/core.py) and Babel extractors for the engine's data files and the game options.
"""

from __future__ import annotations

import functools
import gettext as stdlib_gettext
import io
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

#: Every language a player may choose; the first is the default and the source language.
LANGUAGES: tuple[str, ...] = ("en", "de")
DEFAULT = "en"
#: Each language's own name, for the settings page's select ("English", "Deutsch"), from
#: Babel's locale data (capitalised: Babel spells "italiano", "français").
NAMES: Mapping[str, str] = {
    lang: str(Locale.parse(lang).get_display_name(lang)).capitalize() for lang in LANGUAGES
}
CATALOGS = Path(__file__).parents[1] / "translations"


def catalog_path(lang: str) -> Path:
    return CATALOGS / lang / "LC_MESSAGES" / "messages.po"


@functools.cache
def translations(lang: str) -> stdlib_gettext.NullTranslations:
    """The gettext translations of ``lang`` (identity for English and unknown languages).

    Babel's classes (subclasses of the standard library's) so Flask-Babel's Jinja hooks
    (``ugettext``) work on them too. Empty and fuzzy entries fall back to the English msgid.
    """
    path = catalog_path(lang)
    if lang == DEFAULT or lang not in LANGUAGES or not path.exists():
        return NullTranslations()
    with path.open("rb") as po:
        catalog = read_po(po, locale=lang)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return Translations(fp=compiled)


def language(value: object) -> str:
    """``value`` if it is a language we have, else the default (a stored preference may be
    missing or from an older version)."""
    return value if isinstance(value, str) and value in LANGUAGES else DEFAULT


def negotiate(accept_language: str | None) -> str:
    """The best of ``LANGUAGES`` for an HTTP Accept-Language header (RFC 9110 quality
    values; ``de-AT`` counts as ``de``); the default when none matches."""
    best, best_q = DEFAULT, 0.0
    for position, part in enumerate((accept_language or "").split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        lang = tag.strip().lower().split("-")[0]
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        # Earlier entries win ties (the header's order is the client's preference).
        q -= position * 1e-6
        if lang in LANGUAGES and q > best_q:
            best, best_q = lang, q
    return best


def gettext(lang: str, message: str, **values: Any) -> str:
    """``message`` in ``lang``; ``values`` fill ``%(name)s`` placeholders (as Flask-Babel)."""
    text = translations(language(lang)).gettext(message)
    return text % values if values else text


def ngettext(lang: str, singular: str, plural: str, count: int, **values: Any) -> str:
    """The form of ``singular``/``plural`` for ``count`` in ``lang``; ``%(num)d`` is the
    count (as Flask-Babel) and ``values`` fill other ``%(name)s`` placeholders."""
    text = translations(language(lang)).ngettext(singular, plural, count)
    return text % {"num": count, **values}


def word(lang: str, english: str) -> str:
    """A data word (a people, province, building...) in ``lang``."""
    return translations(language(lang)).gettext(english)


# -- the language of a block of code (pictures) --------------------------------------------------

#: The language ``speaking`` set for the code running now (threads and greenlets apart).
_SPOKEN: ContextVar[str] = ContextVar("kurier_language", default=DEFAULT)


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Within this block ``say``, ``say_n`` and ``say_word`` speak ``lang``: for code deep in
    a call (the pictures' labels and legends) that should not pass the language down."""
    token = _SPOKEN.set(language(lang))
    try:
        yield
    finally:
        _SPOKEN.reset(token)


def spoken() -> str:
    """The language ``speaking`` set (the default outside any)."""
    return _SPOKEN.get()


def say(message: str, **values: Any) -> str:
    """``gettext`` in the spoken language (import it as ``_`` so Babel extracts it)."""
    return gettext(_SPOKEN.get(), message, **values)


def say_n(singular: str, plural: str, count: int, **values: Any) -> str:
    """``ngettext`` in the spoken language (import it as ``ngettext`` for extraction)."""
    return ngettext(_SPOKEN.get(), singular, plural, count, **values)


def say_word(english: str) -> str:
    """A data word in the spoken language."""
    return word(_SPOKEN.get(), english)


def install_jinja(env: Any) -> None:
    """Give a Jinja environment (a mail's templates) the i18n extension in its newstyle form
    (``{{ _("Hello %(name)s", name=n) }}``, autoescaped values), speaking the language of
    ``speaking``: install once, then render inside ``with i18n.speaking(lang):``. Safe with
    threads and greenlets (the language is a context variable, not the environment's)."""
    env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(
        gettext=lambda message: translations(_SPOKEN.get()).gettext(message),
        ngettext=lambda one, other, n: translations(_SPOKEN.get()).ngettext(one, other, n),
        newstyle=True,
    )


class EngineWords:
    """The engine's translate hook (engine.sentences.Translator) for one language:
    ``describe(event, names, EngineWords("de"))``."""

    def __init__(self, lang: str) -> None:
        self.lang = language(lang)
        self._t = translations(self.lang)

    def text(self, template: str) -> str:
        return self._t.gettext(template)

    def plural(self, one: str, other: str, count: int) -> str:
        return self._t.ngettext(one, other, count)

    def word(self, english: str) -> str:
        return self._t.gettext(english)


@functools.cache
def engine_words(lang: str) -> EngineWords | None:
    """The hook for ``lang``; None for English (the engine's own words)."""
    lang = language(lang)
    return None if lang == DEFAULT else EngineWords(lang)


def spoken_words() -> EngineWords | None:
    """The engine's hook for the language ``speaking`` set (None: English)."""
    return engine_words(_SPOKEN.get())


# -- extraction (babel.cfg) ---------------------------------------------------------------------

#: The keys of the engine's data files whose values are names a sentence or picture shows
#: (``en``: the wargame's combat cards; ``label``: its unit types "Western legion, cavalry",
#: said in two parts, and Attila's sea crossings).
NAME_KEYS = frozenset({"name", "name_en", "en", "label"})

#: Extraction keywords besides Babel's defaults (the Makefile's ``-k`` options say the same):
#: the engine's no-op marker, a template with one argument and a Plural with two (three when
#: the call ends in a comma: Babel counts the empty argument).
KEYWORDS: dict[str, Any] = {"N_": {1: (1,), 2: (1, 2), 3: (1, 2)}}


def extract_data_words(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Mapping[str, Any]
) -> Iterator[tuple[int, str, str, list[str]]]:
    """A Babel extractor for an engine data file: every English name (``name``,
    ``name_en``) as a message (the parenthesis of "Leo I (Pope)" dropped, as describe
    does). Names and sentences share one catalog: a name spelt like a sentence reads the same."""
    seen: set[str] = set()
    for name in _names(json.load(fileobj)):
        for text in name.split(" (")[0].split(", "):
            # Digits and capitals are codes (hex numbers, compass points, data provenance).
            if text and not text.isdigit() and not text.isupper() and text not in seen:
                seen.add(text)
                yield 0, "gettext", text, []


def _names(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in NAME_KEYS and isinstance(item, str):
                yield item
            else:
                yield from _names(item)
    elif isinstance(value, list):
        for item in value:
            yield from _names(item)


def extract_game_options(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Mapping[str, Any]
) -> Iterator[tuple[int, str, str, list[str]]]:
    """A Babel extractor (babel.cfg points it at engine/registry.py, whose text it ignores):
    what the lobby shows of each game type: its title, and each rule option a creator may
    change with its description and its choices as the page labels them."""
    from engine.registry import game_ids, get_game  # only when extracting

    seen: set[str] = set()
    for type_id in game_ids():
        game = get_game(type_id)
        texts = [game.title]
        for spec in game.options:
            if len(spec.choices) > 1:
                texts.append(spec.description)
                texts += [choice_label(c) for c in spec.choices if isinstance(c, str)]
        for text in texts:
            if text and text not in seen:
                seen.add(text)
                yield 0, "gettext", text, []


def choice_label(choice: object) -> str:
    """A rule option's choice as the lobby labels it (before translation)."""
    if isinstance(choice, bool):
        return "yes" if choice else "no"
    return str(choice).replace("_", " ")

"""Languages (issue 15, docs/i18n.md): every string the sources mark has its German
translation, with the same placeholders; the engine's sentences speak the German rulebooks'
terms; a page is German for a German browser, and a player's preference wins over it."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import jinja2
import pytest
import requests
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from engine.attika import describe as attika_words
from engine.attila import describe as attila_words
from engine.attila_wargame import describe as wargame_words
from engine.core import Event
from engine.registry import get_game
from engine.sentences import SEAT_TEMPLATES, Plural
from service import pictures
from service.common import i18n
from tests.client import Kurier

ROOT = Path(__file__).resolve().parent.parent
#: The languages that have a catalog (English is the source language).
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]
PLACEHOLDER = re.compile(r"\{(\w*)\}|%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[sdfr]")


def extracted() -> dict[str | tuple[str, ...], list[str]]:
    """Every message the sources mark (babel.cfg, the Makefile's keywords) -> where. A message
    in a context (``pgettext``) is ``context\x04message``, as gettext keys it."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[str | tuple[str, ...], list[str]] = {}
    keywords = {**DEFAULT_KEYWORDS, **i18n.KEYWORDS}
    for filename, lineno, message, _comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=keywords
    ):
        key = tuple(message) if isinstance(message, list | tuple) else message
        key = f"{context}\x04{key}" if context and isinstance(key, str) else key
        found.setdefault(key, []).append(f"{filename}:{lineno}")
    return found


@pytest.fixture(scope="module")
def sources() -> dict[str | tuple[str, ...], list[str]]:
    return extracted()


def catalog(lang: str) -> Catalog:
    with i18n.catalog_path(lang).open("rb") as po:
        return read_po(po, locale=lang)


def forms(message: Message) -> list[tuple[str, str]]:
    """(msgid, msgstr) pairs: one for a message, one per form for a plural (German and
    English both have two; a language with more compares its extra forms to the plural)."""
    if isinstance(message.id, list | tuple):
        strings = list(message.string) if isinstance(message.string, list | tuple) else []
        return [(message.id[min(i, 1)], s) for i, s in enumerate(strings)] or [(message.id[0], "")]
    return [(message.id, message.string if isinstance(message.string, str) else "")]


def placeholders(text: str) -> set[str]:
    return {a or b for a, b in PLACEHOLDER.findall(text)}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_marked_string_has_a_translation(
    lang: str, sources: dict[str | tuple[str, ...], list[str]]
) -> None:
    translated = catalog(lang)
    missing = []
    for key, where in sorted(sources.items(), key=lambda item: str(item[0])):
        context, _, msgid = key.rpartition("\x04") if isinstance(key, str) else ("", "", key[0])
        message = translated.get(msgid, context=context or None)
        if (
            message is None
            or message.fuzzy
            or (isinstance(key, tuple) and not isinstance(message.id, list | tuple))
            or not all(s.strip() for _id, s in forms(message))
        ):
            missing.append(f"{key!r} ({where[0]})")
    assert not missing, (
        f"{len(missing)} strings lack a {lang} translation (make translations, then translate "
        f"them in {i18n.catalog_path(lang).relative_to(ROOT)}):\n" + "\n".join(missing)
    )


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_keep_the_placeholders(lang: str) -> None:
    wrong = [
        f"{msgid!r} -> {msgstr!r}"
        for message in catalog(lang)
        if message.id
        for msgid, msgstr in forms(message)
        if msgstr and placeholders(msgid) != placeholders(msgstr)
    ]
    assert not wrong, "placeholders differ:\n" + "\n".join(wrong)


def test_the_placeholder_check_can_fail() -> None:
    assert placeholders("{player} zog {count} Karten.") != placeholders("{player} drew cards.")
    assert placeholders("Fehler %(status)s.") == placeholders("Error %(status)s.")


def test_every_engine_template_is_marked(sources: dict[str | tuple[str, ...], list[str]]) -> None:
    """A template not wrapped in N_ would never reach the catalog (and read English)."""
    tables = [
        SEAT_TEMPLATES,
        attila_words.TEMPLATES,
        attika_words.TEMPLATES,
        wargame_words.TEMPLATES,
        attila_words.PEOPLE_SINGULAR,
    ]
    unmarked = [
        template
        for table in tables
        for template in table.values()
        if ((template.one, template.other) if isinstance(template, Plural) else template)
        not in sources
    ]
    assert not unmarked


# -- the machinery ------------------------------------------------------------------------------


def test_the_browser_language_is_negotiated() -> None:
    assert i18n.negotiate("de-DE,de;q=0.9,en;q=0.8") == "de"
    assert i18n.negotiate("fr, de-AT;q=0.8, en;q=0.5") == "de"
    assert i18n.negotiate("en-GB,de;q=0.9") == "en"
    assert i18n.negotiate("fr, it") == i18n.DEFAULT
    assert i18n.negotiate("de;q=0, en;q=0.1") == "en"
    assert i18n.negotiate("") == i18n.negotiate(None) == i18n.DEFAULT
    assert i18n.negotiate("de;q=oops, en") == "en"


def test_a_mail_template_speaks_the_language_it_is_rendered_in() -> None:
    """What the notification mails' templates get (workers, no Flask): install once, render
    in each reader's language."""
    env = jinja2.Environment(autoescape=True)
    i18n.install_jinja(env)
    template = env.from_string(
        '{{ _("Error %(status)s.", status=code) }} {{ ngettext("%(num)d day", "%(num)d days", n) }}'
    )
    with i18n.speaking("de"):
        assert template.render(code="<b>", n=3) == "Fehler &lt;b&gt;. 3 Tagen"
    assert template.render(code=404, n=1) == "Error 404. 1 day"


def test_helpers_work_without_a_request() -> None:
    """What a worker calls: no Flask app, no request."""
    assert i18n.gettext("de", "Saved.") == "Gespeichert."
    assert i18n.gettext("en", "Saved.") == "Saved."
    assert i18n.gettext("xx", "Saved.") == "Saved."  # unknown: English
    assert i18n.gettext("de", "Error %(status)s.", status=404) == "Fehler 404."
    assert i18n.ngettext("de", "%(num)d day", "%(num)d days", 1) == "1 Tag"
    assert i18n.ngettext("de", "%(num)d day", "%(num)d days", 3) == "3 Tagen"
    assert i18n.word("de", "Franks") == "Franken"
    assert i18n.gettext("de", "not a string anyone marked") == "not a string anyone marked"


# -- the engine's sentences ---------------------------------------------------------------------


def test_german_sentences_use_the_rulebooks_terms() -> None:
    attila = get_game("attila")
    de = i18n.engine_words("de")
    assert i18n.engine_words("en") is None
    placed = Event("stone_placed", {"seat": 0, "people": "franks", "province": "BEL"})
    assert attila.describe(placed, ["Bruno"]) == "Bruno placed a Frank in Belgica."
    german = attila.describe(placed, ["Bruno"], de)
    assert german is not None and german.startswith("Bruno setzte einen Franken nach ")
    conflict = Event("conflict_started", {"province": "BEL", "peoples": ["huns", "goths"]})
    assert "Hunnen, Goten" in str(attila.describe(conflict, [], de))
    pacified_event = Event("province_pacified", {"province": "BEL", "century": 5})
    pacified = attila.describe(pacified_event, [], de)
    assert "befriedet (5. Jahrhundert)" in str(pacified)
    for people in ("saxons", "teutons", "vandals"):
        raised = Event("influence_raised", {"seat": 1, "people": people, "steps": 2, "field": 4})
        text = str(attila.describe(raised, ["A"], de))
        assert text.startswith("Spieler 2 ging 2 Schritte Einfluss bei den ")
        assert any(term in text for term in ("Sachsen", "Teutonen", "Vandalen"))
    # English again right after: the language is the call's, not left behind.
    assert attila.describe(placed, ["Bruno"]) == "Bruno placed a Frank in Belgica."


def test_attika_names_buildings_in_german() -> None:
    attika = get_game("attika")
    de = i18n.engine_words("de")
    building = attika.board.buildings[0]
    built = Event(
        "building_built",
        {
            "seat": 0,
            "building": building.id,
            "hex": "2,3",
            "free": [],
            "paid": ["a", "b"],
            "new_settlement": False,
        },
    )
    text = str(attika.describe(built, ["Ada"], de))
    assert text.startswith("Ada baute das Gebäude ") and building.name_de in text, text
    tile = str(attika.describe(Event("tile_placed", {"seat": 0, "hex": "1,1"}), ["Ada"], de))
    assert tile == "Ada legte eine Landschaft an Feld 1,1."


# -- the API and the pages ----------------------------------------------------------------------


def test_the_language_preference_over_the_api(base_url: str) -> None:
    api = Kurier(base_url)
    player = api.new_player("Greta")
    assert api.call("GET", "/v1/me", player).json()["language"] == "en"
    bad = api.call("PATCH", "/v1/me", player, json={"language": "klingon"})
    assert bad.status_code == 422
    assert bad.headers["Content-Type"] == "application/problem+json"
    good = api.call("PATCH", "/v1/me", player, json={"language": "de"})
    assert good.status_code == 200 and good.json()["language"] == "de"
    assert api.call("GET", "/v1/me", player).json()["language"] == "de"
    # The API itself stays English: titles and codes.
    again = api.call("PATCH", "/v1/me", player, json={"language": "xx"})
    assert again.json()["title"] == bad.json()["title"] and "Fehler" not in again.text


def test_a_german_browser_gets_the_german_sign_in_page(base_url: str) -> None:
    german = requests.get(base_url + "/", headers={"Accept-Language": "de-DE,de;q=0.9"}, timeout=10)
    assert german.status_code == 200
    assert '<html lang="de">' in german.text
    assert "Schick mir einen Anmeldelink" in german.text and "Anmelden" in german.text
    # The script's words (countdowns, commitment checks) ride on <body>.
    assert 'data-w-left="noch %s"' in german.text and 'data-w-passed="abgelaufen"' in german.text
    english = requests.get(base_url + "/", headers={"Accept-Language": "en-US"}, timeout=10)
    assert "Mail me a sign-in link" in english.text and "Anmelden" not in english.text
    missing = requests.get(
        f"{base_url}/games/0000000000000000",
        headers={"Accept": "text/html", "Accept-Language": "de"},
        timeout=10,
    )
    assert missing.status_code == 404 and "Diese Seite oder dieses Spiel" in missing.text


def test_the_players_language_wins_over_the_browser(base_url: str) -> None:
    api = Kurier(base_url)
    player = api.new_player("Hanna")
    web = requests.Session()
    signed = web.post(base_url + "/signin/token", data={"token": player.token}, timeout=10)
    assert signed.status_code == 200 and "Your games" in signed.text
    assert api.call("PATCH", "/v1/me", player, json={"language": "de"}).status_code == 200
    lobby = web.get(base_url + "/", headers={"Accept-Language": "en-US,en"}, timeout=10)
    assert "Deine Spiele" in lobby.text and "Your games" not in lobby.text
    # The game types and their rule options, from the engines, in German too.
    assert "Attila (das Kriegsspiel)" in lobby.text and "zufällig aus dem Seed" in lobby.text
    settings = web.get(base_url + "/settings", headers={"Accept-Language": "en"}, timeout=10)
    assert "Einstellungen" in settings.text
    assert '<option value="de" selected>Deutsch</option>' in settings.text
    # The fewer-mails block too (it was English on a German page).
    assert "Ruhezeit von" in settings.text and "Quiet hours from" not in settings.text
    # Chosen back on the settings page: English again, whatever the browser says.
    csrf = re.search(r'name="csrf" value="([^"]+)"', settings.text)
    assert csrf is not None
    saved = web.post(
        base_url + "/settings",
        data={"csrf": csrf.group(1), "name": "Hanna", "timezone": "UTC", "language": "en"},
        headers={"Accept-Language": "de"},
        timeout=10,
    )
    assert "Saved." in saved.text and "Your games" not in saved.text
    assert api.call("GET", "/v1/me", player).json()["language"] == "en"
    refused = web.post(
        base_url + "/settings",
        data={"csrf": csrf.group(1), "name": "Hanna", "timezone": "UTC", "language": "xx"},
        timeout=10,
    )
    # Refused on the page in the player's language (English, chosen just before), the form kept.
    assert refused.status_code == 422 and "Choose a language from the list." in refused.text


# -- pictures -----------------------------------------------------------------------------------


def test_the_attila_picture_speaks_the_readers_language(base_url: str) -> None:
    """Labels, legend and the last move's sentences in German; the notation letters stay."""
    attila = get_game("attila")
    state = attila.new_state(3, "picture-language")
    view = attila.view(state, None)
    placed = Event("stone_placed", {"seat": 0, "people": "franks", "province": "BEL"})
    german = pictures.board_svg("attila", view, "T", names=["Bruno"], last_events=[placed],
                                lang="de")  # fmt: skip
    english = pictures.board_svg("attila", view, "T", names=["Bruno"], last_events=[placed])
    for word in ("Völker (Vorrat)", "Grenzprovinz", "Letzter Zug: ", "Einfluss je Stein"):
        assert word in german and word not in english
    assert "Franken" in german and "Bruno setzte einen Franken" in german
    assert "Peoples (supply)" in english and "Bruno placed a Frank in Belgica." in english
    text = pictures.text_summary("attila", view, names=["Bruno", "Cleo", "Dora"], lang="de")
    assert text.startswith("Zug ") and "Jahrhundert" in text and "Einfluss (Feld je Platz" in text
    # Over HTTP: board.svg?lang=de; an unknown language is a 422 problem, English the default.
    api = Kurier(base_url)
    game_id, _players = api.new_game(2)
    svg = requests.get(f"{base_url}/v1/games/{game_id}/board.svg?lang=de", timeout=10)
    assert svg.status_code == 200 and "Völker (Vorrat)" in svg.text
    assert svg.headers["ETag"].endswith('-de"')
    plain = requests.get(f"{base_url}/v1/games/{game_id}/board.svg", timeout=10)
    assert "Peoples (supply)" in plain.text and plain.headers["ETag"] != svg.headers["ETag"]
    bad = requests.get(f"{base_url}/v1/games/{game_id}/board.svg?lang=xx", timeout=10)
    assert bad.status_code == 422
    assert bad.headers["Content-Type"] == "application/problem+json"


def test_the_attika_picture_speaks_german() -> None:
    attika = get_game("attika")
    view = attika.view(attika.new_state(2, "picture-language"), None)
    german = pictures.board_svg("attika", view, "T", names=["Ada", "Bea"], lang="de")
    for word in ("Legende", "Heiligtum", "Lager: ", "◀ am Zug", "gelb"):
        assert word in german, word
    english = pictures.board_svg("attika", view, "T", names=["Ada", "Bea"])
    assert "Legend" in english and "Legende" not in english and "Shrine" in english
    text = pictures.text_summary("attika", view, names=["Ada", "Bea"], lang="de")
    assert "ist am Zug" in text and "Gebäude auf dem Plan:" in text and "Lager: " in text


def test_the_wargame_summary_speaks_german() -> None:
    wargame = get_game("attila-wargame")
    view = wargame.view(wargame.new_state(2, "picture-language"), 0)
    text = pictures.text_summary("attila-wargame", view, names=["A", "B"], lang="de")
    assert text.startswith("Vor Runde 1: ") and "Du spielst die Seite Rom (Platz 0)." in text
    assert "Weströmer: W-III-INF 2214 8" in text  # the notation stays
    german = pictures.board_svg("attila-wargame", view, "T", names=["A", "B"], lang="de")
    assert "Legende" in german and "Flussseite" in german
    # The panel's track, calendar, sides and phases too (they were left English).
    for word in ("Rundenleiste", "Frü 445", "Rom: A", "(a) Bewegung der Barbaren"):
        assert word in german, word
    for english in ("Round track", "spr 445", "Roman:", "Barbarian movement"):
        assert english not in german, english


def test_the_attika_picture_names_built_buildings_in_german() -> None:
    """The buildings on the map, not only those in the panel (they were English in German)."""
    attika = get_game("attika")
    state = attika.new_state(2, "picture-buildings")
    rng = random.Random(4)
    for _ in range(400):
        if not attika.pending(state) or built_on(attika, state):
            break
        seat = attika.pending(state)[0].seat
        attika.apply(state, seat, rng.choice(attika.legal_actions(state, seat)))
    view = attika.view(state, None)
    built = built_on(attika, state)
    assert built, "no building was built in 400 random moves"
    board = attika.board
    english = board.building(built[0]).name_en
    german = i18n.word("de", english)
    assert german != english, english
    svg = pictures.board_svg("attika", view, "T", names=["Ada", "Bea"], lang="de")
    assert f">{german[:11]}" in svg, german


def built_on(game: Any, state: Any) -> list[str]:
    """The buildings standing on the map."""
    cells = game.view(state, None)["map"]
    return [c["building"]["building"] for c in cells if c["building"]]

"""A turn mail's HTML part in a real browser, as a phone and a desktop mail program would
show it: no horizontal scrolling at 600 and 390 px, the inline board picture loads. Its
screenshots are taken only when asked (tests/browser/conftest.py): with ``KURIER_SCREENSHOTS=1``
into a temporary directory; with ``KURIER_UPDATE_PICTURES=1`` into docs/pictures/
(mail-600.png, mail-390.png, and the German mail's mail-de-600.png, mail-de-390.png; the
wargame's mail-wargame-1280.png, mail-wargame-600.png, mail-wargame-390.png and
mail-wargame-390-dark.png) for docs/email.md, so that an ordinary run leaves the work tree as
it was."""

from __future__ import annotations

import base64
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.core import SYSTEM
from service.pictures import png as picture_png
from tests.notify_stack import NotifyStack, shared_stack
from tests.test_mail_design import inline_pngs, next_turn, turn_mail

DOCS_PICTURES = Path(__file__).resolve().parents[2] / "docs" / "pictures"


@pytest.fixture
def pictures(tmp_path: Path) -> Path:
    """Where the screenshots go: docs/pictures/ when asked to update them."""
    return DOCS_PICTURES if os.environ.get("KURIER_UPDATE_PICTURES") == "1" else tmp_path


@pytest.fixture(scope="module")
def mailed_html(notify_stack: NotifyStack) -> dict[str, str]:
    """The HTML part of a real turn mail by language (the reader's ``language``), its cid:
    pictures as data: URLs."""
    if picture_png.missing_fonts():
        pytest.skip("the DejaVu fonts are not installed")
    with shared_stack(notify_stack) as stack:
        mailed = {lang: _mailed(stack, lang) for lang in ("en", "de")}
        return {**mailed, "wargame": _mailed_wargame(stack)}


@pytest.fixture(scope="module")
def mail_page(browser: Any) -> Iterator[Any]:
    """The one page every mail of this module is shown on in turn (``_show``): a page of its
    own per mail cost a browser window and a renderer process each."""
    page = browser.new_page()
    yield page
    page.context.close()


def _show(page: Any, html: str, width: int, scheme: str = "light") -> None:
    """``html`` as a mail program ``width`` px wide in the ``scheme`` colours would show it."""
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)
    page.set_content(html, wait_until="load")


def _with_pictures(message: Any) -> str:
    """The HTML part of ``message`` with its cid: pictures as data: URLs."""
    html_part = message.get_body(("html",))
    assert html_part is not None
    html = str(html_part.get_content())
    for cid, png in inline_pngs(message).items():
        data = "data:image/png;base64," + base64.b64encode(png).decode()
        html = html.replace(f"cid:{cid}", data)
    return html


def _mailed_wargame(stack: NotifyStack) -> str:
    """The first wargame turn mail with a crop round the other side's moves (tests/
    test_mail_size.py plays the same way)."""
    from tests.test_mail_size import _turn_mails

    for _record, _seat, message in _turn_mails(stack, "attila-wargame", "mail-look", 2, 4, 120):
        if len(inline_pngs(message)) == 2:
            return _with_pictures(message)
    raise AssertionError("no wargame mail with a crop in 4 turns")


def _mailed(stack: NotifyStack, lang: str) -> str:
    k = stack.client
    names = ("Anna", "Bruno", "Carla")
    addresses = [f"{n.lower()}.{lang}@browser.test" for n in names]
    players = [
        stack.player(n, email=a, language=lang)[0] for n, a in zip(names, addresses, strict=True)
    ]
    game_id = stack.game(players, seed="mail-look-2")
    next_turn(k, game_id, players, random.Random(3))
    view = k.view(game_id)
    seat = next(d["seat"] for d in view["waiting_for"] if d["seat"] != SYSTEM)
    message = turn_mail(stack, addresses[seat], view["version"])
    html = _with_pictures(message)
    assert f'<html lang="{lang}">' in html
    return html


@pytest.mark.parametrize(
    ("lang", "width", "scheme"),
    [
        ("en", 600, "light"),
        ("en", 390, "light"),
        ("de", 600, "light"),
        ("de", 390, "light"),
        ("wargame", 1280, "light"),
        ("wargame", 600, "light"),
        ("wargame", 390, "light"),
        ("wargame", 390, "dark"),
    ],
)
def test_the_mail_fits_and_shows_its_picture(
    mail_page: Any,
    mailed_html: dict[str, str],
    lang: str,
    width: int,
    scheme: str,
    pictures: Path,
) -> None:
    """German's longer words too (docs/pictures/mail-de-600.png, mail-de-390.png); the
    wargame's crop and overview, and in a dark scheme (the mail sets its own colours)."""
    page = mail_page
    _show(page, mailed_html[lang], width, scheme)
    page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=15_000)
    inner = page.evaluate("window.innerWidth")
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= inner, f"horizontal overflow at {width} px: {scroll} > {inner}"
    widths = page.evaluate("Array.from(document.images).map(i => i.naturalWidth)")
    assert widths and all(w > 0 for w in widths), widths
    shown = page.evaluate("Array.from(document.images).map(i => i.getBoundingClientRect().right)")
    assert all(right <= inner for right in shown), shown
    # No element sticks out of the mail's 600 px column (a long German word in a cell).
    column = page.evaluate(
        "Math.max(...Array.from(document.querySelectorAll('td, div, code, a, strong'))"
        ".map(e => e.getBoundingClientRect().right))"
    )
    assert column <= inner, f"an element ends at {column} px of {inner}"
    pictures.mkdir(parents=True, exist_ok=True)
    name = f"mail-{width}.png" if lang == "en" else f"mail-{lang}-{width}.png"
    name = name if scheme == "light" else name.replace(".png", f"-{scheme}.png")
    page.screenshot(path=str(pictures / name), full_page=True)


@pytest.mark.parametrize("width", [390, 1280])
def test_a_text_only_mail_wraps_its_long_lines(mail_page: Any, width: int) -> None:
    """A mail without a designed HTML part (table talk, a warning) shows its text in a
    ``<pre>``: a line longer than a phone's screen (a refusal's example moves) must wrap, and a
    board picture must scale."""
    from engine.attila.actions import NOTATION_EXAMPLES
    from engine.core import unreadable
    from workers.mail import Mail, compose

    refusal = unreadable("zz top", NOTATION_EXAMPLES)
    text = f"Your line was not played.\n\n> zz top\n{refusal.message} ({refusal.code})\n"
    board = "https://kurier.example/v1/games/" + "g" * 40 + "/board.svg"
    mail = Mail(
        to="a@b.test",
        to_name="A",
        subject="Re: move",
        text=text,
        links=(("The board", board), ("The game", board.removesuffix("/board.svg"))),
    )
    html = str(compose(mail, 0.0).get_body(("html",)).get_content())
    page = mail_page
    _show(page, html.replace(board, _PIXEL), width)
    inner = page.evaluate("window.innerWidth")
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= inner, f"horizontal overflow at {width} px: {scroll} > {inner}"


#: A 1×1 PNG standing in for the linked board picture (no network in a browser test).
_PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

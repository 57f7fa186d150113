"""The web pages in a real Chromium (issue 12, first part): register, sign in by the mailed
link, the lobby, an open game joined from it, a move by a click; and the security cases."""

from __future__ import annotations

import email
import re
import time
import uuid
from pathlib import Path
from typing import Any

import requests

from tests.browser.conftest import navigate, screenshot, wait_for_another_version

LINK = re.compile(r"https?://\S+(/signin/[A-Za-z0-9_-]+)")


def _mailed_link(outbox: Path, address: str, seconds: float = 20) -> str:
    """The path of the newest sign-in link mailed to ``address`` (read from the maildir)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        files = sorted((outbox / "new").glob("*"), key=lambda f: f.stat().st_mtime, reverse=True)
        for file in files if (outbox / "new").exists() else []:
            parsed = email.message_from_bytes(file.read_bytes())
            if address in str(parsed["To"]) and "sign-in" in str(parsed["Subject"]):
                body = parsed.get_payload(0).get_payload(decode=True).decode()
                found = LINK.search(body)
                if found:
                    return found.group(1)
        time.sleep(0.2)
    raise AssertionError(f"no sign-in mail to {address} within {seconds} s")


def _register(context: Any, base_url: str, outbox: Path, name: str) -> tuple[Any, str]:
    address = f"{uuid.uuid4().hex[:10]}@example.org"
    page = context.new_page()
    page.goto(base_url + "/")
    page.locator("form[action='/register'] input[name=name]").fill(name)
    page.locator("form[action='/register'] input[name=email]").fill(address)
    page.locator("form[action='/register'] button").click()
    page.wait_for_selector("text=Check your mail")
    page.goto(base_url + _mailed_link(outbox, address))
    page.wait_for_selector("text=Your games")
    return page, address


def test_register_sign_in_join_an_open_game_and_move_by_clicks(
    browser: Any, base_url: str, worker: Any
) -> None:
    outbox = worker.outbox
    host_context = browser.new_context(viewport={"width": 1280, "height": 900})
    guest_context = browser.new_context(viewport={"width": 390, "height": 844})
    host, _ = _register(host_context, base_url, outbox, "Hilde")
    guest, _ = _register(guest_context, base_url, outbox, "Gero")

    cookie = next(c for c in host_context.cookies() if c["name"] == "kurier_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert "kur_pat_" not in host.content()  # no API token in any page

    host.select_option("form.create select[name=type]", "attila")
    host.fill("input[name=seats]", "2")
    host.locator("form[action='/games'] button").click()
    host.wait_for_selector("text=Start the game")
    game_url = host.url

    guest.reload()
    guest.locator(f"a[href='{game_url.removeprefix(base_url)}']").first.wait_for()
    guest.locator("li", has_text="Hilde").locator("button", has_text="Join").first.click()
    guest.wait_for_selector("text=Gero (you)")

    navigate(host)
    host.locator("button", has_text="Start the game").click()
    host.wait_for_selector("text=version 3")
    for page in (host, guest):
        navigate(page)
    # Attila is played on the table (the board is the input: tests/browser/test_web_table.py);
    # here the move is typed, as in a mail, from the page's own list of legal moves.
    mine = host.locator("[data-game]").get_attribute("data-my-turn") == "yes"
    mover, watcher = (host, guest) if mine else (guest, host)
    assert mover.title().startswith("\u25cf Your turn"), mover.title()
    before = mover.locator("h1 small").inner_text()
    first = mover.locator("#legal-moves option").first.get_attribute("value")
    typed = mover.locator("input[name=notation][list=legal-moves]")
    typed.fill(first or "")
    typed.press("Enter")
    wait_for_another_version(mover, before)
    # The other player's page follows by itself (it polls the API with If-None-Match).
    wait_for_another_version(watcher, before, timeout=15_000)
    assert mover.locator(".recent li, .players").count() > 0
    screenshot(host, "web-game-1280")
    screenshot(guest, "web-game-390")
    # A spectator (no session) reads the page and has no way to move.
    spectator = browser.new_page()
    spectator.goto(game_url)
    assert spectator.locator("button.move, input[name=notation], #legal-moves").count() == 0
    # Each player reads its own hand; the spectator's page holds no hand at all.
    navigate(host)
    hand = re.search(r"Your hand: ([A-Z ]+)", host.locator("#summary").inner_text())
    assert hand, host.locator("#summary").inner_text()
    assert "hand" not in spectator.content().lower()
    host_context.close()
    guest_context.close()


def test_security_headers_csrf_links_once_and_escaping(
    browser: Any, base_url: str, worker: Any
) -> None:
    context = browser.new_context()
    page, address = _register(
        context,
        base_url,
        worker.outbox,
        '<script>window.pwned=1</script>"><img src=x onerror=window.pwned=2>',
    )
    assert page.evaluate("window.pwned") is None
    assert "<script>window.pwned=1</script>" in page.locator(".who").inner_text()
    headers = requests.get(base_url + "/", timeout=10).headers
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY"

    # A form post without the session's CSRF token is refused.
    cookies = {c["name"]: c["value"] for c in context.cookies()}
    refused = requests.post(
        base_url + "/games", data={"type": "attila", "seats": "2"}, cookies=cookies, timeout=10
    )
    assert refused.status_code == 403

    # A sign-in link works once.
    used = _mailed_link(worker.outbox, address)
    requests.post(base_url + "/signin", data={"email": address}, timeout=10)
    deadline = time.monotonic() + 20
    while (link := _mailed_link(worker.outbox, address)) == used:
        assert time.monotonic() < deadline, "no second sign-in mail"
        time.sleep(0.2)
    first = requests.get(base_url + link, allow_redirects=False, timeout=10)
    assert first.status_code == 302 and "kurier_session" in first.headers["Set-Cookie"]
    again = requests.get(base_url + link, allow_redirects=False, timeout=10)
    assert again.status_code == 410

    # Signing out ends the session on the server: the old cookie is worth nothing.
    page.locator("button", has_text="Sign out").click()
    page.wait_for_selector("text=Sign in")
    stale = requests.get(base_url + "/", cookies=cookies, timeout=10)
    assert "Your games" not in stale.text
    context.close()


def test_settings_rename_and_tokens(browser: Any, base_url: str, worker: Any) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page, _ = _register(context, base_url, worker.outbox, "Sepp")
    page.locator("a.who").click()
    page.wait_for_selector("h1:has-text('Settings')")
    page.fill("input[name=name]", "Josef")
    page.locator("form[action='/settings'] button").click()
    page.wait_for_selector("text=Saved.")
    assert page.locator("a.who").inner_text() == "Josef"

    page.fill("form[action='/settings/tokens'] input[name=name]", "laptop bot")
    page.locator("form[action='/settings/tokens'] button").click()
    shown = re.search(r"(kur_pat_[A-Za-z0-9_-]+)", page.locator(".note").inner_text())
    assert shown, page.locator(".note").inner_text()
    me = requests.get(
        base_url + "/v1/me", headers={"Authorization": f"Bearer {shown.group(1)}"}, timeout=10
    )
    assert me.status_code == 200 and me.json()["name"] == "Josef"
    screenshot(page, "web-settings-390")
    page.goto(base_url + "/settings")
    assert shown.group(1) not in page.content()  # shown once, kept nowhere for later pages
    page.locator("li", has_text="laptop bot").locator("button", has_text="Revoke").click()
    page.wait_for_selector("text=Revoked.")
    gone = requests.get(
        base_url + "/v1/me", headers={"Authorization": f"Bearer {shown.group(1)}"}, timeout=10
    )
    assert gone.status_code == 401
    context.close()

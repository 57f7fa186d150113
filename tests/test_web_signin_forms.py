"""The forms before a session (issue 36, item 5): sign-in mails are capped per address and per
client, registration is under the signup limit, and a post of these forms from another site is
refused (no CSRF token can protect a form shown before there is a session; this also closes
login CSRF: a page that signs its visitor in as the attacker)."""

from __future__ import annotations

import email
import email.policy
import secrets
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from service.http.app import create_app
from service.store import Store
from service.store.keys import signin_key
from tests.client import Kurier
from tests.conftest import UNLIMITED, serve

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def _address() -> str:
    return f"{uuid.uuid4().hex[:12]}@example.org"


def _mails_to(outbox: Path, address: str) -> int:
    found = 0
    for file in (outbox / "new").glob("*") if (outbox / "new").exists() else []:
        if address in str(email.message_from_bytes(file.read_bytes())["To"]):
            found += 1
    return found


def _settled_mails(outbox: Path, address: str, at_least: int, seconds: float = 20) -> int:
    """How many mails reached ``address`` once at least ``at_least`` did and no more came for
    a second (the worker sends them one by one)."""
    deadline = time.monotonic() + seconds
    while _mails_to(outbox, address) < at_least:
        assert time.monotonic() < deadline, f"fewer than {at_least} mails to {address}"
        time.sleep(0.2)
    time.sleep(1.5)
    return _mails_to(outbox, address)


def _page_words(text: str, address: str) -> str:
    """A page's text with the address it names taken out (to compare two pages)."""
    return text.replace(address, "ADDRESS")


def test_sign_in_mails_are_capped_per_address_whether_it_is_known_or_not(
    base_url: str, kurier: Kurier, worker: Any
) -> None:
    """Five asks for one address: three mails (the cap), then calm pages saying a link was
    sent already, the same for a known address and an unknown one (no enumeration). Every ask
    was mailed."""
    known, unknown = _address(), _address()
    r = requests.post(
        f"{base_url}/register", data={"name": "Vera", "email": known}, headers=HTML, timeout=10
    )
    assert r.status_code == 200, r.text  # mail 1 to the known address
    pages: dict[str, list[str]] = {known: [], unknown: []}
    for address, asks in ((known, 4), (unknown, 5)):
        for _ in range(asks):
            r = requests.post(
                f"{base_url}/signin", data={"email": address}, headers=HTML, timeout=10
            )
            assert r.status_code == 200, r.text
            pages[address].append(_page_words(r.text, address))
    assert _settled_mails(worker.outbox, known, 3) == 3
    assert _mails_to(worker.outbox, unknown) == 0
    # Mailed, then capped: the same calm pages for both.
    assert pages[known] == pages[unknown][:2] + pages[unknown][3:]
    assert pages[known][0] != pages[known][-1]
    assert "already" in pages[known][-1]


@pytest.fixture
def strict(redis_url: str, worker: Any) -> Iterator[str]:
    """The app with a signup budget of 3 a minute per client address, counters of its own."""
    app = create_app(
        {
            **UNLIMITED,
            "REDIS_URL": redis_url,
            "SIGNUP_RATE_LIMIT": "3/minute",
            "RATELIMIT_KEY_PREFIX": f"kurier:ratelimit-test-{uuid.uuid4().hex[:8]}",
        }
    )
    with serve(app) as url:
        yield url


def test_registering_is_under_the_signup_limit(strict: str, store: Store) -> None:
    """One stranger's address registered over and over: refused after the signup budget
    (40 of 40 were accepted), as a page for a browser."""
    address = _address()
    answers = [
        requests.post(
            f"{strict}/register", data={"name": f"R{i}", "email": address}, headers=HTML, timeout=10
        )
        for i in range(5)
    ]
    assert [r.status_code for r in answers] == [200, 200, 200, 429, 429]
    assert answers[-1].headers["Content-Type"].startswith("text/html")
    assert len(store.players.with_email(address)) == 3


def test_asking_for_sign_in_mails_is_under_the_signup_limit_too(strict: str) -> None:
    """One client asking for mails to many addresses: refused after the budget (one IP could
    send 7,200 sign-in mails an hour)."""
    answers = [
        requests.post(f"{strict}/signin", data={"email": _address()}, headers=HTML, timeout=10)
        for _ in range(4)
    ]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]


#: Headers a browser sends with a form post, and whether the post counts as from this site.
SAME_SITE = "SAME"  # replaced by the served app's origin


@pytest.mark.parametrize(
    ("headers", "accepted"),
    [
        ({"Origin": "https://evil.example"}, False),
        ({"Origin": "null"}, False),
        ({"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, False),
        ({"Sec-Fetch-Site": "same-site", "Origin": "https://evil.kurier.example"}, False),
        ({"Sec-Fetch-Site": "cross-site"}, False),
        ({"Sec-Fetch-Site": "none"}, False),
        ({"Referer": "https://evil.example/page"}, False),
        ({"Sec-Fetch-Site": "same-origin", "Origin": SAME_SITE}, True),
        ({"Origin": SAME_SITE}, True),
        ({"Referer": SAME_SITE + "/"}, True),
        ({"Sec-Fetch-Site": "none", "Referer": SAME_SITE + "/"}, True),
        ({}, True),  # no browser: nobody to forge a post for
    ],
    ids=[
        "evil-origin",
        "null-origin",
        "cross-site",
        "same-site-sibling",
        "cross-site-no-origin",
        "none-no-referer",
        "evil-referer",
        "same-origin",
        "origin-only",
        "referer-only",
        "none-own-referer",
        "no-browser",
    ],
)
def test_pre_session_forms_refuse_posts_from_other_sites(
    base_url: str, kurier: Kurier, store: Store, headers: dict[str, str], accepted: bool
) -> None:
    sent = {**HTML, **{k: v.replace(SAME_SITE, base_url) for k, v in headers.items()}}
    attacker = kurier.new_player("Mallory")
    address = _address()
    posts = [
        ("/signin", {"email": _address()}),
        ("/register", {"name": "Forged", "email": address}),
        ("/signin/token", {"token": attacker.token}),
    ]
    for path, form in posts:
        r = requests.post(
            base_url + path, data=form, headers=sent, allow_redirects=False, timeout=10
        )
        if accepted:
            assert r.status_code in (200, 302), (path, r.status_code, r.text)
            continue
        assert r.status_code == 403, (path, r.status_code, r.text)
        assert r.headers["Content-Type"].startswith("text/html")
        assert "another site" in r.text
        assert "kurier_session" not in r.headers.get("Set-Cookie", "")  # no login CSRF
        assert "<form" not in r.text.split("</header>")[1]  # nothing to send again
    assert len(store.players.with_email(address)) == (1 if accepted else 0)
    # The API's clients are no browsers: POST /v1/players takes no Origin into account.
    r = requests.post(
        f"{base_url}/v1/players", json={"name": "Api"}, headers={"Origin": "https://x.example"}
    )
    assert r.status_code == 201


def test_a_sign_in_link_opened_from_another_site_asks_first(
    base_url: str, kurier: Kurier, store: Store
) -> None:
    """An attacker's own link, opened in the victim's browser by a page of another site,
    would sign the victim in as the attacker: such a navigation gets a page with a button
    (the link still unused); the link itself, opened from a mail program or typed, signs in."""
    player = kurier.new_player("Linda")
    token = secrets.token_urlsafe(32)
    store.r.set(signin_key(token), player.id, ex=600)
    cross = {**HTML, "Sec-Fetch-Site": "cross-site", "Referer": "https://evil.example/"}
    asked = requests.get(f"{base_url}/signin/{token}", headers=cross, allow_redirects=False)
    assert asked.status_code == 200, asked.text
    assert "kurier_session" not in asked.headers.get("Set-Cookie", "")
    assert "Linda" in asked.text and f'action="/signin/{token}"' in asked.text
    assert store.r.exists(signin_key(token))  # not taken
    forged = requests.post(
        f"{base_url}/signin/{token}", headers={**HTML, "Origin": "https://evil.example"}
    )
    assert forged.status_code == 403 and store.r.exists(signin_key(token))
    confirmed = requests.post(
        f"{base_url}/signin/{token}",
        headers={**HTML, "Origin": base_url, "Sec-Fetch-Site": "same-origin"},
        allow_redirects=False,
    )
    assert confirmed.status_code == 302 and "kurier_session" in confirmed.headers["Set-Cookie"]
    assert not store.r.exists(signin_key(token))
    # Opened from a mail program (Sec-Fetch-Site: none) or by a client: signed in at once.
    for headers in ({**HTML, "Sec-Fetch-Site": "none"}, HTML):
        token = secrets.token_urlsafe(32)
        store.r.set(signin_key(token), player.id, ex=600)
        r = requests.get(f"{base_url}/signin/{token}", headers=headers, allow_redirects=False)
        assert r.status_code == 302 and "kurier_session" in r.headers["Set-Cookie"]


@pytest.mark.parametrize("relay", [None, "smtp://mail.example.org:25"])
def test_the_check_your_mail_page_names_the_local_outbox(
    base_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, relay: str | None
) -> None:
    """In the local default (no KURIER_SMTP_URL) no mail leaves the machine: the page says
    which folder it was written to; with a relay it says nothing of the kind."""
    monkeypatch.setenv("KURIER_OUTBOX", str(tmp_path / "outbox"))
    if relay:
        monkeypatch.setenv("KURIER_SMTP_URL", relay)
    else:
        monkeypatch.delenv("KURIER_SMTP_URL", raising=False)
    r = requests.post(f"{base_url}/signin", data={"email": _address()}, headers=HTML, timeout=10)
    assert r.status_code == 200, r.text
    folder = str(tmp_path / "outbox" / "new")
    assert (folder in r.text) == (relay is None), r.text
    assert ("KURIER_SMTP_URL" in r.text) == (relay is None)


def test_one_address_serves_a_few_players_however_many_clients_ask(
    base_url: str, kurier: Kurier, store: Store
) -> None:
    """Registrations of one stranger's address from many client addresses (each under its own
    signup budget) bind at most ``accounts.MAX_PLAYERS_PER_EMAIL`` players to it, through the
    form, the API and a changed address alike; other addresses are not affected."""
    from service.domain.accounts import MAX_PLAYERS_PER_EMAIL

    address = _address()
    answers = [
        requests.post(
            f"{base_url}/register",
            data={"name": f"S{i}", "email": address},
            headers=HTML | {"X-Forwarded-For": f"198.51.100.{i + 1}"},
            timeout=10,
        )
        for i in range(MAX_PLAYERS_PER_EMAIL + 3)
    ]
    statuses = [r.status_code for r in answers]
    assert statuses[:MAX_PLAYERS_PER_EMAIL] == [200] * MAX_PLAYERS_PER_EMAIL, statuses
    assert all(s == 422 for s in statuses[MAX_PLAYERS_PER_EMAIL:]), statuses  # as every refusal
    assert 'role="alert"' in answers[-1].text and "already serves" in answers[-1].text
    r = kurier.call("POST", "/v1/players", json={"name": "Api", "email": address.upper()})
    assert r.status_code == 409 and r.json()["code"] == "email-has-players", r.text
    other = kurier.new_player("Other")
    r = kurier.call("PATCH", "/v1/me", other, json={"email": address})
    assert r.status_code == 409 and r.json()["code"] == "email-has-players", r.text
    assert len(store.players.with_email(address)) == MAX_PLAYERS_PER_EMAIL
    # A player keeps (or sets again) the address it has; a fresh address is fine.
    (first,) = [p for p in store.players.with_email(address) if p["name"] == "S0"]
    assert store.players.get(first["id"])["email"] == address
    r = kurier.call("PATCH", "/v1/me", other, json={"email": _address()})
    assert r.status_code == 200, r.text


def _mail_texts(outbox: Path, address: str) -> list[str]:
    texts = []
    for file in sorted((outbox / "new").glob("*")) if (outbox / "new").exists() else []:
        message = email.message_from_bytes(file.read_bytes(), policy=email.policy.default)
        if address in str(message["To"]):
            texts.append(message.get_body(("plain",)).get_content())
    return texts


def test_registering_again_signs_in_instead_of_making_a_twin(
    base_url: str, kurier: Kurier, store: Store, worker: Any
) -> None:
    """The register form with a name and address registered already makes no second player:
    it mails the sign-in link, as the sign-in form does. Another name on the same address is
    another player, and the mail then names both."""
    address = _address()
    for name in ("Vera", " vera ", "Walt"):
        r = requests.post(
            f"{base_url}/register", data={"name": name, "email": address}, headers=HTML, timeout=10
        )
        assert r.status_code == 200, r.text
    assert sorted(p["name"] for p in store.players.with_email(address)) == ["Vera", "Walt"]
    assert _settled_mails(worker.outbox, address, 3) == 3
    # The worker's processes may deliver the three mails in any order: the one sent after
    # Walt registered names both players, each with a link.
    texts = _mail_texts(worker.outbox, address)
    both = [t for t in texts if "Vera:" in t and "Walt:" in t]
    assert len(both) == 1 and both[0].count("/signin/") == 2, texts


def test_the_api_registers_no_twin_either(base_url: str, kurier: Kurier, worker: Any) -> None:
    """POST /v1/players with a name and address registered already: 409 already-registered,
    no player made, a sign-in link mailed; another name on that address is a new player."""
    address = _address()
    first = kurier.call("POST", "/v1/players", json={"name": "Ida", "email": address})
    assert first.status_code == 201, first.text
    again = kurier.call("POST", "/v1/players", json={"name": "IDA", "email": address})
    assert again.status_code == 409, again.text
    assert again.headers["Content-Type"] == "application/problem+json"
    assert again.json()["code"] == "already-registered" and "token" not in again.text
    assert _settled_mails(worker.outbox, address, 1) == 1
    assert "Ida" in _mail_texts(worker.outbox, address)[0]
    other = kurier.call("POST", "/v1/players", json={"name": "Jo", "email": address})
    assert other.status_code == 201, other.text
    assert other.json()["id"] != first.json()["id"]

"""Hostile input (issue #17, #19): every odd body, header, query or URL gets a clear 4xx
problem+json naming what is wrong, never a 500 or an HTML page, and nothing changes in Redis."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
import requests

from service.domain import deliveries, prefs
from service.http.app import MAX_BODY
from service.ops import config
from service.ops.commands import gunicorn_argv
from service.store import Store
from service.store.keys import player_key
from tests.client import Kurier, Player, wait_until_answering
from tests.conftest import ROOT
from tests.receivers import _Receiver
from workers import notify, shared, webhooks

PROBLEM = "application/problem+json"


def _problem(r: requests.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"] == PROBLEM, r.text
    body = r.json()
    assert body["code"] == code, body
    return body


def _snapshot(store: Store, *ids: str) -> dict[str, Any]:
    """Every key of these players and games, serialised, and how many players exist."""
    keys: list[str] = []
    for some_id in ids:
        for pattern in (f"kurier:player:{{{some_id}}}*", f"kurier:game:{{{some_id}}}*"):
            keys.extend(k.decode() for k in store.raw.scan_iter(match=pattern))
    players = sum(1 for _ in store.raw.scan_iter(match="kurier:player:{*}", count=1000))
    return {"players": players, **{k: store.raw.dump(k) for k in sorted(keys)}}


@pytest.fixture
def setting(kurier: Kurier) -> Iterator[tuple[str, list[Player], str]]:
    """An open game (creator seated) and a second player holding its invite code."""
    creator, joiner = kurier.new_player("H0"), kurier.new_player("H1")
    r = kurier.call("POST", "/v1/games", creator, json={"type": "attila", "seats": 2})
    assert r.status_code == 201, r.text
    yield r.json()["id"], [creator, joiner], r.json()["invite_code"]


def _json_endpoints(game_id: str) -> list[tuple[str, str]]:
    return [
        ("POST", "/v1/players"),
        ("PATCH", "/v1/me"),
        ("POST", "/v1/games"),
        ("POST", f"/v1/games/{game_id}/seats"),
        ("POST", f"/v1/games/{game_id}/actions"),
    ]


def test_deeply_nested_json_is_400_everywhere_with_or_without_a_token(
    kurier: Kurier, store: Store, setting: tuple[str, list[Player], str]
) -> None:
    game_id, players, _ = setting
    before = _snapshot(store, game_id, *(p.id for p in players))
    for depth in (40, 1000, 20_000):
        body = "[" * depth + "]" * depth
        for method, path in _json_endpoints(game_id):
            for who in (players[1], None):
                r = kurier.call(
                    method,
                    path,
                    who,
                    data=body,
                    headers={"Content-Type": "application/json"},
                )
                if who is None and path != "/v1/players":
                    _problem(r, 401, "missing-token")
                    continue
                problem = _problem(r, 400, "json-too-deep")
                assert "32 levels" in problem["detail"]
    assert _snapshot(store, game_id, *(p.id for p in players)) == before


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("POST", "/v1/players", '{"name": "\\ud800"}', "name"),
        ("PATCH", "/v1/me", '{"name": "Eve\\udfff"}', "name"),
        ("POST", "/v1/games", '{"type": "attila", "seats": 2, "seed": "\\ud800"}', "seed"),
        ("POST", "/v1/games/{game}/seats", '{"invite_code": "\\ud800"}', "invite_code"),
        (
            "POST",
            "/v1/games",
            '{"type": "attila", "seats": 2, "options": {"\\ud800": 1}}',
            "options",
        ),
    ],
)
def test_lone_surrogates_are_400_naming_the_field(
    kurier: Kurier,
    store: Store,
    setting: tuple[str, list[Player], str],
    method: str,
    path: str,
    body: str,
    field: str,
) -> None:
    game_id, players, _ = setting
    before = _snapshot(store, game_id, *(p.id for p in players))
    r = kurier.call(
        method,
        path.format(game=game_id),
        players[1],
        data=body,
        headers={"Content-Type": "application/json"},
    )
    problem = _problem(r, 400, "invalid-unicode")
    assert problem["field"] == field
    assert _snapshot(store, game_id, *(p.id for p in players)) == before


def test_a_body_without_json_content_type_is_415_naming_the_header(
    kurier: Kurier, store: Store, setting: tuple[str, list[Player], str]
) -> None:
    game_id, players, _ = setting
    before = _snapshot(store, game_id, *(p.id for p in players))
    for method, path in _json_endpoints(game_id):
        for content_type in (None, "text/plain", "application/x-www-form-urlencoded"):
            headers = {"Content-Type": content_type} if content_type else {}
            r = kurier.call(method, path, players[1], data=b'{"notation": "end"}', headers=headers)
            problem = _problem(r, 415, "unsupported-media-type")
            assert problem["header"] == "Content-Type"
            assert "application/json" in problem["detail"]
    assert _snapshot(store, game_id, *(p.id for p in players)) == before


def test_a_json_request_without_a_body_is_400(
    kurier: Kurier, store: Store, setting: tuple[str, list[Player], str]
) -> None:
    """The document marks every request body required: PATCH /v1/me without one is refused."""
    game_id, players, _ = setting
    before = _snapshot(store, game_id, *(p.id for p in players))
    for method, path in _json_endpoints(game_id):
        r = kurier.call(method, path, players[1], headers={"Content-Type": "application/json"})
        _problem(r, 400, "missing-body")
    assert _snapshot(store, game_id, *(p.id for p in players)) == before


@contextmanager
def _connections(base_url: str, count: int, sending: bytes = b"") -> Iterator[list[socket.socket]]:
    """``count`` connections to ``base_url``, each having sent ``sending``; closed after."""
    host, port = base_url.removeprefix("http://").split(":")
    held: list[socket.socket] = []
    try:
        for _ in range(count):
            held.append(socket.create_connection((host, int(port)), timeout=10))
            held[-1].sendall(sending)
        yield held
    finally:
        for sock in held:
            sock.close()


def _raw(base_url: str, request: bytes) -> tuple[int, str, bytes]:
    """Send ``request`` on a connection of its own; the answer's status, type and body."""
    with _connections(base_url, 1, request) as (sock,):
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    header, _, payload = answer.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    content_type = next(
        (ln.split(":", 1)[1].strip() for ln in lines if ln.lower().startswith("content-type")), ""
    )
    return int(lines[0].split()[1]), content_type, payload


def _chunked(base_url: str, path: str, token: str, body: bytes) -> tuple[int, str, bytes]:
    """PATCH ``body`` with Transfer-Encoding: chunked (no Content-Length), raw on a socket."""
    host = base_url.removeprefix("http://").split(":")[0]
    head = (
        f"PATCH {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    ).encode()
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(body[i : i + 4096]), body[i : i + 4096])
        for i in range(0, len(body), 4096)
    )
    return _raw(base_url, head + chunks + b"0\r\n\r\n")


def test_a_chunked_body_over_the_limit_is_413(
    kurier: Kurier, store: Store, setting: tuple[str, list[Player], str]
) -> None:
    game_id, players, _ = setting
    before = _snapshot(store, game_id, *(p.id for p in players))
    big = ('{"name": "' + "x" * MAX_BODY + '"}').encode()
    status, content_type, payload = _chunked(kurier.base, "/v1/me", players[1].token, big)
    assert (status, content_type) == (413, PROBLEM), payload
    assert b"body-too-large" in payload
    small = b'{"name": "Chunky"}'
    status, _, payload = _chunked(kurier.base, "/v1/me", players[1].token, small)
    assert status == 200, payload
    changed = player_key(players[1].id)  # the name did change, by the small body
    after = _snapshot(store, game_id, *(p.id for p in players))
    del before[changed], after[changed]
    assert after == before


def _parameter(kurier: Kurier, path: str, method: str, name: str) -> dict[str, Any]:
    document = kurier.call("GET", "/v1/openapi.json").json()
    operation = document["paths"][path][method]
    return next(p for p in operation["parameters"] if p["name"] == name)


@pytest.mark.parametrize("value", ["", "²", "１２", "٣", "-1", "1.0", "abc", "1" * 16, "0", "7"])
def test_cursor_is_ascii_digits_and_the_document_says_so(
    kurier: Kurier, setting: tuple[str, list[Player], str], value: str
) -> None:
    _, players, _ = setting
    pattern = _parameter(kurier, "/v1/games", "get", "cursor")["schema"]["pattern"]
    r = kurier.call("GET", "/v1/games", players[0], params={"cursor": value})
    if re.fullmatch(pattern, value):
        assert r.status_code == 200, r.text
    else:
        assert _problem(r, 400, "invalid-cursor")["parameter"] == "cursor"


@pytest.mark.parametrize(
    "value",
    ["99999999999999999999-0", "0-99999999999999999999", "-".join(["18446744073709551615"] * 2)],
)
def test_message_ids_past_64_bits_are_refused_not_a_500(
    kurier: Kurier, setting: tuple[str, list[Player], str], value: str
) -> None:
    """A message id is a Redis stream id, 64 bits a part: Redis refuses a bigger one, which
    reached the API as a 500 (the document allowed 20 digits)."""
    game_id, players, _ = setting
    pattern = _parameter(kurier, "/v1/games/{game_id}/messages", "get", "after")["schema"]
    assert not re.fullmatch(pattern["pattern"], value)
    r = kurier.call("GET", f"/v1/games/{game_id}/messages", players[0], params={"after": value})
    assert _problem(r, 400, "invalid-cursor")["parameter"] == "after", r.text
    r = kurier.call("POST", f"/v1/games/{game_id}/messages/{value}/hide", players[0])
    _problem(r, 404, "message-not-found")


@pytest.mark.parametrize(
    "value", ['""', '"²"', "²", '"１２"', '"-1"', "W/", '"1' + "0" * 15 + '"', '"0"', 'W/"3"', "3"]
)
def test_if_match_is_ascii_digits_and_the_document_says_so(
    kurier: Kurier, store: Store, value: str
) -> None:
    game_id, players = kurier.new_game(2)
    path = "/v1/games/{game_id}/actions"
    pattern = _parameter(kurier, path, "post", "If-Match")["schema"]["pattern"]
    before = _snapshot(store, game_id, *(p.id for p in players))
    waiting = kurier.view(game_id)["waiting_for"][0]["seat"]
    r = kurier.call(
        "POST",
        f"/v1/games/{game_id}/actions",
        players[waiting],
        json={"notation": "no such move"},
        headers={"If-Match": value.encode()},  # bytes: a header may hold UTF-8 octets
    )
    if re.fullmatch(pattern, value):
        assert r.status_code in (412, 422), r.text  # read as a version: stale or illegal
    else:
        assert _problem(r, 400, "invalid-if-match")["header"] == "If-Match"
    assert _snapshot(store, game_id, *(p.id for p in players)) == before


def test_settings_with_unicode_digits_are_reported_not_crashed_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``"²".isdigit()`` is true and ``int("²")`` raises: every number read from text
    (settings here, Retry-After in the webhook tests) takes ASCII digits only."""
    findings = config.check({"KURIER_PORT": "²", "KURIER_WEBHOOK_TIMEOUT": "５"})
    levels = {f.name: f.level for f in findings}
    assert levels["KURIER_PORT"] == levels["KURIER_WEBHOOK_TIMEOUT"] == "error"
    monkeypatch.setenv("KURIER_WEBHOOK_TIMEOUT", "²")
    assert deliveries.attempt_timeout() == deliveries.DEFAULT_ATTEMPT_TIMEOUT


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1:99999/",
        "https://example.org:abc/",
        "https://[::1/",
        "https://example.org:0/",
        "https://exa\tmple.org/hook",  # urlsplit drops the tab, the HTTP client does not
        "https://example.org/ho ok",
        "https://example.org:４４３/",  # fullwidth port: int() reads it, urllib3 does not
        "https://ex\u200bample.org/",  # zero-width space
        "https://exa_mple..org/",
        "https://１２７.０.０.１/",  # fullwidth loopback: refused as loopback once normalised
        "ftp://example.org/",
    ],
)
def test_bad_webhook_urls_are_422_naming_the_field(kurier: Kurier, store: Store, url: str) -> None:
    player = kurier.new_player("W")
    before = _snapshot(store, player.id)
    r = kurier.call("PATCH", "/v1/me", player, json={"webhook_url": url, "name": "Changed"})
    problem = _problem(r, 422, "webhook-url-refused")
    assert problem["field"] == "webhook_url"
    assert _snapshot(store, player.id) == before


@pytest.mark.parametrize(
    ("url", "stored"),
    [
        ("http://ｌｏｃａｌｈｏｓｔ:8080/hook", "http://localhost:8080/hook"),
        ("http://１２７.０.０.１:9/x?a=1#frag", "http://127.0.0.1:9/x?a=1"),
        ("http://LocalHost", "http://localhost/"),
    ],
)
def test_webhook_urls_are_stored_in_the_form_they_are_requested(
    kurier: Kurier, monkeypatch: pytest.MonkeyPatch, url: str, stored: str
) -> None:
    monkeypatch.setenv("KURIER_WEBHOOK_ALLOW", "loopback")  # the app runs in this process
    player = kurier.new_player("N")
    r = kurier.call("PATCH", "/v1/me", player, json={"webhook_url": url})
    assert r.status_code == 200, r.text
    assert r.json()["webhook_url"] == stored


def test_a_unicode_retry_after_is_a_failed_attempt_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """It crashed the attempt's thread, and the attempt was recorded as a timeout."""

    @dataclass
    class Busy(_Receiver):
        def answer(self, handler: BaseHTTPRequestHandler, index: int) -> None:
            handler.send_response(503)
            handler.send_header("Retry-After", "²")
            handler.send_header("content-length", "0")
            handler.end_headers()

    monkeypatch.setenv("KURIER_WEBHOOK_ALLOW", "loopback")
    monkeypatch.setenv("KURIER_WEBHOOK_TIMEOUT", "3")
    receiver = Busy().start()
    try:
        attempt = webhooks.post(receiver.url, prefs.new_webhook_secret(), "msg_busy", "{}")
    finally:
        receiver.stop()
    assert attempt == webhooks.Attempt(False, 503, "HTTP 503", None)


@pytest.mark.parametrize(
    "text", ["Eve\r\nBcc: x@example.org", "Eve\n", "E\x00ve", "\tEve", "E\u2028"]
)
def test_control_characters_in_names_and_codes_are_422_naming_the_field(
    kurier: Kurier, store: Store, setting: tuple[str, list[Player], str], text: str
) -> None:
    game_id, players, invite = setting
    before = _snapshot(store, game_id, *(p.id for p in players))
    cases = [
        ("POST", "/v1/players", None, {"name": text}, "name"),
        ("PATCH", "/v1/me", players[1], {"name": text}, "name"),
        ("POST", "/v1/games", players[1], {"type": text, "seats": 2}, "type"),
        ("POST", "/v1/games", players[1], {"type": "attila", "seats": 2, "seed": text}, "seed"),
        ("POST", f"/v1/games/{game_id}/seats", players[1], {"invite_code": invite + text}, None),
    ]
    for method, path, who, body, field in cases:
        r = kurier.call(method, path, who, json=body)
        problem = _problem(r, 422, "invalid-json")
        assert list(problem["errors"]["json"]) == [field or "invite_code"], problem
        assert "control characters" in problem["errors"]["json"][field or "invite_code"][0]
    assert _snapshot(store, game_id, *(p.id for p in players)) == before
    pattern = kurier.call("GET", "/v1/openapi.json").json()["components"]["schemas"][
        "PlayerCreate"
    ]["properties"]["name"]["pattern"]
    assert not re.fullmatch(pattern, text) and re.fullmatch(pattern, "Zoë O'Neil")


def test_patch_me_agrees_with_the_document_on_notify_and_timezone(
    kurier: Kurier, store: Store
) -> None:
    player = kurier.new_player("T")
    schemas = kurier.call("GET", "/v1/openapi.json").json()["components"]["schemas"]
    notify = schemas["NotifyPreferences"]
    assert notify["additionalProperties"] is False
    assert set(notify["properties"]) == set(prefs.EVENT_TYPES)
    pattern = schemas["PlayerPatch"]["properties"]["timezone"]["pattern"]
    before = _snapshot(store, player.id)
    for body in ({"notify": {"game.nope": ["email"]}}, {"notify": {"game.ended": ["sms"]}}):
        _problem(kurier.call("PATCH", "/v1/me", player, json=body), 422, "invalid-json")
    for zone in ("0", "", "Europe/Berlin\n", "/etc/passwd", "../x"):
        assert not re.fullmatch(pattern, zone)
        r = kurier.call("PATCH", "/v1/me", player, json={"timezone": zone})
        assert "timezone" in _problem(r, 422, "invalid-json")["errors"]["json"]
    # Without a token: 401 whatever the body holds.
    _problem(kurier.call("PATCH", "/v1/me", json={"timezone": "0"}), 401, "missing-token")
    assert _snapshot(store, player.id) == before
    body = {"notify": {"game.ended": ["webhook"], "game.started": []}, "timezone": "Etc/GMT+5"}
    r = kurier.call("PATCH", "/v1/me", player, json=body)
    assert r.status_code == 200, r.text
    assert r.json()["notify"]["game.ended"] == ["webhook"]
    assert r.json()["notify"]["game.started"] == []
    assert r.json()["timezone"] == "Etc/GMT+5"


@pytest.fixture(scope="module")
def gunicorn_url(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The API under gunicorn with the production settings (one process), on loopback."""
    tmp = tmp_path_factory.mktemp("gunicorn")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "KURIER_WEB_WORKERS": "1",
        "KURIER_WEB_THREADS": "2",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp / "metrics"),
    }
    log = open(tmp / "web.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        gunicorn_argv("127.0.0.1", port), env=env, cwd=ROOT, stdout=log, stderr=log
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(proc, base, str(tmp / "web.log"))
        yield base
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (b"GET /v1/games?x=" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri-too-long"),
        (
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
            431,
            "header-fields-too-large",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
            + b"".join(b"X-%d: 1\r\n" % i for i in range(120))
            + b"\r\n",
            431,
            "header-fields-too-large",
        ),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400, "bad-request"),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", 400, "bad-request"),
        (b"G\x01T /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad-request"),
    ],
    ids=["long-url", "big-header", "many-headers", "no-colon", "space-in-name", "bad-method"],
)
def test_what_gunicorn_refuses_itself_is_problem_json(
    gunicorn_url: str, request_bytes: bytes, status: int, code: str
) -> None:
    got_status, content_type, payload = _raw(gunicorn_url, request_bytes)
    assert (got_status, content_type) == (status, PROBLEM), payload
    problem = json.loads(payload)
    assert problem["code"] == code and problem["status"] == status
    assert problem["detail"]


#: Requests gunicorn refuses before the stream server's app sees them (issue 36, item 8).
STREAM_REFUSALS = [
    (b"GET /v1/me/stream HTTP/1.1\nHost: x\n\n", 400, "bad-request"),
    (
        b"GET /v1/me/stream HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 1\x00-0\r\n\r\n",
        400,
        "bad-request",
    ),
    (
        b"GET /v1/me/stream HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
        431,
        "header-fields-too-large",
    ),
    (
        b"GET /v1/me/stream?after=" + b"1" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        414,
        "uri-too-long",
    ),
]


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    STREAM_REFUSALS,
    ids=["bare-lf", "nul-in-last-event-id", "big-header", "long-url"],
)
def test_what_the_stream_server_refuses_itself_is_problem_json(
    streams: str, request_bytes: bytes, status: int, code: str
) -> None:
    """The same refusals from `kurier streams` (gevent workers) as from the API: gunicorn's
    text/html page was all a client got there."""
    got_status, content_type, payload = _raw(streams, request_bytes)
    assert (got_status, content_type) == (status, PROBLEM), payload
    problem = json.loads(payload)
    assert problem["code"] == code and problem["status"] == status
    assert problem["detail"]


def test_a_bad_cursor_is_one_answer_from_the_api_and_the_stream_server(
    kurier: Kurier, streams: str, setting: tuple[str, list[Player], str]
) -> None:
    """A cursor that is not one: 400 ``invalid-cursor`` naming the parameter, whether the
    client asks the API (which answers the stream paths 307) or the stream server itself, as
    every list answers it (tests/test_one_answer.py); the API let a bad Last-Event-ID through
    to a redirect."""
    game_id, players, _ = setting
    cases = [
        (f"/v1/games/{game_id}/stream", None, {"after": "x"}, {}, "after"),
        (f"/v1/games/{game_id}/stream", None, {}, {"Last-Event-ID": "1.5"}, "Last-Event-ID"),
        ("/v1/me/stream", players[0], {"after": "99999999999999999999-0"}, {}, "after"),
        ("/v1/me/stream", players[0], {}, {"Last-Event-ID": "0-x"}, "Last-Event-ID"),
    ]
    for path, who, params, headers, parameter in cases:
        answers = []
        for base in (kurier.base, streams):
            auth = who.auth if who else {}
            r = requests.get(
                base + path,
                params=params,
                headers=auth | headers,
                allow_redirects=False,
                timeout=10,
            )
            answers.append(_problem(r, 400, "invalid-cursor"))
        api, stream_server = answers
        assert api["parameter"] == stream_server["parameter"] == parameter, answers
        assert api["type"] == stream_server["type"] == "/problems/invalid-cursor"
        assert api["detail"] == stream_server["detail"], answers


def test_a_chunked_body_over_the_limit_is_413_under_gunicorn_too(gunicorn_url: str) -> None:
    r = requests.post(gunicorn_url + "/v1/players", json={"name": "G"}, timeout=10)
    assert r.status_code == 201, r.text
    big = ('{"name": "' + "x" * MAX_BODY + '"}').encode()
    status, content_type, payload = _chunked(gunicorn_url, "/v1/me", r.json()["token"], big)
    assert (status, content_type) == (413, PROBLEM), payload


def _answered_within(base_url: str, seconds: float) -> None:
    r = requests.get(base_url + "/healthz", timeout=seconds)
    assert r.status_code in (200, 503), r.text


def test_connections_that_send_nothing_hold_no_thread(gunicorn_url: str) -> None:
    """As many silent connections as the process has threads (a browser's preconnects, or
    anyone's open sockets): the next request is answered at once. gunicorn's own worker gave
    each new connection a thread for up to 5 s, so this request waited 4.8 s."""
    with _connections(gunicorn_url, 2):
        _answered_within(gunicorn_url, 2.5)


def test_connections_are_kept_alive_under_the_worker_class(gunicorn_url: str) -> None:
    """Three requests on one connection, with and without a body: the worker class's changes
    to gunicorn's waits must leave keep-alive alone (a drain time of 0 closed every connection
    after its first answer)."""
    requests_ = [
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /v1/me/inbox HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2\r\n\r\n{}",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    ]
    with _connections(gunicorn_url, 1) as (sock,):
        reader = sock.makefile("rb")
        for request in requests_:
            sock.sendall(request)
            status = reader.readline()
            assert status.startswith(b"HTTP/1.1 "), (request, status)
            length = 0
            while (line := reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
                assert not (name.lower() == "connection" and "close" in value.lower()), line
            reader.read(length)


def test_clients_left_with_a_body_unread_do_not_stop_the_process(gunicorn_url: str) -> None:
    """Two requests refused before their body is read (no token: 401), from clients that keep
    the connection open without sending the rest: the next request is answered at once.
    gunicorn closed such a connection in its main loop, lingering 2 s for the client's last
    bytes, so the process answered nothing for 2 s per connection."""
    partial = (
        b"POST /v1/games/g/actions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n{"
    )
    with _connections(gunicorn_url, 2, partial) as left:
        for sock in left:
            assert sock.recv(65536).startswith(b"HTTP/1.1 401"), "refused before the body"
        _answered_within(gunicorn_url, 1.5)


def test_the_document_lists_the_body_refusals_of_every_json_operation(kurier: Kurier) -> None:
    document = kurier.call("GET", "/v1/openapi.json").json()
    operations = [
        (path, method, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method != "parameters"
        and "application/json" in operation.get("requestBody", {}).get("content", {})
    ]
    assert len(operations) >= 5
    for path, method, operation in operations:
        assert operation["requestBody"]["required"] is True, (path, method)
        assert {"400", "413", "415"} <= set(operation["responses"]), (path, method)


def test_a_stored_url_the_policy_now_refuses_disables_the_webhook_at_once(
    kurier: Kurier, store: Store, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A URL stored before the checks (here with a tab in the host) would fail every attempt
    until the retries ran out; the delivery worker applies the same policy and stops at once."""
    player = kurier.new_player("L")
    key = player_key(player.id)
    store.r.hset(
        key,
        mapping={
            "webhook_url": "https://exa\tmple.org/",
            "webhook_secret": prefs.new_webhook_secret(),
        },
    )
    fields = {"type": "webhook.test", "body": "{}", "game_id": "", "status": "pending"}
    prefs.record_delivery(store, player.id, "msg_legacy", {**fields, "attempts": 0})
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setattr(shared, "_store", None)  # the worker's store, made from REDIS_URL
    assert notify.deliver_webhook(player.id, "msg_legacy", 1) == "failed"
    delivery = prefs.get_delivery(store, player.id, "msg_legacy")
    assert delivery["status"] == "failed" and "control characters" in delivery["last_error"]
    assert "not usable" in store.r.hget(key, "webhook_disabled")


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('{"name": "a", "x": ' + "1" * 5000 + "}", "unreadable number"),  # int's 4300 digits
        ('{"name": "a", "x": NaN}', "NaN"),
        ('{"name": "a", "x": -Infinity}', "Infinity"),
        ('{"name": "a", "x": 1e400}', "too large"),
    ],
)
def test_numbers_python_reads_but_json_has_not_are_400(
    kurier: Kurier, store: Store, body: str, says: str
) -> None:
    before = _snapshot(store)
    r = kurier.call("POST", "/v1/players", data=body, headers={"Content-Type": "application/json"})
    assert says in _problem(r, 400, "malformed-json")["detail"]
    assert _snapshot(store) == before


def test_the_document_names_the_game_types_and_the_shape_of_webhook_urls(kurier: Kurier) -> None:
    schemas = kurier.call("GET", "/v1/openapi.json").json()["components"]["schemas"]
    listed = kurier.call("GET", "/v1/game-types").json()
    ids = {item["id"] for item in (listed["items"] if isinstance(listed, dict) else listed)}
    assert set(schemas["GameCreate"]["properties"]["type"]["enum"]) == ids
    pattern = schemas["PlayerPatch"]["properties"]["webhook_url"]["pattern"]
    assert re.fullmatch(pattern, "https://hooks.example.org/k?x=1")
    for url in ("ftp://x.org/", "https://exa\tmple.org/", "https://x.org/a b", "https://x\u2028/"):
        assert not re.fullmatch(pattern, url), url

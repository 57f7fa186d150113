"""Live streams (Server-Sent Events) end to end: the production stream server (`kurier
streams`: gunicorn, gevent workers) as a subprocess on the test Redis, a real worker, the API on
loopback, and a plain SSE reader over `requests` (lines parsed here)."""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import requests

from service.domain.streams import RETRY_MS, Caller, Timing, inbox_stream
from service.store import Store
from service.store.keys import events_key
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from tests.client import Kurier, Player
from tests.conftest import short_tmp
from tests.games_in_store import started_attila
from tests.topologies import cluster_setup

ROOT = Path(__file__).resolve().parent.parent
WAIT = 20.0  # seconds any one expected event may take


class Sse:
    """An open stream, read by a thread into a queue: events as dicts (``id``, ``event``,
    ``data``), comments as ``{"comment": text}``, None at the end."""

    def __init__(self, url: str, player: Player | None = None, **headers: str) -> None:
        auth = player.auth if player else {}
        self.response = requests.get(url, headers={**auth, **headers}, stream=True, timeout=(5, 10))
        self.items: queue.Queue[dict[str, str] | None] = queue.Queue()
        self.seen: list[dict[str, str]] = []
        if self.response.status_code == 200:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        event: dict[str, str] = {}
        try:
            for line in self.response.iter_lines(decode_unicode=True):
                if line == "":
                    if event:
                        self.items.put(event)
                    event = {}
                elif line.startswith(":"):
                    self.items.put({"comment": line[1:].strip()})
                else:
                    name, _, value = line.partition(":")
                    event[name] = value.removeprefix(" ")
        except (requests.RequestException, AttributeError, ValueError):
            pass  # closed by the test
        finally:
            self.items.put(None)

    def until(self, done: Callable[[dict[str, str]], bool], seconds: float = WAIT) -> bool:
        """Read until an item satisfies ``done`` (True) or the stream ends or time runs out."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                item = self.items.get(timeout=left)
            except queue.Empty:
                return False
            if item is None:
                return False
            self.seen.append(item)
            if done(item):
                return True
        return False

    def ends_within(self, seconds: float) -> bool:
        """True if the server ends the stream within ``seconds`` (what comes meanwhile is
        kept in ``seen``)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                item = self.items.get(timeout=left)
            except queue.Empty:
                return False
            if item is None:
                return True
            self.seen.append(item)
        return False

    def entries(self, kind: str = "entry") -> list[dict[str, Any]]:
        import json

        return [json.loads(i["data"]) for i in self.seen if i.get("event") == kind]

    def close(self) -> None:
        self.response.close()


def _version_reached(version: int) -> Callable[[dict[str, str]], bool]:
    return lambda item: item.get("event") == "entry" and int(item["id"]) >= version


def _compare(streamed: list[dict[str, Any]], listed: list[dict[str, Any]], seat: int | None) -> int:
    """Streamed entries are what /events lists for the same caller (listed after the stream
    read them). One difference is allowed: a sealed choice of another seat streamed unseen
    (None) and listed revealed, because its resolution committed between the stream's read and
    the listing. Returns how many sealed choices of others both showed unseen (the redaction,
    seen working)."""
    assert [e["version"] for e in streamed] == [e["version"] for e in listed]
    hidden = 0
    for got, want in zip(streamed, listed, strict=True):
        if got != want:
            assert got["kind"] == "sealed" and got["seat"] != seat, (got, want)
            assert got["action"] is None and {**got, "action": want["action"]} == want
        elif got["kind"] == "sealed" and got["seat"] != seat and got["action"] is None:
            hidden += 1  # unseen on both: the redaction at work
        # Equal and revealed on both: the stream read the entry after its reveal committed (a
        # stream that showed a choice /events, read later, still hides would differ above).
    return hidden


def test_streams_follow_a_game_redacted_as_events(
    kurier: Kurier, streams: str, store: Store
) -> None:
    game_id, players = kurier.new_game(3)
    url = f"{streams}/v1/games/{game_id}/stream"
    watcher = players[1]
    mine, spectator = Sse(url, watcher), Sse(url)
    assert mine.response.headers["Content-Type"].startswith("text/event-stream")
    rng = random.Random(11)
    deadline = time.monotonic() + 240
    finished = False
    checked = {"mine": 0, "spectator": 0}
    hidden = {"mine": 0, "spectator": 0}

    def check(name: str, stream: Sse, who: Player | None, seat: int | None) -> None:
        """Compare what the stream brought since the last check with /events right now."""
        new = [e for e in stream.entries() if e["version"] > checked[name]]
        if not new:
            return
        r = kurier.call("GET", f"/v1/games/{game_id}/events", who, params={"after": checked[name]})
        listed = [e for e in r.json()["items"] if e["version"] <= new[-1]["version"]]
        hidden[name] += _compare(new, listed, seat)
        checked[name] = new[-1]["version"]

    for _ in range(3000):
        assert time.monotonic() < deadline, "the game did not finish in time"
        view = kurier.view(game_id)
        version = view["version"]
        for stream in (mine, spectator):  # every version arrives, before the next move
            reached = any(e["version"] >= version for e in stream.entries())
            assert reached or stream.until(_version_reached(version)), f"no version {version}"
        check("mine", mine, watcher, 1)
        check("spectator", spectator, None, None)
        if view["status"] == "finished":
            finished = True
            break
        humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
        if not humans:
            time.sleep(0.02)  # the worker is resolving
            continue
        player = players[humans[0]["seat"]]
        legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
        notation = rng.choice(legal["actions"])["notation"]
        r = kurier.call("POST", f"/v1/games/{game_id}/actions", player, json={"notation": notation})
        assert r.status_code in (200, 202), r.text
    assert finished
    for stream in (mine, spectator):  # the end of a finished game
        assert stream.until(lambda item: item.get("event") == "end")
        assert stream.items.get(timeout=WAIT) is None  # and the server closed it
    versions = [e["version"] for e in mine.entries()]
    assert versions == list(range(1, len(versions) + 1))  # every version once, in order
    assert [e["version"] for e in spectator.entries()] == versions
    assert checked == {"mine": versions[-1], "spectator": versions[-1]}
    # Others' sealed choices were seen unrevealed on both streams, exactly as /events showed.
    assert hidden["mine"] >= 1 and hidden["spectator"] >= 1, hidden

    # Compacted (the log packed into the record): resume from the middle, then the end.
    for _ in range(200):
        if not store.raw.exists(events_key(game_id)):
            break
        time.sleep(0.05)
    assert not store.raw.exists(events_key(game_id)), "the finished game was not compacted"
    middle = versions[len(versions) // 2]
    resumed = Sse(url, watcher, **{"Last-Event-ID": str(middle)})
    assert resumed.until(lambda item: item.get("event") == "end")
    assert [e["version"] for e in resumed.entries()] == versions[middle:]
    assert resumed.entries() == kurier.all_events(game_id, watcher)[middle:]  # all revealed now
    for stream in (mine, spectator, resumed):
        stream.close()


def test_resume_heartbeat_and_redirect(
    kurier: Kurier, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _players = kurier.new_game(3)
    listed = kurier.all_events(game_id)
    last = listed[-1]["version"]
    url = f"{streams}/v1/games/{game_id}/stream"
    # Last-Event-ID wins over ?after= (a reconnecting EventSource keeps its first URL).
    resumed = Sse(f"{url}?after=0", **{"Last-Event-ID": str(last - 1)})
    assert resumed.until(_version_reached(last))
    assert resumed.entries() == listed[last - 1 :]
    # Idle: a heartbeat comment within a few seconds (KURIER_STREAM_HEARTBEAT=1 here).
    assert resumed.until(lambda item: item.get("comment") == "ping", seconds=5)
    resumed.close()
    after = Sse(f"{url}?after={last - 2}")
    assert after.until(_version_reached(last))
    assert [e["version"] for e in after.entries()] == [last - 1, last]
    after.close()

    # The API redirects to the stream server; a client following it gets the stream.
    monkeypatch.setenv("KURIER_STREAM_URL", streams)
    r = requests.get(f"{kurier.base}/v1/games/{game_id}/stream?after=1", allow_redirects=False)
    assert r.status_code == 307 and r.headers["Location"] == f"{url}?after=1"
    followed = Sse(f"{kurier.base}/v1/games/{game_id}/stream?after=1")
    assert followed.response.url == f"{url}?after=1"
    assert followed.until(_version_reached(last))
    assert followed.entries() == listed[1:]
    followed.close()


def test_a_token_reaches_the_stream_server_as_a_ticket(
    kurier: Kurier, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat's client that follows the API's 307 without re-sending its token (requests drops
    Authorization when the port changes) gets its own stream, through the one-time ticket in
    the redirect's URL, never the spectators' (issue 37). A ticket that does not open is a
    401. Every answer of the stream server carries X-Request-ID."""
    monkeypatch.setenv("KURIER_STREAM_URL", streams)
    game_id, players = kurier.new_game(3)
    seat = players[1]
    for _ in range(200):  # until the seat has seen an event of its own (its drawn cards)
        mine, public = kurier.all_events(game_id, seat), kurier.all_events(game_id)
        if mine != public:
            break
        if kurier.play_first_legal(game_id, players) is None:
            time.sleep(0.05)  # the worker resolves
    assert mine != public  # so a spectator's stream and the seat's can be told apart
    last = mine[-1]["version"]
    url = f"{streams}/v1/games/{game_id}/stream"
    api_url = f"{kurier.base}/v1/games/{game_id}/stream?after=0"

    moved = requests.get(api_url, headers=seat.auth, allow_redirects=False, timeout=10)
    assert moved.status_code == 307 and moved.headers["Cache-Control"] == "no-store"
    location = moved.headers["Location"]
    assert location.startswith(f"{url}?after=0&ticket=kur_stk_"), location
    followed = Sse(api_url, seat)
    assert followed.response.status_code == 200, followed.response.text
    assert "Authorization" not in followed.response.request.headers  # dropped on the way
    assert followed.response.headers["X-Request-ID"]
    assert followed.until(_version_reached(last))
    assert followed.entries() == mine
    followed.close()

    # The ticket of the 307 above was not used: it opens once, then never again.
    first = Sse(location)
    assert first.response.status_code == 200
    assert first.until(_version_reached(last)) and first.entries() == mine
    first.close()
    for bad in (location, f"{url}?ticket=kur_stk_{'A' * 32}", f"{url}?ticket=nope"):
        r = requests.get(bad, timeout=10, headers={"X-Request-ID": "ticket-check-1"})
        assert r.status_code == 401 and r.json()["code"] == "invalid-stream-ticket", r.text
        assert r.headers["X-Request-ID"] == "ticket-check-1"
    # A ticket sent along with another player's token: refused too.
    other = requests.get(api_url, headers=seat.auth, allow_redirects=False, timeout=10)
    r = requests.get(other.headers["Location"], headers=players[0].auth, timeout=10)
    assert r.status_code == 401 and r.json()["code"] == "invalid-stream-ticket"

    # The inbox stream, token required, through the redirect.
    inbox = Sse(f"{kurier.base}/v1/me/stream", seat)
    assert inbox.response.status_code == 200, inbox.response.text
    assert inbox.until(lambda item: item.get("event") == "inbox")
    assert inbox.entries("inbox")[-1]["game_id"] == game_id
    inbox.close()
    anonymous = requests.get(f"{kurier.base}/v1/me/stream", timeout=10)  # followed, no token
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "missing-token"


def test_inbox_stream_turns_and_private_messages(kurier: Kurier, streams: str) -> None:
    players = [kurier.new_player(f"S{i}") for i in range(3)]
    created = kurier.call("POST", "/v1/games", players[0], json={"type": "attila", "seats": 3})
    game_id, invite = created.json()["id"], created.json()["invite_code"]
    for p in players[1:]:
        kurier.call("POST", f"/v1/games/{game_id}/seats", p, json={"invite_code": invite})
    inboxes = [Sse(f"{streams}/v1/me/stream", p) for p in players]
    for stream in inboxes:  # the inbox now: the game, not started
        assert stream.until(lambda item: item.get("event") == "inbox")
        assert stream.entries("inbox")[-1]["your_decision"] is None
    assert kurier.call("POST", f"/v1/games/{game_id}/start", players[0]).status_code == 200
    first = kurier.view(game_id)["waiting_for"][0]["seat"]

    def my_turn(item: dict[str, str]) -> bool:
        import json

        data = json.loads(item["data"]) if item.get("event") == "inbox" else {}
        return bool(data.get("your_decision")) and data["game_id"] == game_id

    assert inboxes[first].until(my_turn)
    turn = inboxes[first].entries("inbox")[-1]
    assert turn["status"] == "active" and turn["your_decision"]["seat"] == first
    expected = kurier.call("GET", "/v1/me/inbox", players[first]).json()["items"]
    assert turn["your_decision"] == next(i for i in expected if i["game_id"] == game_id)

    # A private message from seat 0 to seat 1, then one to the table.
    secret = kurier.call(
        "POST", f"/v1/games/{game_id}/messages", players[0], json={"text": "psst", "to_seat": 1}
    )
    assert secret.status_code == 201, secret.text
    table = kurier.call("POST", f"/v1/games/{game_id}/messages", players[0], json={"text": "hi"})
    assert table.status_code == 201, table.text

    def got_table(item: dict[str, str]) -> bool:
        return item.get("event") == "message" and item["id"] == table.json()["id"]

    for stream in inboxes[1:]:
        assert stream.until(got_table)
    texts = [[m["text"] for m in s.entries("message")] for s in inboxes[1:]]
    assert texts == [["psst", "hi"], ["hi"]]  # the third player never saw the private one
    assert inboxes[1].entries("message")[0] == {"game_id": game_id, **secret.json()}
    # Resume after the private message: only what came after it.
    resumed = Sse(f"{streams}/v1/me/stream", players[1], **{"Last-Event-ID": secret.json()["id"]})
    assert resumed.until(got_table)
    assert [m["text"] for m in resumed.entries("message")] == ["hi"]
    for stream in [*inboxes, resumed]:
        stream.close()


def test_a_game_stream_carries_the_messages_its_caller_may_see(
    kurier: Kurier, streams: str
) -> None:
    """Each game stream gets a ``message`` event (no event ID: its IDs are versions) for what
    its caller may see: a private message its two players only, a table message the players,
    and spectators only where the game lets them read the talk."""
    players = [kurier.new_player(f"T{i}") for i in range(3)]
    created = kurier.call("POST", "/v1/games", players[0], json={"type": "attila", "seats": 3})
    game_id, invite = created.json()["id"], created.json()["invite_code"]
    for p in players[1:]:
        kurier.call("POST", f"/v1/games/{game_id}/seats", p, json={"invite_code": invite})
    assert kurier.call("POST", f"/v1/games/{game_id}/start", players[0]).status_code == 200
    url = f"{streams}/v1/games/{game_id}/stream"
    watching = [Sse(url, p) for p in players] + [Sse(url)]  # the last one: a spectator
    for stream in watching:  # open: the log so far
        assert stream.until(lambda item: item.get("event") == "entry")
    said = kurier.call(
        "POST", f"/v1/games/{game_id}/messages", players[0], json={"text": "psst", "to_seat": 1}
    )
    assert said.status_code == 201, said.text
    table = kurier.call("POST", f"/v1/games/{game_id}/messages", players[2], json={"text": "hi"})
    assert table.status_code == 201, table.text

    def got_table(item: dict[str, str]) -> bool:
        return item.get("event") == "message" and '"hi"' in item["data"]

    for stream in watching[:3]:
        assert stream.until(got_table, 5.0)
    assert not watching[3].until(got_table, 2.0), "spectators may not read this game's talk"
    texts = [[m["text"] for m in s.entries("message")] for s in watching]
    assert texts == [["psst", "hi"], ["psst", "hi"], ["hi"], []]
    assert watching[1].entries("message")[0] == said.json()
    assert all("id" not in i for s in watching for i in s.seen if i.get("event") == "message")
    for stream in watching:
        stream.close()


def test_unknown_game_and_bad_tokens(kurier: Kurier, streams: str) -> None:
    r = requests.get(f"{streams}/v1/games/no-such-game/stream", timeout=10)
    assert r.status_code == 404 and r.json()["code"] == "game-not-found"
    assert r.headers["Content-Type"] == "application/problem+json"
    game_id, _players = kurier.new_game(3)
    bad = {"Authorization": "Bearer kur_pat_nope"}
    for path in (f"/v1/games/{game_id}/stream", "/v1/me/stream"):
        r = requests.get(f"{streams}{path}", headers=bad, timeout=10)
        assert r.status_code == 401 and r.json()["code"] == "invalid-token", r.text
    r = requests.get(f"{streams}/v1/me/stream", timeout=10)
    assert r.status_code == 401 and r.json()["code"] == "missing-token"
    r = requests.get(f"{streams}/v1/games/{game_id}/stream?after=x", timeout=10)
    assert r.status_code == 400 and r.json()["code"] == "invalid-cursor"
    # A message id past Redis's 64 bits a part: refused before the stream opens (it opened,
    # failed at its first read and closed, and the client's reconnects failed the same way).
    player = _players[0]
    for value in ("99999999999999999999-0", "0-99999999999999999999"):
        for query, headers in ((f"?after={value}", {}), ("", {"Last-Event-ID": value})):
            r = requests.get(
                f"{streams}/v1/me/stream{query}", headers=player.auth | headers, timeout=10
            )
            assert r.status_code == 400 and r.json()["code"] == "invalid-cursor", r.text


def test_a_revoked_token_opens_no_stream_and_its_open_streams_end(
    kurier: Kurier, streams: str
) -> None:
    """Revoked through the API, a token is refused by the stream server at its next request,
    though that server used it a moment before (its per-process cache trusted a token for
    10 s), and the streams it holds open end within a heartbeat or two (1 s here) instead of
    running on for their lifetime (an hour)."""
    owner = kurier.new_player("Revoker")
    made = kurier.call("POST", "/v1/me/tokens", owner, json={"name": "bot"}).json()
    bot = Player(owner.id, owner.name, made["token"])
    game_id, _players = kurier.new_game(2)
    urls = (f"{streams}/v1/games/{game_id}/stream", f"{streams}/v1/me/stream")
    held = [Sse(url, bot) for url in urls]
    assert [s.response.status_code for s in held] == [200, 200]
    assert all(s.until(lambda item: item.get("comment") == "ping") for s in held)
    assert kurier.call("DELETE", f"/v1/me/tokens/{made['id']}", owner).status_code == 204
    for url in urls:
        with requests.get(url, headers=bot.auth, timeout=10, stream=True) as r:
            assert r.status_code == 401, f"{url} opened with a revoked token"
            assert r.json()["code"] == "invalid-token"
    for stream in held:
        assert stream.ends_within(6), f"{stream.response.url} still open after the revocation"
    # The owner's other token opens streams as before.
    still = Sse(urls[1], owner)
    assert still.response.status_code == 200
    still.close()


def test_an_inbox_stream_ends_quietly_when_its_cluster_goes_away(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis failing under an open inbox stream closes it (its client resumes) with one
    warning, also between its waits: here the cluster goes away after the stream was opened
    and before it read the player's games. Such a failure used to escape the stream as a
    traceback (and a cluster that cannot be reached at all raises redis-py's
    RedisClusterException, not a RedisError, which not even the waits caught)."""
    with ExitStack() as stack:
        queues = RedisServer(short_tmp("kur-queues-"), EPHEMERAL_FLAGS)
        queues.start()
        stack.callback(queues.stop)
        cluster = stack.enter_context(cluster_setup(3))
        store = Store(cluster.url, queues.url)
        _game_id, seated = started_attila(store)
        (player, token), _other = seated
        caller = Caller(store.tokens.key_of(token), player["id"])
        inbox = inbox_stream(store, caller, None, Timing(heartbeat=0.5))
        for node in cluster.nodes:
            node.kill()
        chunks = list(inbox)  # raised before
    assert chunks == [f"retry: {RETRY_MS}\n\n"]
    assert "stream closed: Redis failed" in caplog.text

"""Follow Kurier's live streams (Server-Sent Events) with a client generated from the OpenAPI
document (docs/api.md, "Generated clients" and "Streams"): a small helper to copy.

The generated operations ``stream_game_events`` and ``stream_my_inbox`` read the whole body
before they return, so they cannot follow a live stream. This helper reads the stream line by
line through the generated client's own httpx client (its base URL, token and headers), and:

- follows the API's ``307`` to the stream server. The redirect's URL carries a one-time stream
  ticket for a caller who sent a token, so the stream is the caller's own even though httpx
  (like most HTTP clients) drops ``Authorization`` when a redirect changes the port;
- resumes with ``Last-Event-ID`` after a dropped connection, or when no byte came for
  ``READ_TIMEOUT`` seconds (the server sends ``: ping`` every 15 s);
- parses each event's ``data`` into the generated model of its ``event`` name:

  ============  ====================  ==========================
  event         model                 stream
  ============  ====================  ==========================
  ``entry``     ``LogEntry``          GET /v1/games/{id}/stream
  ``end``       ``StreamEnd``         GET /v1/games/{id}/stream
  ``inbox``     ``InboxChange``       GET /v1/me/stream
  ``message``   ``StreamedMessage``   GET /v1/me/stream
  ============  ====================  ==========================

  An event name this helper does not know (a newer server's) comes as the raw ``SseEvent``.

Usage, with a client generated as docs/api.md shows (package ``kurier_client``)::

    from kurier_client import AuthenticatedClient
    from streams import follow_game

    client = AuthenticatedClient(base_url="http://127.0.0.1:8000", token="kur_pat_...")
    for entry in follow_game(client, game_id):          # LogEntry, until the game is over
        for event in entry.events:                      # typed: CardPlayedEvent, ...
            print(entry.version, event.kind)

Pass ``models=`` (the generated package's ``models`` module) when the package has another
name. Needs only httpx, which the generated client needs anyway, and the standard library.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import httpx

#: No byte for this long (two missed heartbeats): the connection is dead, resume.
READ_TIMEOUT = 30.0
#: Connections in a row that may fail before the helper gives up.
RECONNECTS = 5
MODELS = {
    "entry": "LogEntry",
    "end": "StreamEnd",
    "inbox": "InboxChange",
    "message": "StreamedMessage",
}


@dataclass(frozen=True)
class SseEvent:
    """One Server-Sent Event as sent: its ``event`` name, ``data`` text and ``id``."""

    event: str
    data: str
    id: str | None = None


class StreamRefused(Exception):
    """The server answered with an error (problem+json) instead of a stream."""

    def __init__(self, status: int, problem: dict[str, Any]) -> None:
        super().__init__(f"{status} {problem.get('code')}: {problem.get('detail')}")
        self.status, self.problem = status, problem


def parse_sse(lines: Iterable[str]) -> Iterator[SseEvent]:
    """SSE events from a stream's lines (the HTML standard's parsing, the fields Kurier sends):
    ``event``, ``data`` (lines joined by newlines) and ``id``; comments (``: ping``) and
    ``retry`` are skipped."""
    name, data, event_id = "message", [], None
    for line in lines:
        if line == "":
            if data:
                yield SseEvent(name, "\n".join(data), event_id)
            name, data = "message", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
        elif field == "id":
            event_id = value


def follow_game(
    client: Any, game_id: str, after: int = 0, models: ModuleType | None = None
) -> Iterator[Any]:
    """A game's log entries as they happen (``LogEntry``), after version ``after``, as the
    caller may see them (a spectator without a token); returns when the game is over."""
    for item in follow(client, f"/v1/games/{game_id}/stream", str(after), models):
        if isinstance(item, SseEvent) or type(item).__name__ != MODELS["end"]:
            yield item
        else:
            return


def follow_inbox(client: Any, models: ModuleType | None = None) -> Iterator[Any]:
    """The caller's inbox changes (``InboxChange``) and messages (``StreamedMessage``), for as
    long as the caller reads (the server closes a stream after an hour: this resumes)."""
    yield from follow(client, "/v1/me/stream", None, models)


def follow(
    client: Any, path: str, after: str | None, models: ModuleType | None = None
) -> Iterator[Any]:
    """The typed events of one stream ``path``, resuming after ``after`` (an SSE id)."""
    models = models or importlib.import_module("kurier_client.models")
    http: httpx.Client = client.get_httpx_client()
    last, failures = after, 0
    while failures <= RECONNECTS:
        headers = {"Accept": "text/event-stream"}
        if last:
            headers["Last-Event-ID"] = last  # wins over ?after=, also on the stream server
        timeout = httpx.Timeout(10.0, read=READ_TIMEOUT)
        try:
            with http.stream(
                "GET", path, headers=headers, follow_redirects=True, timeout=timeout
            ) as response:
                if response.status_code != 200:
                    response.read()
                    raise StreamRefused(response.status_code, _problem(response))
                for event in parse_sse(response.iter_lines()):
                    failures = 0
                    last = event.id or last
                    yield _typed(event, models)
                    if event.event == "end":
                        return
        except httpx.TransportError:
            pass  # dropped, or silent for READ_TIMEOUT: resume below
        failures += 1
    raise ConnectionError(f"{path}: {RECONNECTS + 1} connections in a row failed")


def _typed(event: SseEvent, models: ModuleType) -> Any:
    model = getattr(models, MODELS.get(event.event, ""), None)
    return model.from_dict(json.loads(event.data)) if model is not None else event


def _problem(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {"detail": response.text[:200]}
    return body if isinstance(body, dict) else {"detail": str(body)}

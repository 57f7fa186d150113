"""Many open game streams, read in a process of their own (benchmarks/load.py ``--streams``).

Not a test. The followers stand for clients on other machines: in the load client's own event
loop, parsing their events delayed the moves it times (its p99 measured its own loop), and
aiohttp's line reader cost a quarter of a core at 1,000 streams. Here each stream is a bare
``asyncio.Protocol`` that counts the events' ``id:`` lines in the bytes it gets.

    stream_readers.py --port P --count N < game-ids

reads the game ids (one per line, until an empty line), opens ``count`` streams over them and
prints one JSON line when all are open and their backlog is read (no event for a second, at
most 60 s); then one more, with the totals, when its standard input closes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time

#: An event's id line; the first one follows the headers' blank line, so it starts a line too.
ID_LINE = b"\nid:"


class Reader(asyncio.Protocol):
    """One stream: sends its GET, checks the status line, counts id lines."""

    def __init__(self, request: bytes, opened: asyncio.Future[None]) -> None:
        self.request = request
        self.opened = opened
        self.events = 0
        self.closed = False
        self.failed = False
        self._tail = b""
        self._in_body = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.write(self.request)  # type: ignore[attr-defined]  # a TCP transport: writable

    def data_received(self, data: bytes) -> None:
        data = self._tail + data
        if not self._in_body:
            end = data.find(b"\r\n\r\n")
            if end < 0:
                self._tail = data
                return
            if data[9:12] != b"200":
                self.failed = True
                self.opened.set_exception(RuntimeError(data[:end].decode(errors="replace")))
                return
            self._in_body = True
            self.opened.set_result(None)
            data = data[end + 2 :]
        self.events += data.count(ID_LINE)
        # Three bytes cannot hold a whole id line, so none is counted twice; one cut by the
        # segment's end is found with the next segment.
        self._tail = data[-3:]

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.opened.done():
            self.failed = True
            self.opened.set_exception(exc or ConnectionError("closed before its headers"))


async def run(port: int, game_ids: list[str], count: int) -> None:
    loop = asyncio.get_running_loop()
    readers: list[Reader] = []
    for n in range(count):
        game_id = game_ids[n % len(game_ids)]
        request = (
            f"GET /v1/games/{game_id}/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Accept: text/event-stream\r\n\r\n"
        ).encode()
        reader = Reader(request, loop.create_future())
        await loop.create_connection(lambda r=reader: r, "127.0.0.1", port)  # type: ignore[misc]  # a lambda with a default: not inferred
        readers.append(reader)
    await asyncio.wait_for(asyncio.gather(*(r.opened for r in readers)), timeout=60)
    # Each stream first sends its game's log so far: done when no event came for a second.
    started, received = time.monotonic(), -1
    while sum(r.events for r in readers) != received and time.monotonic() - started < 60:
        received = sum(r.events for r in readers)
        await asyncio.sleep(1.0)
    _say(opened=count, backlog=received, seconds=round(time.monotonic() - started - 1, 1))
    stdin_closed = loop.create_future()
    threading.Thread(
        target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(stdin_closed.set_result, None)),
        daemon=True,
    ).start()
    await stdin_closed
    _say(
        events=sum(r.events for r in readers) - received,
        still_open=sum(1 for r in readers if not r.closed),
        failed=sum(1 for r in readers if r.failed),
    )


def _say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    args = parser.parse_args()
    game_ids = []
    for line in sys.stdin:
        if not line.strip():
            break
        game_ids.append(line.strip())
    asyncio.run(run(args.port, game_ids, args.count))


if __name__ == "__main__":
    main()

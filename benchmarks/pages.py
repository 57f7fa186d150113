"""Web page benchmark (issue 12): the game page for a signed-in player in a running game.

The issue's targets: ``GET /games/<id>`` answers with p95 ≤ 50 ms with 500 games in Redis
(``--other-games``), and its transfer is ≤ 100 KB excluding the board picture (HTML, CSS, JS);
the board SVG its ``<img>`` names is counted beside it.

Starts its own stack as benchmarks/load.py does (Redis with the production flags, one
``kurier worker``, ``kurier web`` = gunicorn with the service's settings, and the bare app of
benchmarks/bare_app.py under the same gunicorn settings), then for each game type: players and
a game over the API, ``--moves`` moves of a script the engine makes from the seed (random legal
moves; the worker resolves sealed conflicts), so the game is mid-game; the player to move signs
in with their API token (``POST /signin/token``: the session cookie, as a browser gets it) and
the page is requested one at a time, ``--requests`` times or for ``--seconds``, whichever ends
first. Beside it, in the same run and the same way: the bare app's ``GET /bare`` (the floor:
Flask, gunicorn, one Redis read), the API's view of the same game (``GET /v1/games/<id>``,
the same player's token) and the board SVG. Every latency is printed also as a ratio to the
bare app's, and every size as a share of the 100 KB budget.

Bytes are counted as they travel (a browser's ``Accept-Encoding``; the API compresses a big
board.svg, the pages and assets go as they are) and once decoded.

Requests one at a time: the target is a page's latency, not a throughput. Traffic only to
127.0.0.1. Not a test: ``.venv/bin/python benchmarks/pages.py``.
"""

from __future__ import annotations

import argparse
import gzip
import html
import os
import re
import sys
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bare_app import BARE_KEY  # noqa: E402
from benchmarks.load import latency_line, make_script, percentile  # noqa: E402
from benchmarks.stack import Stack  # noqa: E402
from engine.core import SYSTEM  # noqa: E402
from engine.registry import game_ids, get_game  # noqa: E402
from tests.chromium import CHROMIUM_ARGS, chromium_path  # noqa: E402

TARGET_P95_MS = 50.0
TARGET_KB = 100.0
#: A move refused while the worker resolves a conflict is tried again this much later.
RETRY_WAIT = 0.05
IMG = re.compile(r'<img[^>]+src="([^"]*board\.svg[^"]*)"')
#: The table's board (issue 32): inline in the page, and at its own URL per version.
TABLE_BOARD = re.compile(r'data-board="([^"]+)"')
#: The issue's budget for an update in place, the board picture excluded.
UPDATE_KB = 20.0
#: Issue 33's budget for a move's whole update to the other player: page and board.
MOVE_UPDATE_KB = 60.0
#: Issue 46's budget for the code a table page loads: every script and module it imports
#: and every style sheet, gzipped (as a server or CDN would send them compressed).
TABLE_CODE_KB = 60.0
#: The board's unchanging parts, which a page showing it does not ask for again (keep.py).
KEPT = re.compile(r'data-keep="([^"]+)"')
ASSET = re.compile(r'(?:href|src)="(/assets/[^"]+)"')
#: A module's static imports (the board's ES modules import each other by relative URL).
IMPORT = re.compile(r'^import [^"\n]*"(\.{1,2}/[^"]+)";', re.MULTILINE)


@dataclass
class Timed:
    latencies: list[float]
    size: int

    @property
    def p95(self) -> float:
        return percentile(self.latencies, 0.95) * 1000


class Api:
    def __init__(self, base: str) -> None:
        self.base = base
        self.http = requests.Session()

    def call(
        self, method: str, path: str, token: str | None = None, body: Any = None
    ) -> requests.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return self.http.request(method, self.base + path, json=body, headers=headers, timeout=30)

    def game_mid_way(self, game_type: str, players: int, moves: int) -> tuple[str, list[str]]:
        """A started game of ``game_type`` after ``moves`` scripted moves; (id, tokens)."""
        tokens = []
        for seat in range(players):
            r = self.call("POST", "/v1/players", body={"name": f"P{seat}"})
            assert r.status_code == 201, r.text
            tokens.append(r.json()["token"])
        seed = f"pages-{game_type}"
        r = self.call(
            "POST", "/v1/games", tokens[0], {"type": game_type, "seats": players, "seed": seed}
        )
        assert r.status_code == 201, r.text
        game_id, invite = r.json()["id"], r.json()["invite_code"]
        for token in tokens[1:]:
            r = self.call("POST", f"/v1/games/{game_id}/seats", token, {"invite_code": invite})
            assert r.status_code == 201, r.text
        r = self.call("POST", f"/v1/games/{game_id}/start", tokens[0])
        assert r.status_code == 200, r.text
        for seat, notation in make_script(players, seed, game_type, moves):
            self._move(game_id, tokens[seat], notation)
        return game_id, tokens

    def other_games(self, count: int) -> None:
        """``count`` started 2-player Attila games besides the measured ones (the issue's
        "500 games in Redis"), from two players."""
        tokens = []
        for seat in range(2):
            r = self.call("POST", "/v1/players", body={"name": f"Other{seat}"})
            assert r.status_code == 201, r.text
            tokens.append(r.json()["token"])
        for _ in range(count):
            r = self.call("POST", "/v1/games", tokens[0], {"type": "attila", "seats": 2})
            assert r.status_code == 201, r.text
            game_id, invite = r.json()["id"], r.json()["invite_code"]
            body = {"invite_code": invite}
            r = self.call("POST", f"/v1/games/{game_id}/seats", tokens[1], body)
            assert r.status_code == 201, r.text
            r = self.call("POST", f"/v1/games/{game_id}/start", tokens[0])
            assert r.status_code == 200, r.text

    def _move(
        self, game_id: str, token: str, notation: str, seconds: float = 30
    ) -> requests.Response:
        """The move's answer (200, or 202 for a sealed choice), tried again while the worker
        resolves a conflict."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            r = self.call("POST", f"/v1/games/{game_id}/actions", token, {"notation": notation})
            if r.status_code in (200, 202):
                return r
            if r.status_code == 409 and r.json().get("code") == "not-your-turn":
                time.sleep(RETRY_WAIT)  # the worker has not resolved the conflict yet
                continue
            raise SystemExit(f"move {notation!r} refused: {r.status_code} {r.text[:300]}")
        raise SystemExit(f"move {notation!r} not taken within {seconds} s")


def timed(http: requests.Session, url: str, args: argparse.Namespace, **kw: Any) -> Timed:
    """``url`` requested one at a time after ``--warmup`` unmeasured requests (warm caches)."""
    size = 0
    for _ in range(args.warmup):
        r = http.get(url, timeout=30, **kw)
        assert r.status_code == 200, (url, r.status_code, r.text[:300])
        size = len(r.content)
    latencies: list[float] = []
    stop = time.monotonic() + args.seconds
    while len(latencies) < args.requests and time.monotonic() < stop:
        started = time.perf_counter()
        r = http.get(url, timeout=30, **kw)
        latencies.append(time.perf_counter() - started)
        assert r.status_code == 200, (url, r.status_code)
    return Timed(latencies, size)


def line(label: str, what: str, t: Timed, bare: Timed) -> str:
    return (
        f"  {label:<9} {what}: {latency_line(t.latencies)} ({len(t.latencies)} requests); "
        f"p95 {t.p95 / bare.p95:.1f}x bare"
    )


def wire(http: requests.Session, url: str) -> tuple[int, int]:
    """(bytes on the wire, bytes once decoded) of one answer, asked as a browser asks."""
    headers = {"Accept-Encoding": "gzip, deflate, br"}
    with http.get(url, timeout=30, headers=headers, stream=True) as r:
        assert r.status_code == 200, (url, r.status_code)
        raw = r.raw.read(decode_content=False)
        encoding = r.headers.get("Content-Encoding", "")
    return len(raw), len(gzip.decompress(raw)) if encoding == "gzip" else len(raw)


def with_imports(http: requests.Session, base: str, paths: list[str]) -> dict[str, str]:
    """The page's assets by name (their path under /assets/) with every module they import,
    and the modules those import: what a browser fetches."""
    found: dict[str, str] = {}
    todo = [html.unescape(path) for path in paths]
    while todo:
        path = todo.pop()
        name = urllib.parse.urlsplit(path).path.removeprefix("/assets/")
        if name in found:
            continue
        found[name] = base + path
        if name.endswith(".js"):
            text = http.get(base + path, timeout=30).text
            todo += [
                urllib.parse.urljoin(path, found_import) for found_import in IMPORT.findall(text)
            ]
    return found


def table_code_gz(http: requests.Session, urls: dict[str, str]) -> int:
    """The page's scripts, modules and style sheets (``with_imports``' names), each gzipped at
    level 6, in bytes."""
    return sum(
        len(gzip.compress(http.get(url, timeout=30).content, compresslevel=6))
        for name, url in urls.items()
        if name.endswith((".js", ".css"))
    )


def kb(size: int) -> str:
    return f"{size / 1024:.1f} KB ({size / 1024 / TARGET_KB:.0%} of {TARGET_KB:.0f} KB)"


def one_game(stack: Stack, args: argparse.Namespace, game_type: str, bare: Timed) -> None:
    api = Api(stack.base)
    game = get_game(game_type)
    players = min(max(args.players, game.min_players), getattr(game, "max_players", 99))
    game_id, tokens = api.game_mid_way(game_type, players, args.moves)
    view = api.call("GET", f"/v1/games/{game_id}", tokens[0]).json()
    assert view["status"] == "active", f"{game_type}: the game ended within {args.moves} moves"
    asked = [d["seat"] for d in view["waiting_for"] if d["seat"] != SYSTEM]
    seat = asked[0] if asked else 0
    browser = requests.Session()
    r = browser.post(
        stack.base + "/signin/token", data={"token": tokens[seat]}, allow_redirects=False
    )
    assert r.status_code in (302, 303) and browser.cookies, (r.status_code, r.text[:300])
    page_url = f"{stack.base}/games/{game_id}"
    page = timed(browser, page_url, args)
    body = browser.get(page_url, timeout=30).text
    assert "Sign out" in body, "the page was not served to a signed-in player"
    img = IMG.search(body) or TABLE_BOARD.search(body)
    assert img, "no board picture on the page"
    svg = timed(browser, stack.base + html.unescape(img.group(1)), args)
    live = timed(browser, page_url + "?live=1", args) if TABLE_BOARD.search(body) else None
    auth = {"headers": {"Authorization": f"Bearer {tokens[seat]}"}}
    view_t = timed(api.http, f"{stack.base}/v1/games/{game_id}", args, **auth)
    urls = {
        "html": page_url,
        **with_imports(browser, stack.base, ASSET.findall(body)),
        "svg": stack.base + html.unescape(img.group(1)),
    }
    parts = {name: wire(browser, url) for name, url in urls.items()}
    page_parts = {name: sizes for name, sizes in parts.items() if name != "svg"}
    total = sum(w for w, _ in page_parts.values())
    decoded = sum(d for _, d in page_parts.values())
    print(
        f"{game_type:<9} mid-game: {players} players, {args.moves} moves, version "
        f"{view['version']}, seat {seat} signed in ({'to move' if asked else 'waiting'})",
        flush=True,
    )
    verdict = "met" if page.p95 <= TARGET_P95_MS else f"missed by {page.p95 - TARGET_P95_MS:.1f} ms"
    print(line("page", "GET /games/<id> (HTML)", page, bare) + f"; target p95 ≤ 50 ms {verdict}")
    print(line("svg", "GET board.svg" if live is None else "GET table.svg", svg, bare))
    if live is not None:
        print(line("update", "GET /games/<id>?live=1 (in place)", live, bare))
    print(line("api", "GET /v1/games/<id> (JSON)", view_t, bare))
    weight = (
        "met" if total <= TARGET_KB * 1024 else f"missed by {(total / 1024 - TARGET_KB):.1f} KB"
    )
    svg_wire, svg_decoded = parts["svg"]
    print(
        "  bytes     on the wire (as a browser asks: Accept-Encoding gzip), without the board: "
        + " + ".join(f"{name} {w / 1024:.1f}" for name, (w, _) in page_parts.items())
        + f" = {kb(total)}; target {weight}; decoded {kb(decoded)}; the board SVG besides: "
        f"{svg_wire / 1024:.1f} KB on the wire, {svg_decoded / 1024:.1f} KB decoded",
        flush=True,
    )
    code_gz = table_code_gz(browser, urls)
    code_verdict = "met" if code_gz <= TABLE_CODE_KB * 1024 else "missed"
    print(
        f"  table JS+CSS gzipped (level 6; {sum(n.endswith(('.js', '.css')) for n in urls)} "
        f"files, modules included): {code_gz / 1024:.1f} KB; target ≤ {TABLE_CODE_KB:.0f} KB "
        f"{code_verdict}",
        flush=True,
    )
    if live is not None:
        # An update in place (kurier.js): the page without its board, then the board of the
        # new version from its own URL, without the unchanging parts the page shows (have=).
        moved, moved_decoded = wire(browser, page_url + "?live=1")
        verdict = "met" if moved <= UPDATE_KB * 1024 else "missed"
        have = ",".join(KEPT.findall(body))
        thin = wire(browser, urls["svg"] + "&have=" + have)[0] if have else svg_wire
        whole = moved + thin
        whole_verdict = "met" if whole <= MOVE_UPDATE_KB * 1024 else "missed"
        print(
            f"  per update on the wire: {moved / 1024:.1f} KB ({moved_decoded / 1024:.1f} KB "
            f"decoded); target ≤ {UPDATE_KB:.0f} KB {verdict}; plus the new board "
            f"{thin / 1024:.1f} KB (whole {svg_wire / 1024:.1f} KB; kept parts sent once: "
            f"{'yes' if have else 'none'}): {whole / 1024:.1f} KB in all, target ≤ "
            f"{MOVE_UPDATE_KB:.0f} KB {whole_verdict}",
            flush=True,
        )


#: Installed in each watching page: when each version first shows (the page's own clock).
SEEN = """() => {
  window.__seen = {};
  const mark = () => {
    const shown = document.querySelector('[data-game]');
    const v = shown && shown.getAttribute('data-version');
    if (v && !(v in window.__seen)) { window.__seen[v] = Date.now(); }
  };
  new MutationObserver(mark).observe(document.body, {childList: true, subtree: true});
  mark();
}"""
TARGET_DELAY_MS = 250.0


def browser_updates(stack: Stack, args: argparse.Namespace) -> None:
    """Other players' pages follow a game live (issue 32): ``--browser-moves`` moves of a
    2-player game (``--browser-game``: Attika, or the wargame) are played over the API while
    both players' pages and a spectator's are open in Chromium (following the stream); for
    each move, how long after its answer each page that did not make it shows the new version
    (swapped in place, board included)."""
    path = chromium_path()
    if path is None:
        print("browser   skipped: no chromium", flush=True)
        return
    from playwright.sync_api import sync_playwright

    api = Api(stack.base)
    game_type = args.browser_game
    game_id, tokens = api.game_mid_way(game_type, 2, 0)
    url = f"{stack.base}/games/{game_id}"
    delays: list[float] = []
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        pages = []
        for token in [*tokens, None]:
            context = chromium.new_context(viewport={"width": 1280, "height": 900})
            if token:
                context.request.post(stack.base + "/signin/token", form={"token": token})
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector("[data-game]", state="attached")
            page.evaluate(SEEN)
            pages.append(page)
        time.sleep(1.0)  # the streams open
        script = make_script(2, f"pages-{game_type}", game_type, args.browser_moves)
        for seat, notation in script:
            r = api._move(game_id, tokens[seat], notation)
            answered = time.time() * 1000
            version = str(r.json()["version"])
            for n, page in enumerate(pages):
                if n == seat:
                    continue
                page.wait_for_function(
                    "v => v in (window.__seen || {})", arg=version, timeout=15000
                )
                delays.append(page.evaluate("v => window.__seen[v]", version) - answered)
        chromium.close()
    p95 = percentile(delays, 0.95)
    verdict = "met" if p95 <= TARGET_DELAY_MS else f"missed by {p95 - TARGET_DELAY_MS:.0f} ms"
    print(
        f"browser   {game_type}: other pages show a move after its answer: p50 "
        f"{percentile(delays, 0.5):.0f}"
        f" / p95 {p95:.0f} / max {max(delays):.0f} ms ({len(delays)} page updates, "
        f"{len(script)} moves); target p95 ≤ {TARGET_DELAY_MS:.0f} ms {verdict}",
        flush=True,
    )


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="per measured URL (≤ 5000)")
    parser.add_argument("--seconds", type=float, default=20.0, help="per measured URL (≤ 120)")
    parser.add_argument(
        "--warmup", type=int, default=5, help="unmeasured requests per URL first (smoke run: 1)"
    )
    parser.add_argument("--moves", type=int, default=30, help="moves played before measuring")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", default=",".join(game_ids()), help="game types, comma-separated")
    parser.add_argument("--workers", type=int, default=1, help="rq worker processes")
    parser.add_argument(
        "--other-games", type=int, default=500, help="started games besides (≤ 5000)"
    )
    parser.add_argument(
        "--web-workers", type=int, default=0, help="gunicorn processes (0: default)"
    )
    parser.add_argument("--web-threads", type=int, default=4, help="threads per process")
    parser.add_argument(
        "--browser-moves",
        type=int,
        default=40,
        help="moves watched live in Chromium (0: none; ≤ 500)",
    )
    parser.add_argument(
        "--browser-game",
        choices=("attika", "attila-wargame"),
        default="attika",
        help="the 2-player game watched live",
    )
    args = parser.parse_args()
    args.browser_moves = min(max(args.browser_moves, 0), 500)
    args.streams = 1 if args.browser_moves else 0
    args.requests = min(max(args.requests, 1), 5000)
    args.warmup = min(max(args.warmup, 1), 100)
    args.seconds = min(args.seconds, 120.0)
    args.moves = min(args.moves, 500)
    args.other_games = min(max(args.other_games, 0), 5000)
    stack = Stack(args)
    if args.streams:  # the pages follow the stack's own stream server
        os.environ["KURIER_STREAM_URL"] = stack.streams_base
    stack.start()
    try:
        _wait(stack.base + "/healthz")
        _wait(stack.bare_base + "/bare")
        print(
            f"machine   {os.cpu_count()} cores, Python {sys.version.split()[0]}; "
            f"{args.web_workers or 2 * (os.cpu_count() or 1)}x{args.web_threads} gunicorn "
            f"gthread, {args.workers} rq worker(s); load average {loadavg()}",
            flush=True,
        )
        redis.Redis.from_url(stack.redis.url).set(BARE_KEY, "x" * 32)
        bare = timed(requests.Session(), stack.bare_base + "/bare", args)
        print(
            f"bare      GET /bare (Flask, one Redis GET): {latency_line(bare.latencies)} "
            f"({len(bare.latencies)} requests); the 1.0x of the ratios below",
            flush=True,
        )
        started = time.monotonic()
        Api(stack.base).other_games(args.other_games)
        print(
            f"games     {args.other_games} other started games in Redis "
            f"({time.monotonic() - started:.1f} s to make)",
            flush=True,
        )
        for game_type in args.games.split(","):
            one_game(stack, args, game_type.strip(), bare)
        if args.browser_moves:
            browser_updates(stack, args)
        print(f"done      load average {loadavg()}", flush=True)
    finally:
        stack.stop()


def _wait(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if requests.get(url, timeout=5).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{url} did not come up (see the stack's log)")


if __name__ == "__main__":
    main()

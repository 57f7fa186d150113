"""Wargame march benchmark: a march of up to 6 hexes is one request of several
actions, and its server time p95 is ≤ 50 ms.

Starts its own stack as benchmarks/load.py does (Redis with the production flags, one
``kurier worker``, ``kurier web`` = gunicorn with the service's settings), then ``--games``
2-player wargames over the API from one seed; in each, both secret notes are written and the
Barbarian, signed in as a browser is (``POST /signin/token``), picks counters up as the board
does (``GET /games/<id>/staged?unit=``: the counter's reachable hexes with their paths), asks
once more through a waypoint 2 hexes away (``&via=``, the page's question when a waypoint is
tapped) and sends the longest march of at most 6 hexes each offers as one request
(``POST /v1/games/<id>/actions`` with ``{"actions": [...]}``, the page's Confirm takes the same
path through ``play_all``, service/domain/games/play.py), ``--marches`` counters a game.
Printed: both latencies (loopback, one request at a time: the server's time and a fraction of a
millisecond), and the marches by length.

Then (``--fps-seconds``, 0: skip) the map's zoom and pan frame rate in Debian's Chromium
(software rendering) at 390×844 with touch and at 1280×900: the wargame page of a new game
signed in as its second player, and for that many seconds each frame (``requestAnimationFrame``)
one wheel step (zooming in and out by turns) or one drag move (panning in a circle) dispatched
on the map's box, the page's own handlers doing the rest. Printed: frames a second and the
frame times' p50/p95 (from the rAF timestamps between the performance timeline's marks
``wg-zoom-start`` and ``wg-zoom-end``) and the long animation frames the timeline reported
(``long-animation-frame``, over 50 ms). The target is ≥ 30 frames a second at 390 px.

Traffic only to 127.0.0.1. Not a test: ``.venv/bin/python benchmarks/wargame_march.py``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from collections import Counter
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.load import latency_line, percentile  # noqa: E402
from benchmarks.pages import Api, _wait, loadavg  # noqa: E402
from benchmarks.stack import Stack  # noqa: E402
from tests.chromium import CHROMIUM_ARGS, chromium_path  # noqa: E402

TARGET_P95_MS = 50.0
LONGEST = 6
TARGET_FPS = 30.0

#: Each frame one wheel step (zoom in, then out, by turns of a second) or one drag move (a
#: circle), for ``seconds``; the rAF timestamps and the long animation frames come back.
ZOOM_AND_PAN = """async (seconds) => {
  const box = document.querySelector('.wargame-board');
  box.scrollIntoView({block: 'center'});
  const r = box.getBoundingClientRect();
  const cx = r.left + r.width / 2, cy = r.top + r.height / 3;
  const times = [];
  let long = 0;
  const seen = new PerformanceObserver((list) => { long += list.getEntries().length; });
  try { seen.observe({type: 'long-animation-frame'}); } catch (e) { long = -1; }
  const pointer = {pointerId: 7, bubbles: true, pointerType: 'touch'};
  performance.mark('wg-zoom-start');
  const start = performance.now();
  let i = 0, down = false;
  await new Promise((done) => {
    function frame(t) {
      times.push(t);
      i += 1;
      const second = Math.floor((t - start) / 1000);
      if (second % 2 === 0) {
        if (down) { box.dispatchEvent(new PointerEvent('pointerup', pointer)); down = false; }
        const deltaY = second % 4 === 0 ? -30 : 30;
        box.dispatchEvent(new WheelEvent('wheel',
          {deltaY, clientX: cx, clientY: cy, bubbles: true, cancelable: true}));
      } else {
        const at = {clientX: cx + 60 * Math.sin(i / 8), clientY: cy + 40 * Math.cos(i / 8)};
        if (!down) {
          box.dispatchEvent(new PointerEvent('pointerdown', {...pointer, ...at}));
          down = true;
        }
        box.dispatchEvent(new PointerEvent('pointermove', {...pointer, ...at}));
      }
      if (t - start < seconds * 1000) { requestAnimationFrame(frame); } else { done(); }
    }
    requestAnimationFrame(frame);
  });
  if (down) { box.dispatchEvent(new PointerEvent('pointerup', pointer)); }
  performance.mark('wg-zoom-end');
  const span = performance.measure('wg-zoom', 'wg-zoom-start', 'wg-zoom-end').duration;
  await new Promise((done) => setTimeout(done, 200));  // the last long frames reported
  seen.disconnect();
  return {times, long, span, scale: box.dataset.scale};
}"""


def one_game(
    api: Api, seed: str, marches: int
) -> tuple[list[float], list[float], list[int], list[float]]:
    """(march requests' seconds, staged lookups' seconds, march lengths, lookups through a
    waypoint's seconds) in one new game."""
    tokens = []
    for seat in range(2):
        r = api.call("POST", "/v1/players", body={"name": f"W{seat}"})
        assert r.status_code == 201, r.text
        tokens.append(r.json()["token"])
    body = {"type": "attila-wargame", "seats": 2, "seed": seed}
    r = api.call("POST", "/v1/games", tokens[0], body)
    assert r.status_code == 201, r.text
    game_id, invite = r.json()["id"], r.json()["invite_code"]
    r = api.call("POST", f"/v1/games/{game_id}/seats", tokens[1], {"invite_code": invite})
    assert r.status_code == 201, r.text
    assert api.call("POST", f"/v1/games/{game_id}/start", tokens[0]).status_code == 200
    for token in tokens:  # each side's last legal note: far off, nothing fires early
        legal = api.call("GET", f"/v1/games/{game_id}/legal-actions", token).json()
        note = legal["actions"][-1]["notation"]
        r = api.call("POST", f"/v1/games/{game_id}/actions", token, {"notation": note})
        assert r.status_code in (200, 202), r.text
    view = api.call("GET", f"/v1/games/{game_id}").json()
    mover = next(d["seat"] for d in view["waiting_for"] if d["seat"] >= 0)
    token = tokens[mover]
    browser = requests.Session()
    r = browser.post(f"{api.base}/signin/token", data={"token": token}, allow_redirects=False)
    assert r.status_code == 302, r.text
    legal = api.call("GET", f"/v1/games/{game_id}/legal-actions", token).json()["actions"]
    units = sorted({a["action"]["unit"] for a in legal if a["action"]["type"] == "move"})
    sent: list[float] = []
    looked: list[float] = []
    lengths: list[int] = []
    routed: list[float] = []
    for unit in units:
        if len(sent) >= marches:
            break
        started = time.perf_counter()
        r = browser.get(f"{api.base}/games/{game_id}/staged", params={"unit": unit}, timeout=30)
        looked.append(time.perf_counter() - started)
        assert r.status_code == 200, r.text
        reach = [w for w in r.json()["march"]["reach"].values() if w["cost"] <= LONGEST]
        if not reach:
            continue
        # The page's question when a waypoint is tapped: the march through a hex 2 away.
        via = next((w["path"][-1] for w in reach if w["cost"] == 2 and not w["stop"]), None)
        if via is not None:
            started = time.perf_counter()
            r = browser.get(
                f"{api.base}/games/{game_id}/staged",
                params={"unit": unit, "via": via},
                timeout=30,
            )
            routed.append(time.perf_counter() - started)
            assert r.status_code == 200, r.text
        steps = max(reach, key=lambda w: w["cost"])["steps"]
        started = time.perf_counter()
        r = api.call("POST", f"/v1/games/{game_id}/actions", token, {"actions": steps})
        sent.append(time.perf_counter() - started)
        assert r.status_code == 200, r.text
        lengths.append(len(steps))
    return sent, looked, lengths, routed


def zoom_fps(base: str, api: Api, seconds: float) -> None:
    """The zoom and pan frame rate on the wargame's map in Chromium, at 390 and 1280 px."""
    path = chromium_path()
    if path is None:
        print("fps       skipped: no chromium", flush=True)
        return
    from playwright.sync_api import sync_playwright

    tokens = [
        api.call("POST", "/v1/players", body={"name": f"F{n}"}).json()["token"] for n in (0, 1)
    ]
    body = {"type": "attila-wargame", "seats": 2, "seed": "fps"}
    r = api.call("POST", "/v1/games", tokens[0], body)
    game_id, invite = r.json()["id"], r.json()["invite_code"]
    api.call("POST", f"/v1/games/{game_id}/seats", tokens[1], {"invite_code": invite})
    assert api.call("POST", f"/v1/games/{game_id}/start", tokens[0]).status_code == 200
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        for width, height, touch in ((390, 844, True), (1280, 900, False)):
            context = chromium.new_context(
                viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch
            )
            context.request.post(base + "/signin/token", form={"token": tokens[1]})
            page = context.new_page()
            page.goto(f"{base}/games/{game_id}")
            page.wait_for_selector(".wargame-board[data-scale]")
            got = page.evaluate(ZOOM_AND_PAN, seconds)
            times = got["times"]
            gaps = [b - a for a, b in itertools.pairwise(times)]
            fps = (len(times) - 1) / ((times[-1] - times[0]) / 1000) if len(times) > 1 else 0.0
            verdict = "ok" if fps >= TARGET_FPS else "UNDER"
            target = f"; target ≥ {TARGET_FPS:.0f}/s: {verdict}" if width < 600 else ""
            print(
                f"fps       {width}x{height}{' touch' if touch else ''}: {fps:.1f} frames/s "
                f"over {got['span'] / 1000:.1f} s of zoom and pan (frame p50 "
                f"{percentile(gaps, 0.5):.1f} / p95 {percentile(gaps, 0.95):.1f} ms, "
                f"{got['long']} long animation frames){target}",
                flush=True,
            )
            context.close()
        chromium.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="new games (≤ 200)")
    parser.add_argument("--marches", type=int, default=15, help="marches a game (≤ 60)")
    parser.add_argument("--workers", type=int, default=1, help="rq worker processes")
    parser.add_argument("--web-workers", type=int, default=0, help="gunicorn processes")
    parser.add_argument("--web-threads", type=int, default=4, help="threads per process")
    parser.add_argument(
        "--fps-seconds", type=float, default=6.0, help="zoom and pan measured (0: none; ≤ 60)"
    )
    args = parser.parse_args()
    args.fps_seconds = min(max(args.fps_seconds, 0.0), 60.0)
    args.games = min(max(args.games, 1), 200)
    args.marches = min(max(args.marches, 1), 60)
    args.streams = 0
    stack = Stack(args, with_bare=False)
    stack.start()
    try:
        _wait(stack.base + "/healthz")
        print(
            f"machine   {os.cpu_count()} cores, Python {sys.version.split()[0]}; "
            f"{args.web_workers or 2 * (os.cpu_count() or 1)}x{args.web_threads} gunicorn "
            f"gthread; load average {loadavg()}",
            flush=True,
        )
        api = Api(stack.base)
        sent: list[float] = []
        looked: list[float] = []
        lengths: list[int] = []
        routed: list[float] = []
        for n in range(args.games):
            s, lk, ln, rt = one_game(api, f"march-{n}", args.marches)
            sent += s
            looked += lk
            lengths += ln
            routed += rt
        p95 = percentile([v * 1000 for v in sent], 0.95)
        verdict = "ok" if p95 <= TARGET_P95_MS else "OVER"
        print(
            f"march     POST /v1/games/<id>/actions, {{'actions': [steps of ≤ {LONGEST} hexes]}}: "
            f"{latency_line(sent)} ({len(sent)} marches; target p95 ≤ {TARGET_P95_MS:.0f} ms: "
            f"{verdict})",
            flush=True,
        )
        print(f"lengths   {dict(sorted(Counter(lengths).items()))} (steps: marches)", flush=True)
        print(
            f"reach     GET /games/<id>/staged?unit=: {latency_line(looked)} "
            f"({len(looked)} counters picked up)",
            flush=True,
        )
        print(
            f"waypoint  GET /games/<id>/staged?unit=&via=: {latency_line(routed)} "
            f"({len(routed)} marches through a hex 2 away)",
            flush=True,
        )
        if args.fps_seconds:
            zoom_fps(stack.base, api, args.fps_seconds)
        print(f"done      load average {loadavg()}", flush=True)
    finally:
        stack.stop()


if __name__ == "__main__":
    main()

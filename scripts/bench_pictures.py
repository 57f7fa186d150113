"""Cost per board picture: building the SVG and rendering it to PNG, per game.

For each game one mid-game position (random legal moves) is drawn N times: the SVG build from
the view (``board_svg``), its PNG at 600 px (mail) and at the picture's own size. The baseline,
measured in the same run and interleaved with the pictures, is the PNG of a one-word SVG: the
renderer's fixed cost (loading the DejaVu faces, encoding), so figures from another machine
compare through their ratio to it. Each step is timed in CPU time of this process (the cost
of a picture, whatever else the machine runs) and in wall time (what a caller waits here and
now). Not a test: it prints p50/p95 and never asserts a time.

    .venv/bin/python scripts/bench_pictures.py --renders 20
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.registry import get_game
from service.pictures import board_crop_svg, board_svg
from service.pictures.png import svg_to_png
from tests.engine_helpers import play_randomly

#: game type -> (players, random legal moves): a position with pieces on the board.
POSITIONS = {"attila": (4, 120), "attika": (3, 150), "attila-wargame": (2, 300)}
MAIL_WIDTH = 600
NAMES = ["Anna", "Bruno", "Carla", "Dieter", "Emma"]

BASELINE_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="100">'
    '<rect width="600" height="100" fill="#fff"/>'
    '<text x="20" y="60" font-size="32">Kurier</text></svg>'
)


def _ms(action: Callable[[], object]) -> tuple[float, float]:
    """(CPU ms, wall ms) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    action()
    return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def measure(
    game_type: str, renders: int, max_seconds: float
) -> tuple[dict[str, list[tuple[float, float]]], tuple[float, float, float]]:
    """(CPU ms, wall ms) per step for up to ``renders`` rounds or ``max_seconds``; the SVG's
    and PNGs' sizes in KB. The picture names the players and marks the last move (one more
    random action after the ``moves``); the wargame's crop round it is timed too."""
    game = get_game(game_type)
    players, moves = POSITIONS[game_type]
    state = play_randomly(game, game.new_state(players, "bench"), moves, "bench")
    decision = game.pending(state)[0]
    action = random.Random("bench").choice(game.legal_actions(state, decision.seat))
    last = game.apply(state, decision.seat, action)
    view = game.view(state, None)
    marks: dict[str, Any] = {"names": NAMES[:players], "last_events": last}
    svg = board_svg(game_type, view, game_type, **marks)
    crop = board_crop_svg(game_type, view, game_type, **marks)
    times: dict[str, list[tuple[float, float]]] = {
        "baseline": [],
        "svg": [],
        "png600": [],
        "full": [],
    }
    if crop is not None:
        times["crop"] = []
    #: The last PNGs made, at 600 px and full size: their sizes are reported.
    pngs: dict[str, bytes] = {}
    stop_at = time.monotonic() + max_seconds
    while len(times["svg"]) < renders and time.monotonic() < stop_at:
        times["baseline"].append(_ms(lambda: svg_to_png(BASELINE_SVG)))
        times["svg"].append(_ms(lambda: board_svg(game_type, view, game_type, **marks)))
        times["png600"].append(_ms(lambda: pngs.update(png600=svg_to_png(svg, MAIL_WIDTH))))
        times["full"].append(_ms(lambda: pngs.update(full=svg_to_png(svg))))
        if crop is not None:
            times["crop"].append(_ms(lambda: svg_to_png(crop, MAIL_WIDTH)))
    png600 = pngs.get("png600") or svg_to_png(svg, MAIL_WIDTH)
    full = pngs.get("full") or svg_to_png(svg)
    return times, (len(svg) / 1024, len(png600) / 1024, len(full) / 1024)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=20, help="rounds per game")
    parser.add_argument("--max-seconds", type=float, default=60, help="per game")
    parser.add_argument("--games", nargs="*", default=list(POSITIONS), choices=list(POSITIONS))
    args = parser.parse_args()
    header = (
        "game            step            CPU p50   CPU p95  wall p50  wall p95   CPU p50/baseline"
    )
    print(header)
    print("-" * len(header))
    for game_type in args.games:
        times, (svg_kb, png600_kb, full_kb) = measure(game_type, args.renders, args.max_seconds)
        base = _pct([cpu for cpu, _ in times["baseline"]], 50)
        for step, values in times.items():
            label = {
                "png600": f"png {MAIL_WIDTH} px",
                "full": "png full size",
                "crop": f"crop {MAIL_WIDTH} px",
            }.get(step, step)
            cpu = [c for c, _ in values]
            wall = [w for _, w in values]
            print(
                f"{game_type:15} {label:14} {_pct(cpu, 50):8.1f} {_pct(cpu, 95):9.1f} "
                f"{_pct(wall, 50):9.1f} {_pct(wall, 95):9.1f} {_pct(cpu, 50) / base:12.1f}"
            )
        print(
            f"{game_type:15} rounds {len(times['svg'])}; SVG {svg_kb:.0f} KB, "
            f"PNG {png600_kb:.0f} KB at {MAIL_WIDTH} px, {full_kb:.0f} KB full size"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

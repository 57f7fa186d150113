"""Make the event-log compression dictionary of a game type (service/store/eventlog.py).

Plays ``--games`` random games with the engine (uniform among legal actions, fixed seeds, so the
output is reproducible) and keeps the last 32 KiB of their log entries, in the form the service
packs them (service/store/games.py): deflate looks back at most 32 KiB and finds the latest strings
cheapest.

A dictionary in use must never change (stored logs depend on it): write a new codec id.
``python scripts/make_zdict.py attila attila-1``
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.core import SYSTEM  # noqa: E402
from engine.registry import get_game  # noqa: E402
from service.store.eventlog import ZDICT_DIR  # noqa: E402

WINDOW = 32 * 1024
STATE_SHARE = 8 * 1024
SAMPLE_TIME = 1_795_000_000.123456  # a timestamp of the right shape for the "at" field


def sample_entries(game_type: str, games: int, max_actions: int) -> tuple[list[str], list[str]]:
    """Log entries of random games, and the stored state of each game at its middle."""
    game = get_game(game_type)
    out: list[str] = []
    states: list[str] = []
    for number in range(games):
        seed = f"zdict-{number}"
        players = game.min_players + number % (game.max_players - game.min_players + 1)
        state = game.new_state(players, seed, game.resolve_options(None))
        rng = random.Random(seed)
        for step in range(max_actions):
            if step == max_actions // 4:
                states.append(json.dumps(game.dump(state), separators=(",", ":")))
            decisions = game.pending(state)
            if not decisions:
                break
            seat = decisions[0].seat
            action = rng.choice(game.legal_actions(state, seat))
            events = game.apply(state, seat, action)
            entry = {
                "kind": "resolve" if seat == SYSTEM else "move",
                "seat": str(seat),
                "action": game.notation(action),
                "ref": decisions[0].ref,
                "commitment": "",
                "events": [e.to_json() for e in events],
                "at": repr(SAMPLE_TIME + len(out)),
            }
            out.append(json.dumps(entry, separators=(",", ":")))
    return out, states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game_type")
    parser.add_argument("codec", help="the new codec id, e.g. attila-1")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--max-actions", type=int, default=400, help="per game")
    args = parser.parse_args()
    target = ZDICT_DIR / f"{args.codec}.zdict"
    if target.exists():
        raise SystemExit(f"{target} exists: a dictionary in use never changes")
    entries, states = sample_entries(args.game_type, args.games, args.max_actions)
    # States first (stored once per version, read from further back), entries nearest.
    head = "".join(states[:4]).encode()[-STATE_SHARE:]
    target.write_bytes(head + "".join(entries).encode()[-(WINDOW - len(head)) :])
    print(
        f"{target}: {len(entries)} entries and {len(states)} states sampled, "
        f"{target.stat().st_size} bytes"
    )


if __name__ == "__main__":
    main()

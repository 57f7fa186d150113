"""A whole Attila wargame played only through HTTP: secret notes and battle cards sealed,
battles and the Lugdunum council resolved by the real worker, the record replayed.

Random legal play takes some 3,600 actions; this test plays a steered policy instead (see
``Policy``) that ends phases early but moves units into contact, so battles happen, and walks
Leo I to Lugdunum, so the council is called.
"""

from __future__ import annotations

import json
import random
import time
import xml.etree.ElementTree as ET
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from engine.attila_wargame.game import GAME as G
from tests.client import Kurier, Player, Verifier, commitment, wait_for_version

B = G.board
ROLES = B.bindings["roles"]
LEO, ATTILA = ROLES["pope"], ROLES["attila"]
LUGDUNUM = B.labels[B.city_by_id[B.bindings["council"]["city"]].hex]
SIDES = list(B.bindings["seats"])  # seat -> side
ROMAN, BARBARIAN = SIDES.index("roman"), SIDES.index("barbarian")
MAX_ACTIONS = 1500
MAX_SECONDS = 240
SVG = "{http://www.w3.org/2000/svg}"


def _distances(goal: str, blocked: set[str]) -> dict[str, int]:
    """Steps from every in-play hex to ``goal``, not through ``blocked`` hexes."""
    start = B.index_of_label[goal]
    dist = {start: 0}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        for n in B.neighbours[h]:
            if n not in dist and B.passable[n] and B.labels[n] not in blocked:
                dist[n] = dist[h] + 1
                queue.append(n)
    return {B.labels[h]: d for h, d in dist.items()}


@dataclass
class Policy:
    """Chooses among the legal actions a client was offered, from its view only.

    Movement: Leo I heads for Lugdunum until the council has been held; Attila heads for the
    unit the Roman suborned (the Roman told us: both seats are ours), which fires that note
    mid-game; up to ``pushes`` other steps per phase move a combat unit closer to the nearest
    enemy; then ``end``. Combat: attack whenever offered (``end`` half the time when it is
    allowed). Everything else (cards, retreats, advances, razing) at random.
    """

    rng: random.Random
    suborned: str
    pushes: int = 4
    used: dict[tuple[int, str], int] = field(default_factory=dict)

    def notes(self, seat: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
        if seat == ROMAN:
            return next(a for a in actions if a["action"]["unit"] == self.suborned)
        # The traitor is an Eastern unit: Leo, a Western unit, never meets it.
        eastern = [a for a in actions if a["action"]["unit"].startswith("E-")]
        return self.rng.choice(eastern)

    def choose(self, view: dict[str, Any], seat: int, legal: dict[str, Any]) -> dict[str, Any]:
        actions = legal["actions"]
        step = legal["decision"]["step"]
        if step == "secret_notes":
            return self.notes(seat, actions)
        if step == "movement":
            return self._movement(view, seat, actions)
        if step == "combat":
            attacks = [a for a in actions if a["action"]["type"] == "attack"]
            ends = [a for a in actions if a["action"]["type"] == "end"]
            if ends and (not attacks or self.rng.random() < 0.5):
                return ends[0]
            singles = [a for a in attacks if len(a["action"]["attackers"]) == 1]
            return self.rng.choice(singles or attacks)
        return self.rng.choice(actions)

    def _movement(
        self, view: dict[str, Any], seat: int, actions: list[dict[str, Any]]
    ) -> dict[str, Any]:
        units = view["units"]
        side = SIDES[seat]
        moves = [a for a in actions if a["action"]["type"] == "move"]
        end = next(a for a in actions if a["action"]["type"] == "end")
        if side == "roman" and not view["lugdunum_council_done"]:
            step = self._towards(units, LEO, LUGDUNUM, moves, side)
            if step is not None:
                return step
        if side == "barbarian" and self.suborned in units:
            step = self._towards(units, ATTILA, units[self.suborned]["hex"], moves, side)
            if step is not None:
                return step
        key = (view["round"], view["phase"])
        if self.used.get(key, 0) >= self.pushes:
            return end
        enemies = [
            u["hex"] for u in units.values() if u["combat"] and u["side"] not in (side, "neutral")
        ]
        best, gain = None, 0
        for a in moves:
            unit = a["action"]["unit"]
            if not units[unit]["combat"]:
                continue
            here, there = units[unit]["hex"], a["action"]["path"][-1]
            before = min(self._dist(here, e) for e in enemies)
            after = min(self._dist(there, e) for e in enemies)
            if before - after > gain or (before - after == gain > 0 and self.rng.random() < 0.3):
                best, gain = a, before - after
        if best is None:
            return end
        self.used[key] = self.used.get(key, 0) + 1
        return best

    @staticmethod
    def _dist(a: str, b: str) -> int:
        return B.distance(B.index_of_label[a], B.index_of_label[b])

    def _towards(
        self,
        units: dict[str, Any],
        unit: str,
        goal: str,
        moves: list[dict[str, Any]],
        side: str,
    ) -> dict[str, Any] | None:
        if unit not in units or units[unit]["hex"] == goal:
            return None
        blocked = {u["hex"] for u in units.values() if u["side"] != side} - {goal}
        dist = _distances(goal, blocked)
        here = dist.get(units[unit]["hex"], 10_000)
        steps = [a for a in moves if a["action"]["unit"] == unit]
        best = min(steps, key=lambda a: dist.get(a["action"]["path"][-1], 10_000), default=None)
        if best is None or dist.get(best["action"]["path"][-1], 10_000) >= here:
            return None
        return best


# -- playing over HTTP ----------------------------------------------------------------------


@dataclass
class Secret:
    """A sealed choice of one seat, as its author was answered (202)."""

    seat: int
    ref: str
    choice: str
    salt: str
    commitment: str


def _hidden_from_the_other(
    k: Kurier, game_id: str, viewer: Player, seat: int, s: Secret, version: int
) -> bool:
    """What ``viewer`` (seat ``seat``, not the author) sees shows nothing of ``s`` while the
    game is still at ``version``, the sealed choice's. A choice that completes its step can be
    resolved by the worker before we look; its reveal is then public, as it should be, and
    there is nothing to check (False)."""
    r = k.call("GET", f"/v1/games/{game_id}/events", viewer, params={"after": 0, "limit": 500})
    view = k.view(game_id, viewer)  # read after the log: still at version, so was the log
    if view["version"] != version:
        return False
    text = json.dumps(view)
    assert s.salt not in text and s.choice not in text
    inner = view["view"]
    known = inner["notes"]["known"]
    fired = set(inner["notes"]["fired"])
    if seat == ROMAN:
        assert not ({"traitor", "aetius"} - fired) & set(known), known
    else:
        assert "suborned" not in known or "suborned" in fired, known
    for holder in (inner["battle"], inner["council"]):
        if holder and holder["ref"] == s.ref:
            card = s.choice.split()[-1]
            assert "cards" not in holder
            assert f'"{card}"' not in json.dumps(holder), holder
    assert s.salt not in r.text
    for entry in r.json()["items"]:
        if entry["ref"] == s.ref and entry["seat"] == s.seat:
            assert entry["action"] is None, entry
    return True


def _resolved_enough(game: dict[str, Any], secrets: list[Secret], resolutions: int | None) -> bool:
    """Whether ``resolutions`` sealed steps other than the secret notes have been chosen by
    both seats and nothing waits for the worker (so each of them has been resolved)."""
    if resolutions is None or any(d["kind"] == "resolve" for d in game["waiting_for"]):
        return False
    seats_of: dict[str, set[int]] = {}
    for s in secrets:
        seats_of.setdefault(s.ref, set()).add(s.seat)
    chosen = [ref for ref, seats in seats_of.items() if ref != "notes" and len(seats) == 2]
    return len(chosen) >= resolutions


def _play(
    k: Kurier,
    game_id: str,
    players: list[Player],
    policy: Policy,
    resolutions: int | None = None,
) -> tuple[dict[str, Any], list[Secret], int]:
    """Play to the end, or when ``resolutions`` is given until that many sealed steps (a
    battle's cards, the council's) have both seats' choices and the game waits for no
    resolution: the last view, the sealed choices, and how many of them were checked hidden
    from the other seat before their step's resolution."""
    secrets: list[Secret] = []
    checked = 0
    deadline = time.monotonic() + MAX_SECONDS
    # The game is read as the seat that moved last (a side makes several decisions in a row):
    # its view says whom the game waits for, and is the mover's own view when it moves again.
    seat = 0
    for count in range(MAX_ACTIONS):
        assert time.monotonic() < deadline, f"not finished after {count} actions"
        game = k.view(game_id, players[seat])
        if game["status"] == "finished" or _resolved_enough(game, secrets, resolutions):
            return game, secrets, checked
        humans = [d for d in game["waiting_for"] if d["seat"] >= 0]
        if not humans:  # only the worker can go on: a battle or the council to resolve
            assert {d["kind"] for d in game["waiting_for"]} == {"resolve"}
            wait_for_version(k, game_id, game["version"], deadline)
            continue
        if humans[0]["seat"] != seat:
            seat = humans[0]["seat"]
            game = k.view(game_id, players[seat])
            assert seat in {d["seat"] for d in game["waiting_for"]}, game["waiting_for"]
        player = players[seat]
        legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
        assert legal["actions"], legal
        mine = game["view"]
        choice = policy.choose(mine, seat, legal)
        body = {"notation": choice["notation"]} if count % 2 else {"action": choice["action"]}
        r = k.call("POST", f"/v1/games/{game_id}/actions", player, json=body)
        if humans[0]["kind"] == "sealed":
            assert r.status_code == 202, r.text
            got = r.json()
            assert (
                commitment(game_id, got["ref"], seat, got["choice"], got["salt"])
                == got["commitment"]
            )
            secret = Secret(seat, got["ref"], got["choice"], got["salt"], got["commitment"])
            secrets.append(secret)
            # Right after a sealed choice, the other seat and a spectator see none of it.
            version = int(got["version"])
            checked += _hidden_from_the_other(
                k, game_id, players[1 - seat], 1 - seat, secret, version
            )
        else:
            assert r.status_code == 200, r.text
    raise AssertionError(f"not finished within {MAX_ACTIONS} actions")


def test_complete_wargame_over_http(kurier: Kurier) -> None:
    check_complete_wargame(kurier)


def check_wargame_resolutions(kurier: Kurier, battles: int) -> None:
    """The wargame over HTTP until the worker has resolved ``battles`` sealed steps: each
    sealed choice hidden from the other side until its step's resolution, each resolution made
    by the worker (seat -1) and its reveal matching the commitments published before it, the
    secret notes still sealed. The store's writes of a whole game are these kinds
    (test_complete_wargame_over_http plays one to its end)."""
    game_id, players = kurier.new_game(2, seed="wargame-http", game_type="attila-wargame")
    policy = Policy(random.Random(17), suborned="OST-1")
    last, secrets, checked = _play(kurier, game_id, players, policy, resolutions=battles)
    assert last["status"] == "active", "the game ended before its resolutions"

    log = kurier.all_events(game_id)
    resolutions = [entry for entry in log if entry["kind"] == "resolve"]
    assert all(entry["seat"] == -1 and entry["action"] == "resolve" for entry in resolutions)
    resolved_refs = {entry["ref"] for entry in resolutions}
    assert len(resolved_refs) >= battles, resolved_refs
    assert checked >= len(resolved_refs), (checked, resolved_refs)
    verifier = Verifier(game_id)
    for entry in log:
        verifier.note_entry(entry)
    revealed = [s for s in secrets if s.ref in resolved_refs]
    assert verifier.verified == len(revealed) and len(verifier.seen) == len(secrets)
    reveals = _reveals_match(log, revealed)
    # The secret notes stay sealed in the middle of the game: nobody else sees them.
    notes = [s for s in secrets if s.ref == "notes"]
    assert len(notes) == 2 and "notes" not in {ref for _, ref in reveals}
    spectator = json.dumps([kurier.view(game_id), log])
    assert not any(s.salt in spectator for s in notes)


def _reveals_match(log: list[dict[str, Any]], secrets: list[Secret]) -> dict[tuple[int, str], Any]:
    """Each of ``secrets`` revealed in ``log`` with the choice, salt and commitment its player
    sealed; the log's reveals by (seat, ref)."""
    reveals = {
        (c["seat"], e["data"]["ref"]): c
        for entry in log
        for e in entry["events"]
        if e["kind"] == "sealed_revealed"
        for c in e["data"]["choices"]
    }
    for s in secrets:
        shown = reveals[(s.seat, s.ref)]
        assert (shown["choice"], shown["salt"], shown["commitment"]) == (
            s.choice,
            s.salt,
            s.commitment,
        )
    return reveals


def check_complete_wargame(kurier: Kurier) -> None:
    """A whole wargame over HTTP: the sealed steps hidden from the other side until resolved,
    the record replayed to the same end."""
    started = time.monotonic()
    game_id, players = kurier.new_game(2, seed="wargame-http", game_type="attila-wargame")
    # Two pushes a phase bring the sides into contact for 9 battles over the 16 rounds in this
    # seeded game (four: the same kinds of step, 2.5 times the actions).
    policy = Policy(random.Random(17), suborned="OST-1", pushes=2)
    final, secrets, checked = _play(kurier, game_id, players, policy)

    # The game reached its end: round 16 played out, a winner named.
    assert final["status"] == "finished"
    view = final["view"]
    assert view["round"] == B.rounds and view["phase"] == "over"
    assert final["result"]["winners"] in ([ROMAN], [BARBARIAN])

    log = kurier.all_events(game_id)
    kinds = [e["kind"] for entry in log for e in entry["events"]]
    resolutions = [entry for entry in log if entry["kind"] == "resolve"]
    # Battles and the Lugdunum council were resolved by the worker (seat -1 "resolve").
    assert all(entry["seat"] == -1 and entry["action"] == "resolve" for entry in resolutions)
    battle_refs = {e["ref"] for e in resolutions if e["ref"].startswith("battle-")}
    council = [
        e["data"]
        for entry in resolutions
        for e in entry["events"]
        if e["kind"] == "council_resolved" and e["data"]["kind"] == "lugdunum"
    ]
    assert len(battle_refs) >= 5, battle_refs
    assert council, "the Lugdunum council was never resolved"
    # A council result before the invasion of the West waits for it (10.1), then applies.
    assert "sides_await_west_invasion" in kinds or "people_joined" in kinds
    if "sides_await_west_invasion" in kinds and "west_invaded" in kinds:
        invaded = kinds.index("west_invaded")
        assert kinds[invaded + 1 : invaded + 3] == ["people_joined", "people_joined"]
    # A battle's first card cannot be resolved before the second: each was checked hidden.
    assert checked >= len(battle_refs), (checked, len(battle_refs))
    # The suborned unit fired mid-game (Attila walked next to it): the engine's reveal.
    [fired] = [
        e["data"] for entry in log for e in entry["events"] if e["kind"] == "suborned_revealed"
    ]
    assert fired["unit"] == "OST-1"

    # Every commitment, checked by the client as it was published; every sealed choice,
    # battle cards, council cards and the secret notes alike, revealed with its salt.
    verifier = Verifier(game_id)
    for entry in log:
        verifier.note_entry(entry)
    assert verifier.verified == len(secrets) == len(verifier.seen)
    _reveals_match(log, secrets)
    # The notes had no resolve step: the service reveals them with the game's end, in the
    # same log entry as game_over, and they agree with the engine's own reveals.
    last = log[-1]["events"]
    assert [e["kind"] for e in last][-1] == "game_over"
    [notes_reveal] = [e["data"] for e in last if e["kind"] == "sealed_revealed"]
    assert notes_reveal["ref"] == "notes" and len(notes_reveal["choices"]) == 2
    noted = {c["seat"]: G.parse(c["choice"]) for c in notes_reveal["choices"]}
    [engine_notes] = [e["data"] for e in last if e["kind"] == "notes_revealed"]
    assert noted[ROMAN].unit == engine_notes["suborned"] == fired["unit"]
    assert noted[BARBARIAN].unit == engine_notes["traitor"]
    assert noted[BARBARIAN].aetius == engine_notes["aetius"]

    # The record replays with the engine to the same result.
    record = kurier.call("GET", f"/v1/games/{game_id}/record").json()
    assert record["complete"] is True and record["seed"] == "wargame-http"
    assert {(r["ref"]) for r in record["reveals"]} >= {"notes", *battle_refs}
    moves = [(a["seat"], a["action"]) for a in record["actions"]]
    state = G.replay(record["players"], record["seed"], record["options"], moves)
    assert G.result(state) == record["result"] == final["result"]

    # A sealed choice's log entry shows its choice to everyone once the game is over.
    for seat, player in enumerate(players):
        own = kurier.all_events(game_id, player)
        sealed_entries = [e for e in own if e["kind"] == "sealed"]
        assert sealed_entries and all(e["action"] for e in sealed_entries), seat
    # The board picture is served for this game type, drawn from the spectator's view.
    r = kurier.call("GET", f"/v1/games/{game_id}/board.svg")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("image/svg+xml")
    root = ET.fromstring(r.text)
    hexes = [g for g in root.iter(f"{SVG}g") if g.get("id", "").startswith("hex-")]
    assert len(hexes) == len(B.labels)
    winner = "Roman" if final["result"]["winner_side"] == "roman" else "Barbarian"
    assert f"The {winner} player wins" in r.text
    elapsed = time.monotonic() - started
    print(
        f"wargame over HTTP: {len(log)} log entries, {len(secrets)} sealed, "
        f"{len(battle_refs)} battles, {elapsed:.1f} s"
    )

"""The end of the game: the end council's call, the score and who wins (7, 8), resigning.

After phase (f) of the last round the game ends (or the Roman may first convene the end
council, 10.4). The Barbarian wins by holding a city of each region or by reaching the points
threshold (``VICTORY_COMBINATION``); otherwise the Roman wins. A resignation ends the
two-player game at once (docs/rules/attila-wargame.md, "Resigning"). Either way the secret
notes are revealed.
"""

from __future__ import annotations

from typing import Any

from engine.attila_wargame.base import RulesBase
from engine.attila_wargame.map_questions import BARBARIAN, ROMAN
from engine.attila_wargame.state import CONVENE, OVER, WargameState
from engine.core import Event, rank_with_resigned, start_rejoin, start_resign


def with_reasons(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` as the game reports it (its ``game_ended`` event, ``Game.result``, the view):
    with its ``reasons``, the calendar's end unless it names its own (a resignation), as every
    game's result names them. The stored state keeps the result as it was scored, so stored
    games replay to the very state they hold (service/domain/pinning.py)."""
    return {"reasons": ["last_round"], **result}


class Victory(RulesBase):
    """Scoring, finishing and resigning."""

    def _game_end(self, state: WargameState, events: list[Event]) -> None:
        pope = self.roles["pope"]
        if (
            state.leo == "alive"
            and state.attila_title == "antipope"
            and state.pos.get(pope) in self.b.city_at
        ):
            state.step = CONVENE
            return
        self._finish(state, events)

    def score(self, state: WargameState) -> dict[str, Any]:
        """The Barbarian's points and regions (7, 8 and the forces sheet's other points)."""
        b = self.b
        vp = b.vp
        lines: dict[str, int] = {}
        regions: dict[str, list[str]] = {}
        holders = self.holders(state)
        for city in b.cities:
            side = holders.get(city.id)
            if city.plus and side == BARBARIAN:
                lines[city.id] = city.value
                if city.region:
                    regions.setdefault(city.region, []).append(city.id)
            elif not city.plus and side == ROMAN:
                lines[city.id] = -city.value
        if state.leo != "alive":
            lines["leo_dead_or_expelled"] = vp["leo_dead_or_expelled"]
        pope = self.roles["pope"]
        counted = {"eliminated", "killed", "murdered"}
        if state.options["EVENT_DEATHS_SCORE"]:
            counted.add("died")
        roman_cmus = barbarian_cmus = 0
        for unit, why in state.gone.items():
            if self.is_combat[unit] or why not in counted:
                continue
            people = self.people_of[unit]
            if people in self.roman_nations:
                if unit == pope and state.options["LEO_COUNTS_ONCE"]:
                    continue
                roman_cmus += 1
            elif people in self.barbarian_cmu_peoples:
                barbarian_cmus += 1
        if roman_cmus:
            lines["roman_cmu_eliminated"] = vp["roman_cmu_eliminated"] * roman_cmus
        if barbarian_cmus:
            lines["barbarian_cmu_eliminated"] = vp["barbarian_cmu_eliminated"] * barbarian_cmus
        if state.attila_title in ("pope", "antipope"):
            lines["attila_pope_or_antipope"] = vp["attila_pope_or_antipope"]
        return {"points": sum(lines.values()), "lines": lines, "regions": regions}

    # -- resigning (docs/rules/attila-wargame.md, "Resigning") -----------------------------------

    def resign(self, state: WargameState, seat: int, forfeit: bool) -> list[Event]:
        """Two players: the opponent wins at once; the secret notes are revealed as at an end."""
        events: list[Event] = []
        start_resign(state.step == OVER, len(self.seats), state.resigned, seat, forfeit, events)
        winner = 1 - seat
        result = {
            "winners": [winner],
            "winner_side": self.seats[winner],
            "scores": [1 if s == winner else 0 for s in range(len(self.seats))],
            "reasons": ["resigned"],
        }
        state.result = rank_with_resigned(result, state.resigned, len(self.seats))
        state.battle = state.council = None  # a battle or council half fought is left
        self._end(state, events)
        return events

    def rejoin(self, state: WargameState, seat: int) -> list[Event]:
        events: list[Event] = []  # a resignation ends a two-player game: nothing to rejoin
        start_rejoin(state.step == OVER, state.resigned, seat, events)
        return events

    def _end(self, state: WargameState, events: list[Event]) -> None:
        state.step = OVER
        state.phase = "over"
        notes = {k: v for k, v in state.notes.items() if k != "written"}
        events.append(self._event("notes_revealed", **notes))
        events.append(self._event("game_ended", **with_reasons(state.result or {})))

    def _finish(self, state: WargameState, events: list[Event]) -> None:
        score = self.score(state)
        wanted = {c.region for c in self.b.cities if c.region}
        regional = wanted <= set(score["regions"])
        threshold = state.options["BARBARIAN_POINTS_THRESHOLD"]
        on_points = score["points"] >= threshold
        if state.options["VICTORY_COMBINATION"] == "both":
            barbarian_wins = regional and on_points
        else:
            barbarian_wins = regional or on_points
        winner = BARBARIAN if barbarian_wins else ROMAN
        seat = self.seat_of[winner]
        state.result = {
            "winners": [seat],
            "winner_side": winner,
            "scores": [1 if s == seat else 0 for s in range(len(self.seats))],
            "barbarian_points": score["points"],
            "points_lines": score["lines"],
            "threshold": threshold,
            "regions_held": score["regions"],
            "regional_victory": regional,
            "points_victory": on_points,
        }
        self._end(state, events)

"""The Attila wargame (International Team, 1981) as a ``Game``: options, views, entry points."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from engine.attila_wargame.actions import Attack, End, Move, Notation, WargameAction
from engine.attila_wargame.board import Board, load_board
from engine.attila_wargame.describe import Describe
from engine.attila_wargame.rules import Rules
from engine.attila_wargame.state import WargameState, dump_state, load_state
from engine.attila_wargame.victory import with_reasons
from engine.core import IllegalAction, RulesGame, options_from_data
from engine.sentences import N_

#: Codes of a unit's one-hex steps (``action_code``): one per side of a hex; of an attack's
#: attackers: a set of sides of the target hex.
STEP_CODES = 6
ATTACK_SIDES = 1 << STEP_CODES

_DEFAULT_DESCRIPTION = "proposed ruling for an open point; see docs/rules/attila-wargame.md"


class WargameGame(RulesGame[WargameState, WargameAction]):
    id: ClassVar[str] = "attila-wargame"
    title: ClassVar[str] = "Attila (the wargame)"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    rules_version: ClassVar[str] = "attila-wargame-2"
    #: Each kind of move in a few words, for mails (docs/rules/attila-wargame.md has the rules).
    move_rules: ClassVar[Mapping[str, str]] = {
        "note": N_(
            "your secret note (sealed): the Barbarian names the traitor unit and the first "
            "of Aetius's three rounds (note W-III-INF 5), the Roman the suborned unit "
            "(note HER-3)"
        ),
        "move": N_("move a unit along a path of hexes, in order: move HUN-7 3110-3111"),
        "end": N_("end the current movement or combat phase: end"),
        "raze": N_("Attila's permanent devastation of hexes (raze 3110 3111), or none (raze -)"),
        "attack": N_(
            "a battle: the target hex and the attacking units: attack 3213 by HUN-3 HUN-4"
        ),
        "card": N_("play a battle or diplomatic card (sealed): card al"),
        "push": N_("make the losers retreat (push) or not (spare)"),
        "retreat": N_("the hex a retreating unit goes to: retreat W-III-INF 2114"),
        "advance": N_("advance after combat into the vacated hex (advance HUN-3 3213), or stay"),
        "convene": N_("Leo I calls the end-of-game council (convene) or not (decline)"),
    }
    step_names: ClassVar[Mapping[str, str]] = {
        "secret_notes": N_("your secret notes"),
        "movement": N_("movement"),
        "permanent_devastation": N_("permanent devastation"),
        "combat": N_("combat"),
        "battle_card": N_("a battle card"),
        "push_back": N_("push the losers back, or spare them"),
        "retreat": N_("retreat"),
        "advance": N_("advance after combat, or stay"),
        "council_card": N_("a council card"),
        "end_council": N_("call the end council, or not"),
    }
    rules: Rules  # the full rules object, beyond what RulesGame needs of it
    board: Board

    def __init__(self, board: Board) -> None:
        self.board = board
        self.rules = Rules(board)
        self.notation_ = Notation(board)
        self.describer = Describe(board)
        self.options = options_from_data(board.raw["options"], _DEFAULT_DESCRIPTION)
        self._step_codes_end = 1 + len(board.unit_order) * STEP_CODES

    # -- setup and play ---------------------------------------------------------------------

    def new_state(
        self, players: int, seed: str, options: Mapping[str, Any] | None = None
    ) -> WargameState:
        self.check_players(players)
        return self.rules.new_state(seed, self.resolve_options(options))

    # -- a finished game's packed log (service/store/logpack.py) ------------------------------

    def action_code(self, state: WargameState, seat: int, action: Any) -> int | None:
        """A step of one hex by its unit (among the seat's units on the map) and direction,
        read off the board (the legal steps of a movement phase are every step of every unit:
        their list costs more than the step); ``end`` as 0; an attack by its target and the
        sides of the target its attackers stand on (the legal attacks are every set of
        attackers the battle duties allow: their list costs more than the battle); any other
        action by its index among the legal ones (after the steps: even codes the legal index,
        odd ones an attack)."""
        if isinstance(action, End):
            return 0
        if isinstance(action, Move) and len(action.path) == 1 and action.unit in state.pos:
            around = self.board.neighbours[state.pos[action.unit]]
            units = self._units_of(state, seat)
            if action.path[0] in around and action.unit in units:
                return 1 + units.index(action.unit) * STEP_CODES + around.index(action.path[0])
        if isinstance(action, Attack):
            sides = self._attack_sides(state, action)
            if sides is not None:
                return self._step_codes_end + 2 * (action.target * ATTACK_SIDES + sides) + 1
        code = super().action_code(state, seat, action)
        return None if code is None else self._step_codes_end + 2 * code

    def code_action(self, state: WargameState, seat: int, code: int) -> Any:
        if code == 0:
            return End()
        if code < self._step_codes_end:
            units = self._units_of(state, seat)
            unit, direction = divmod(code - 1, STEP_CODES)
            around = self.board.neighbours[state.pos[units[unit]]] if unit < len(units) else ()
            if direction >= len(around):
                raise _bad_code(code)
            return Move(units[unit], (around[direction],))
        number, is_attack = divmod(code - self._step_codes_end, 2)
        if not is_attack:
            return super().code_action(state, seat, number)
        target, sides = divmod(number, ATTACK_SIDES)
        if target >= len(self.board.neighbours):
            raise _bad_code(code)
        combat_at = {h: u for u, h in state.pos.items() if self.rules.is_combat[u]}
        around = self.board.neighbours[target]
        attackers = [combat_at.get(h) for d, h in enumerate(around) if sides >> d & 1]
        if not attackers or None in attackers or sides >> len(around):
            raise _bad_code(code)
        ordered = sorted((str(u) for u in attackers), key=self.rules.order.__getitem__)
        return Attack(target, tuple(ordered))

    def _attack_sides(self, state: WargameState, action: Attack) -> int | None:
        """The sides of the target hex its attackers stand on, one bit each."""
        around = self.board.neighbours[action.target]
        sides = 0
        for unit in action.attackers:
            if state.pos.get(unit) not in around:
                return None
            sides |= 1 << around.index(state.pos[unit])
        return sides or None

    def _units_of(self, state: WargameState, seat: int) -> list[str]:
        """The units of ``seat``'s side on the map, in the board's order."""
        side = self.rules.seats[seat] if 0 <= seat < len(self.rules.seats) else None
        return [
            u for u in self.board.unit_order if u in state.pos and self.rules.side(state, u) == side
        ]

    def dump(self, state: WargameState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, raw: Mapping[str, Any]) -> WargameState:
        return load_state(dict(raw))

    # -- views -----------------------------------------------------------------------------

    def view(self, state: WargameState, seat: int | None) -> dict[str, Any]:
        """Everything on the table; the secret notes and sealed cards of ``seat`` only."""
        b, r = self.board, self.rules
        lab = b.labels
        units = {}
        for unit in sorted(state.pos, key=r.order.__getitem__):
            entry: dict[str, Any] = {
                "hex": lab[state.pos[unit]],
                "people": r.people_of[unit],
                "side": r.side(state, unit),
                "combat": r.is_combat[unit],
                "mf": b.units[unit].mf,
            }
            if r.is_combat[unit]:
                entry |= {"cf": state.cf[unit], "printed_cf": b.units[unit].cf}
            if unit in state.neutralised:
                entry["neutralised"] = True
            if unit in state.moved:
                entry["moved"] = state.moved[unit]
            if state.frozen.get(unit, 0) > state.round:
                entry["moves_from_round"] = state.frozen[unit]
            units[unit] = entry
        over = state.result is not None
        out: dict[str, Any] = {
            "seat": seat,
            "sides": list(r.seats),
            "round": state.round,
            "season": b.seasons[(state.round - 1) % len(b.seasons)],
            "phase": state.phase,
            "step": state.step,
            "pending": [d.to_json() for d in self.pending(state)],
            "units": units,
            "gone": dict(state.gone),
            "alignment": dict(state.alignment),
            "devastated": {
                "temporary": [lab[h] for h in state.temp_devastated],
                "permanent": [lab[h] for h in state.perm_devastated],
            },
            "west_invaded": state.west_invaded,
            "gaul_invaded": state.gaul_invaded,
            "cities_taken": list(state.taken),
            "leo": state.leo,
            "attila_title": state.attila_title or None,
            "lugdunum_council_done": state.lugdunum_done,
            "sides_at_west_invasion": dict(state.sides_at_west_invasion),
            "attila_trail": [lab[h] for h in state.attila_trail],
            "fought": list(state.fought),
            "attacked": list(state.attacked),
            "battle": self._sealed_view(state.battle, seat, battle=True),
            "council": self._sealed_view(state.council, seat, battle=False),
            "notes": self._notes_view(state, seat, over),
            "score": r.score(state) if over else None,
            "result": self.result(state),
        }
        return out

    def result(self, state: WargameState) -> dict[str, Any] | None:
        return None if state.result is None else with_reasons(state.result)

    def _sealed_view(self, holder: Any, seat: int | None, battle: bool) -> dict[str, Any] | None:
        if holder is None:
            return None
        lab = self.board.labels
        out: dict[str, Any] = {
            "ref": holder.ref,
            "chosen": sorted(int(s) for s in holder.cards),
        }
        if battle:
            out |= {
                "target": lab[holder.target],
                "attackers": list(holder.attackers),
                "defenders": list(holder.defenders),
                "attack": holder.attack_strength,
                "defence": holder.defence_strength,
                "column": holder.column,
                "result": holder.result,
                "losers": list(holder.losers),
                "retreating": list(holder.retreating),
                "vacated": [lab[h] for h in holder.vacated],
            }
            revealed = holder.result is not None
        else:
            out["kind"] = holder.kind
            revealed = holder.result is not None
        if revealed:
            out["cards"] = dict(holder.cards)
        elif seat is not None and str(seat) in holder.cards:
            out["own_card"] = holder.cards[str(seat)]
        return out

    def _notes_view(self, state: WargameState, seat: int | None, over: bool) -> dict[str, Any]:
        notes = state.notes
        written = sorted(int(s) for s in notes.get("written", {}))
        out: dict[str, Any] = {"written": written, "fired": list(state.notes_fired)}
        side = self.rules.seats[seat] if seat is not None and 0 <= seat < 2 else None
        keys_of = {"barbarian": ("traitor", "aetius"), "roman": ("suborned",)}
        shown: dict[str, Any] = {}
        for owner, keys in keys_of.items():
            for key in keys:
                if key not in notes:
                    continue
                fired = key in state.notes_fired or (
                    key == "aetius" and "aetius" in state.notes_fired
                )
                if over or owner == side or fired:
                    shown[key] = notes[key]
        out["known"] = shown
        return out


GAME = WargameGame(load_board())


def _bad_code(code: int) -> IllegalAction:
    return IllegalAction("bad-code", f"no action has the code {code} here", number=code)

"""The Attila wargame's events in words: one short English sentence per event
(docs/describe.md).

Design: one event, one sentence, in the order the engine emits them. A move along a path
emits one ``moved`` per hex, so it reads as one sentence per hex ("Huns 7 moved to hex
2410." "Huns 7 moved to Aquileia."); a battle reads as declared, cards chosen, resolved,
losses, retreats. Most events carry no seat (units change sides during the game), so their
sentences name units, not players; the seats are named where the event says who acted
(secret notes, sealed cards) and for the council, where the Roman and the Barbarian seat
are fixed by ``bindings.json``.

Names come from the data files: command units and cities by ``name`` (without the
parenthesis: "Leo I", "Attila Rex"), peoples by ``name`` ("Huns"), legions and eastern
units by their type and designation ("Western legion III (infantry)"), hordes by people and
number ("Huns 7"), combat and council cards by their English name, phases by the calendar's
name. A hex is its city's name, else "hex CCRR". Every template is in ``TEMPLATES``.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.attila_wargame.board import Board
from engine.core import Event, Translator
from engine.sentences import N_, Describer, Template, Words, describe_with, fill, join, player, word

#: Every sentence the wargame says, keyed by a template id (the event kind, or kind.variant).
TEMPLATES: dict[str, Template] = {
    "place.hex": N_("hex {hex}"),
    "unit.designated": N_("{kind} {designation} ({arm})"),
    "unit.numbered": N_("{people} {number}"),
    "note_written": N_("{player} wrote their secret note."),
    "note_written_own.barbarian": (
        N_(
            "{player} named {traitor} as the traitor and round {aetius} as the first of "
            "Aetius's rounds (only you see this)."
        )
    ),
    "note_written_own.roman": (
        N_("{player} named {suborned} as the suborned unit (only you see this).")
    ),
    "notes_revealed": (
        N_(
            "The secret notes: the traitor was {traitor}, Aetius's rounds began in round "
            "{aetius}, the suborned unit was {suborned}."
        )
    ),
    "round_started": N_("Round {round} ({season}) begins."),
    "phase_started": N_("Round {round}: {phase}."),
    "moved": N_("{unit} moved to {place}."),
    "move_cut_short": N_("{unit} had to stop there."),
    "west_invaded": N_("{unit} invaded the Western Empire at {place}."),
    "gaul_invaded": N_("{unit} invaded Gaul at {place}."),
    "city_taken": N_("{unit} took {city}."),
    "federated": N_("The Pope's visit to {city} made the {people} federates of Rome."),
    "traitor_revealed": N_("{traitor} is revealed as the traitor and stands aside."),
    "traitor_revealed.antipope": (
        N_("{traitor} is revealed as the traitor and stands aside; Attila is proclaimed Antipope.")
    ),
    "traitor_revealed.pope": (
        N_("{traitor} is revealed as the traitor and stands aside; Attila is consecrated Pope.")
    ),
    "traitor_restored": N_("{by} brought the traitor {traitor} back into the Roman ranks."),
    "suborned_revealed": N_("{unit} is revealed as suborned by Rome and kills {killed}."),
    "aetius_murdered": N_("{aetius} is murdered on the Emperor's order in round {round}."),
    "unit_removed.eliminated": N_("{unit} was eliminated at {place}."),
    "unit_removed.killed": N_("{unit} was killed at {place}."),
    "unit_removed.murdered": N_("{unit} was murdered at {place}."),
    "unit_removed.died": N_("{unit} died at {place}."),
    "unit_removed.eliminated.off_map": N_("{unit} was eliminated."),
    "unit_removed.killed.off_map": N_("{unit} was killed."),
    "unit_removed.murdered.off_map": N_("{unit} was murdered."),
    "unit_removed.died.off_map": N_("{unit} died."),
    "unit_entered": N_("{unit} entered the map at {place}."),
    "unit_not_entered": N_("{unit} could not enter the map."),
    "strength_lost": N_(
        "{unit} lost {count} strength point ({cf} left).",
        "{unit} lost {count} strength points ({cf} left).",
    ),
    "siege_loss": N_("{unit} is besieged in {city}."),
    "devastated": N_(
        "The Barbarians devastated {count} field: hex {hexes}.",
        "The Barbarians devastated {count} fields: hexes {hexes}.",
    ),
    "recovered": N_(
        "The Romans recovered {count} field: hex {hexes}.",
        "The Romans recovered {count} fields: hexes {hexes}.",
    ),
    "razed": N_(
        "Attila devastated {count} field for good: hex {hexes}.",
        "Attila devastated {count} fields for good: hexes {hexes}.",
    ),
    "command_units_overrun": N_(
        "{units}, alone at {place}, was overrun.",
        "{units}, alone at {place}, were overrun.",
    ),
    "battle_declared": N_(
        "{attackers} attacked {defenders} at {place}: {attack} against {defence}, odds {column}."
    ),
    "card_chosen.battle": N_("{player} chose a battle card."),
    "card_chosen.council": N_("{player} chose a council card."),
    "card_chosen_own": N_("{player} chose {card} (only you see this)."),
    "battle_resolved.AR": N_(
        "Battle at odds {column}, {attack_card} against {defence_card}: the attackers must retreat."
    ),
    "battle_resolved.DR": N_(
        "Battle at odds {column}, {attack_card} against {defence_card}: the defenders must retreat."
    ),
    "battle_resolved.AE": N_(
        "Battle at odds {column}, {attack_card} against {defence_card}: the attackers lose "
        "{count} point each.",
        "Battle at odds {column}, {attack_card} against {defence_card}: the attackers lose "
        "{count} points each.",
    ),
    "battle_resolved.DE": N_(
        "Battle at odds {column}, {attack_card} against {defence_card}: the defenders lose "
        "{count} point each.",
        "Battle at odds {column}, {attack_card} against {defence_card}: the defenders lose "
        "{count} points each.",
    ),
    "push_decided.yes": N_("The winner pushed the losers back."),
    "push_decided.no": N_("The winner did not push the losers back."),
    "retreat_blocked": N_("{unit} could not retreat."),
    "retreated": N_("{unit} retreated to {place}."),
    "advanced": N_("{unit} advanced to {place}."),
    "council_called.lugdunum": N_("A council is called at {city}."),
    "council_called.end": N_("The final council is called."),
    "council_resolved": (
        N_("At the council {roman} played {roman_card} and {barbarian} played {barbarian_card}.")
    ),
    "council_resolved.end_deposed": (
        N_(
            "At the council {roman} played {roman_card} and {barbarian} played {barbarian_card}: "
            "Attila is deposed."
        )
    ),
    "council_resolved.end_pope": (
        N_(
            "At the council {roman} played {roman_card} and {barbarian} played {barbarian_card}: "
            "Attila becomes Pope and Leo I is driven out."
        )
    ),
    "people_joined.roman": N_("The {people} joined the Romans."),
    "people_joined.barbarian": N_("The {people} joined the Barbarians."),
    "people_joined.neutral": N_("The {people} stay neutral."),
    # Rule 10.1: a council before the invasion of the West only fixes the sides to come.
    "sides_await_west_invasion": (
        N_("The council decided the sides of {decided}; they take them when the West is invaded.")
    ),
    "side.roman": N_("Romans"),
    "side.barbarian": N_("Barbarians"),
    "side.neutral": N_("neutral"),
    "end_council.yes": N_("{player} called the final council."),
    "end_council.no": N_("{player} did not call the final council."),
    "game_ended.barbarian": (
        N_(
            "The game is over: {player} wins for the Barbarians with {points} points "
            "({threshold} needed on points)."
        )
    ),
    "game_ended.roman": (
        N_(
            "The game is over: {player} wins for Rome; the Barbarians scored {points} points "
            "({threshold} needed on points)."
        )
    ),
}

#: Events not worth a sentence: the ends of phases and battles (the next event says more).
SILENT: frozenset[str] = frozenset({"movement_ended", "combat_ended", "battle_over"})


def _plain(name: str) -> str:
    """A data name without its parenthesis: "Leo I (Pope)" -> "Leo I"."""
    return name.split(" (")[0]


class Describe:
    """The sentences of one wargame board."""

    def __init__(self, board: Board) -> None:
        self.board = board
        raw = board.raw
        # Words: the names answer in the reader's language (engine/sentences.py).
        self.people_names = Words({p["id"]: _plain(p["name"]) for p in raw["peoples"]})
        self.city_names = Words({c.id: c.name for c in board.cities})
        self.city_at_label = Words({board.label(c.hex): c.name for c in board.cities})
        #: The units' English names (the tests check them all distinct).
        self.unit_names = {u: self._unit_name(u) for u in board.units}
        combat = raw["combat"]
        self.card_names = Words(
            {
                **{c["id"]: c["en"] for c in combat["attack_cards"] + combat["defence_cards"]},
                **{
                    c["id"]: _plain(c["name"])
                    for c in raw["diplomacy"]["cards"]["roman"]
                    + raw["diplomacy"]["cards"]["barbarian"]
                },
            }
        )
        self.phase_names = Words({p["id"]: p["name"] for p in raw["calendar"]["phases"]})
        self.seat_of = {side: i for i, side in enumerate(board.bindings["seats"])}
        self.describers: dict[str, Describer] = {
            "note_written": self._note_written,
            "note_written_own": self._note_written_own,
            "notes_revealed": self._notes_revealed,
            "round_started": self._round_started,
            "phase_started": self._phase_started,
            "moved": self._unit_to("moved", "to"),
            "move_cut_short": self._unit_only("move_cut_short"),
            "west_invaded": self._unit_to("west_invaded", "hex"),
            "gaul_invaded": self._unit_to("gaul_invaded", "hex"),
            "city_taken": self._city_taken,
            "federated": self._federated,
            "traitor_revealed": self._traitor_revealed,
            "traitor_restored": self._traitor_restored,
            "suborned_revealed": self._suborned_revealed,
            "aetius_murdered": self._aetius_murdered,
            "unit_removed": self._unit_removed,
            "unit_entered": self._unit_to("unit_entered", "hex"),
            "unit_not_entered": self._unit_only("unit_not_entered"),
            "strength_lost": self._strength_lost,
            "siege_loss": self._siege_loss,
            "devastated": self._hexes("devastated"),
            "recovered": self._hexes("recovered"),
            "razed": self._hexes("razed"),
            "command_units_overrun": self._overrun,
            "battle_declared": self._battle_declared,
            "card_chosen": self._card_chosen,
            "card_chosen_own": self._card_chosen_own,
            "battle_resolved": self._battle_resolved,
            "push_decided": self._push_decided,
            "retreat_blocked": self._unit_only("retreat_blocked"),
            "retreated": self._unit_to("retreated", "to"),
            "advanced": self._unit_to("advanced", "to"),
            "council_called": self._council_called,
            "council_resolved": self._council_resolved,
            "people_joined": self._people_joined,
            "sides_await_west_invasion": self._sides_await,
            "end_council": self._end_council,
            "game_ended": self._game_ended,
        }

    def __call__(
        self, event: Event, names: Sequence[str], words: Translator | None = None
    ) -> str | None:
        """The sentence for ``event`` (None for ``SILENT`` kinds).

        Only what the event carries is used: public events never name a secret note or a
        sealed card before the engine reveals it (``notes_revealed``, ``battle_resolved``,
        ``council_resolved``). ``note_written_own`` and ``card_chosen_own`` (audience: the
        seat that wrote or chose) name the secret; the caller shows them only to that seat.
        """
        return describe_with(self.describers, SILENT, event, names, words)

    # -- names ----------------------------------------------------------------------------

    def _unit_name(self, unit: str) -> str:
        b = self.board
        cmu = next((c for c in b.raw["cmus"] if c["id"] == unit), None)
        if cmu is not None:
            return word(_plain(cmu["name"]))
        people = b.units[unit].people
        parts = unit.split("-")
        group = next((g for g in b.raw["forces"] if any(u["id"] == unit for u in g["units"])), None)
        if len(parts) == 3 and group is not None:
            kind = next(u["type"] for u in group["units"] if u["id"] == unit)
            label = next(t["label"] for t in b.raw["unit_types"] if t["id"] == kind)
            head, _, arm = label.partition(", ")
            return fill(
                TEMPLATES["unit.designated"],
                kind=word(head),
                designation=group.get("designation_display", parts[1]),
                arm=word(arm),
            )
        return fill(TEMPLATES["unit.numbered"], people=self.people_names[people], number=parts[-1])

    def unit(self, unit: str) -> str:
        # Built per call, not once: the name is in the language of the call.
        return self._unit_name(unit) if unit in self.board.units else unit

    def _units(self, units: Sequence[str]) -> str:
        return join(self.unit(u) for u in units)

    def place(self, label: str) -> str:
        """A hex by its city's name, else by its printed number."""
        city = self.city_at_label.get(label)
        return city if city is not None else fill(TEMPLATES["place.hex"], hex=label)

    def _card(self, card: str) -> str:
        name: str = self.card_names.get(card, card)
        return name

    def _side_player(self, names: Sequence[str], side: str) -> str:
        return player(names, self.seat_of[side])

    # -- describers -------------------------------------------------------------------------

    def _unit_only(self, kind: str) -> Describer:
        def describe(event: Event, names: Sequence[str]) -> str:
            return fill(TEMPLATES[kind], unit=self.unit(event.data["unit"]))

        return describe

    def _unit_to(self, kind: str, key: str) -> Describer:
        def describe(event: Event, names: Sequence[str]) -> str:
            d = event.data
            return fill(TEMPLATES[kind], unit=self.unit(d["unit"]), place=self.place(d[key]))

        return describe

    def _hexes(self, kind: str) -> Describer:
        def describe(event: Event, names: Sequence[str]) -> str:
            hexes = event.data["hexes"]
            # Fields are never cities, so their printed numbers name them.
            return fill(TEMPLATES[kind], len(hexes), hexes=join(hexes))

        return describe

    def _note_written(self, event: Event, names: Sequence[str]) -> str:
        return fill(TEMPLATES["note_written"], player=player(names, event.data["seat"]))

    def _note_written_own(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        who = player(names, d["seat"])
        if "traitor" in d:
            return fill(
                TEMPLATES["note_written_own.barbarian"],
                player=who,
                traitor=self.unit(d["traitor"]),
                aetius=d["aetius"],
            )
        return fill(
            TEMPLATES["note_written_own.roman"], player=who, suborned=self.unit(d["suborned"])
        )

    def _notes_revealed(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["notes_revealed"],
            traitor=self.unit(d["traitor"]),
            aetius=d["aetius"],
            suborned=self.unit(d["suborned"]),
        )

    def _round_started(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(TEMPLATES["round_started"], round=d["round"], season=d["season"])

    def _phase_started(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        phase = self.phase_names.get(d["phase"], d["phase"])
        return fill(TEMPLATES["phase_started"], round=d["round"], phase=phase)

    def _city_taken(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["city_taken"], unit=self.unit(d["unit"]), city=self.city_names[d["city"]]
        )

    def _federated(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["federated"],
            city=self.city_names[d["city"]],
            people=self.people_names[d["people"]],
        )

    def _traitor_revealed(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        kind = f"traitor_revealed.{d['attila']}"
        template = TEMPLATES.get(kind, TEMPLATES["traitor_revealed"])
        return fill(template, traitor=self.unit(d["unit"]))

    def _traitor_restored(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["traitor_restored"], traitor=self.unit(d["unit"]), by=self.unit(d["by"])
        )

    def _suborned_revealed(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["suborned_revealed"],
            unit=self.unit(d["unit"]),
            killed=self.unit(d["killed"]),
        )

    def _aetius_murdered(self, event: Event, names: Sequence[str]) -> str:
        aetius = self.unit(self.board.bindings["roles"]["aetius"])
        return fill(TEMPLATES["aetius_murdered"], aetius=aetius, round=event.data["round"])

    def _unit_removed(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        unit = self.unit(d["unit"])
        if d["hex"] is None:
            return fill(TEMPLATES[f"unit_removed.{d['reason']}.off_map"], unit=unit)
        return fill(TEMPLATES[f"unit_removed.{d['reason']}"], unit=unit, place=self.place(d["hex"]))

    def _strength_lost(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(TEMPLATES["strength_lost"], d["points"], unit=self.unit(d["unit"]), cf=d["cf"])

    def _siege_loss(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["siege_loss"], unit=self.unit(d["unit"]), city=self.city_names[d["city"]]
        )

    def _overrun(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["command_units_overrun"],
            len(d["units"]),
            units=self._units(d["units"]),
            place=self.place(d["hex"]),
        )

    def _battle_declared(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["battle_declared"],
            attackers=self._units(d["attackers"]),
            defenders=self._units(d["defenders"]),
            place=self.place(d["target"]),
            attack=d["attack"],
            defence=d["defence"],
            column=d["column"],
        )

    def _card_chosen(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        step = "council" if d["ref"].startswith("council") else "battle"
        return fill(TEMPLATES[f"card_chosen.{step}"], player=player(names, d["seat"]))

    def _card_chosen_own(self, event: Event, names: Sequence[str]) -> str:
        # The chooser is the event's only audience; the data does not repeat the seat.
        seat = event.audience[0] if event.audience else -1
        return fill(
            TEMPLATES["card_chosen_own"],
            player=player(names, seat),
            card=self._card(event.data["card"]),
        )

    def _battle_resolved(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        result: str = d["result"]
        values = {
            "column": d["column"],
            "attack_card": self._card(d["attack_card"]),
            "defence_card": self._card(d["defence_card"]),
        }
        if result[1:] == "R":
            return fill(TEMPLATES[f"battle_resolved.{result}"], **values)
        return fill(TEMPLATES[f"battle_resolved.{result[:2]}"], int(result[2:]), **values)

    def _push_decided(self, event: Event, names: Sequence[str]) -> str:
        return fill(TEMPLATES["push_decided.yes" if event.data["push"] else "push_decided.no"])

    def _council_called(self, event: Event, names: Sequence[str]) -> str:
        kind = event.data["kind"]
        city = self.city_names[self.board.bindings["council"]["city"]]
        return fill(TEMPLATES[f"council_called.{kind}"], city=city)

    def _council_resolved(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        template = "council_resolved"
        if d["kind"] == "end" and d["result"] > 0:
            template = "council_resolved.end_deposed"
        elif d["kind"] == "end" and d["result"] < 0:
            template = "council_resolved.end_pope"
        return fill(
            TEMPLATES[template],
            roman=self._side_player(names, "roman"),
            barbarian=self._side_player(names, "barbarian"),
            roman_card=self._card(d["roman_card"]),
            barbarian_card=self._card(d["barbarian_card"]),
        )

    def _people_joined(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(TEMPLATES[f"people_joined.{d['side']}"], people=self.people_names[d["people"]])

    def _sides_await(self, event: Event, names: Sequence[str]) -> str:
        decided = join(
            f"{self.people_names[people]} ({TEMPLATES[f'side.{side}']})"
            for people, side in event.data["sides"].items()
        )
        return fill(TEMPLATES["sides_await_west_invasion"], decided=decided)

    def _end_council(self, event: Event, names: Sequence[str]) -> str:
        template = "end_council.yes" if event.data["convened"] else "end_council.no"
        return fill(TEMPLATES[template], player=self._side_player(names, "roman"))

    def _game_ended(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        side = d["winner_side"]
        return fill(
            TEMPLATES[f"game_ended.{side}"],
            player=self._side_player(names, side),
            points=d["barbarian_points"],
            threshold=d["threshold"],
        )

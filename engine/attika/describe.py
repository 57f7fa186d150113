"""Attika's events in words: one short English sentence per event (docs/describe.md).

Design: one event, one sentence, in the order the engine emits them; a build that completes
a group reads "Bruno built the Well on hex 2,3 for 3 cards." then "Bruno completed the
Supply group and took an amphora." Buildings and groups are named by the data file's
``name_en``, resources by their id (water, forest, hill, mountain), hexes by the notation's
``q,r``. Map tiles (the rulebook's Landschaften) have no names, only ids, so a sentence
says "a landscape tile". Every template is in ``TEMPLATES``; German (issue #15) translates
these strings and the names.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.attika.board import Board
from engine.core import Event, Translator
from engine.sentences import N_, Describer, Template, describe_with, fill, join, player, word

#: Every sentence Attika says, keyed by a template id (the event kind, or kind.variant).
TEMPLATES: dict[str, Template] = {
    "building_revealed": N_("{player} revealed the {building} from stack {stack}."),
    "building_stored": N_("{player} put the {building} on their storage board."),
    "tile_drawn": N_("{player} emptied a stack and drew a landscape tile ({left} left)."),
    "no_tile_left": N_("{player} emptied a stack; no landscape tile is left to draw."),
    "tile_returned": (
        N_("{player} resigned before placing the landscape tile; it goes back on the pile.")
    ),
    "tile_placed": N_("{player} laid a landscape tile at hex {hex}."),
    "building_built.free": N_("{player} built the {building} on hex {hex} for free."),
    "building_built.paid": N_(
        "{player} built the {building} on hex {hex} for {count} card.",
        "{player} built the {building} on hex {hex} for {count} cards.",
    ),
    "building_built.free_new": (
        N_("{player} built the {building} on hex {hex} for free, starting a new settlement.")
    ),
    "building_built.paid_new": N_(
        "{player} built the {building} on hex {hex} for {count} card, starting a new settlement.",
        "{player} built the {building} on hex {hex} for {count} cards, starting a new settlement.",
    ),
    "amphora_earned": N_("{player} completed the {group} group and took an amphora."),
    "amphora_supply_empty": (
        N_("{player} completed the {group} group; no amphora is left, so they draw a card.")
    ),
    "amphora_spent.draw": N_("{player} spent an amphora to draw more cards."),
    "amphora_spent.action": N_("{player} spent an amphora for one more action."),
    "actions_converted": N_(
        "{player} turned {count} unused action into cards.",
        "{player} turned {count} unused actions into cards.",
    ),
    "cards_drawn": N_("{player} drew {count} card.", "{player} drew {count} cards."),
    "cards_drawn_own": N_(
        "{player} drew {count} card: {cards} (only you see this).",
        "{player} drew {count} cards: {cards} (only you see this).",
    ),
    "discards_reshuffled": N_(
        "The discard pile ({count} card) was shuffled into a new draw pile.",
        "The discard pile ({count} cards) was shuffled into a new draw pile.",
    ),
    "game_ended.all_buildings": N_("The game is over: {winners} built all their buildings."),
    "game_ended.shrines_connected": (
        N_("The game is over: {winners} joined two shrines with one settlement.")
    ),
    "game_ended.blocked": N_(
        "The game is over: nobody can go on; {winners} wins with the most buildings.",
        "The game is over: nobody can go on; {winners} share the win.",
    ),
}

#: Events not worth a sentence: turn bookkeeping.
SILENT: frozenset[str] = frozenset({"turn_started", "turn_ended"})


class Describe:
    """The sentences of one Attika data file."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.describers: dict[str, Describer] = {
            "building_revealed": self._building_revealed,
            "building_stored": self._building_stored,
            "tile_drawn": self._tile_drawn,
            "no_tile_left": self._no_tile_left,
            "tile_returned": self._tile_returned,
            "tile_placed": self._tile_placed,
            "building_built": self._building_built,
            "amphora_earned": self._group_done("amphora_earned"),
            "amphora_supply_empty": self._group_done("amphora_supply_empty"),
            "amphora_spent": self._amphora_spent,
            "actions_converted": self._actions_converted,
            "cards_drawn": self._cards_drawn,
            "cards_drawn_own": self._cards_drawn_own,
            "discards_reshuffled": self._discards_reshuffled,
            "game_ended": self._game_ended,
        }

    def __call__(
        self, event: Event, names: Sequence[str], words: Translator | None = None
    ) -> str | None:
        """The sentence for ``event`` (None for ``SILENT`` kinds).

        Only what the event carries is used: public events never name the cards in a hand
        or the buildings still hidden in a stack. ``cards_drawn_own`` (audience: the
        drawing seat) names the cards drawn; the caller shows it only to that seat.
        """
        return describe_with(self.describers, SILENT, event, names, words)

    # -- names ----------------------------------------------------------------------------

    def _building(self, building_id: str) -> str:
        return word(self.board.building(building_id).name_en)

    def _group(self, group_id: str) -> str:
        return word(next(g.name_en for g in self.board.groups if g.id == group_id))

    # -- describers -------------------------------------------------------------------------

    def _building_revealed(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["building_revealed"],
            player=player(names, d["seat"]),
            building=self._building(d["building"]),
            stack=d["stack"],
        )

    def _building_stored(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["building_stored"],
            player=player(names, d["seat"]),
            building=self._building(d["building"]),
        )

    def _tile_drawn(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(TEMPLATES["tile_drawn"], player=player(names, d["seat"]), left=d["left"])

    def _no_tile_left(self, event: Event, names: Sequence[str]) -> str:
        return fill(TEMPLATES["no_tile_left"], player=player(names, event.data["seat"]))

    def _tile_returned(self, event: Event, names: Sequence[str]) -> str:
        return fill(TEMPLATES["tile_returned"], player=player(names, event.data["seat"]))

    def _tile_placed(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(TEMPLATES["tile_placed"], player=player(names, d["seat"]), hex=d["hex"])

    def _building_built(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        new = "_new" if d["new_settlement"] else ""
        values = {
            "player": player(names, d["seat"]),
            "building": self._building(d["building"]),
            "hex": d["hex"],
        }
        if d["free"] and not d["paid"]:
            return fill(TEMPLATES[f"building_built.free{new}"], **values)
        return fill(TEMPLATES[f"building_built.paid{new}"], len(d["paid"]), **values)

    def _group_done(self, kind: str) -> Describer:
        def describe(event: Event, names: Sequence[str]) -> str:
            d = event.data
            return fill(
                TEMPLATES[kind], player=player(names, d["seat"]), group=self._group(d["group"])
            )

        return describe

    def _amphora_spent(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        variant = "draw" if d["mode"] == "draw" else "action"
        return fill(TEMPLATES[f"amphora_spent.{variant}"], player=player(names, d["seat"]))

    def _actions_converted(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(TEMPLATES["actions_converted"], d["actions"], player=player(names, d["seat"]))

    def _cards_drawn(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(TEMPLATES["cards_drawn"], d["count"], player=player(names, d["seat"]))

    def _cards_drawn_own(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["cards_drawn_own"],
            len(d["cards"]),
            player=player(names, d["seat"]),
            cards=join(d["cards"]),
        )

    def _discards_reshuffled(self, event: Event, names: Sequence[str]) -> str:
        return fill(TEMPLATES["discards_reshuffled"], event.data["cards"])

    def _game_ended(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        winners = d["winners"]
        return fill(
            TEMPLATES[f"game_ended.{d['reasons'][0]}"],
            len(winners),
            winners=join(player(names, s) for s in winners),
        )

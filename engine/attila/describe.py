"""Attila's events in words: one short English sentence per event (docs/describe.md).

Design: one event, one sentence. A move that causes several events reads as several short
sentences, in order: ``F BEL`` then ``inf`` read "Bruno placed a Frank in Belgica." and
"Bruno took 1 step of influence with the Franks (now field 3)." Sentences are never merged
across events, so each stays one translatable template and no event's meaning depends on its
neighbours. ``card_played`` is silent because the stone it places (``stone_placed``, always
the next event) says the same in the words players use.

Names come from the board data: provinces by ``name``, peoples by ``name_en`` (plural, "the
Franks"); the singular for one stone ("a Frank") is in ``PEOPLE_SINGULAR`` below, keyed by
people id, because the data file has no singular. Every template is in ``TEMPLATES``; German
(issue #15) will translate these strings and the names, with the rulebook's terms.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.attila.board import Board
from engine.core import Event, Translator
from engine.sentences import N_, Describer, Template, describe_with, fill, join, player, word

#: Every sentence Attila says, keyed by a template id (the event kind, or kind.variant).
TEMPLATES: dict[str, Template] = {
    "stone_placed": N_("{player} placed a {people} in {province}."),
    "influence_raised": N_(
        "{player} took {count} step of influence with the {peoples} (now field {field}).",
        "{player} took {count} steps of influence with the {peoples} (now field {field}).",
    ),
    "influence_raised.top": N_("{player} is already on the top field for the {peoples}."),
    "influence_waived": N_("{player} waived influence to place a second stone."),
    "card_discarded": N_("{player} could play no card and discarded a {people} card."),
    "conflict_started": N_("Conflict in {province} between {peoples}."),
    "conflict_passed_empty_hand": N_("{player} has no cards and stays out of the conflict."),
    "conflict_passed_resigned": N_("{player} has resigned and stays out of the conflict."),
    "conflict_committed.count": N_(
        "{player} laid {count} card in the conflict.",
        "{player} laid {count} cards in the conflict.",
    ),
    "conflict_committed.none": N_("{player} laid no card in the conflict."),
    # Simultaneous conflicts: the count is secret until the reveal, so the sentence has none.
    "conflict_committed.secret": N_("{player} made a secret choice for the conflict."),
    "conflict_committed_own": N_(
        "{player} laid {count} card in the conflict: {cards} (only you see this).",
        "{player} laid {count} cards in the conflict: {cards} (only you see this).",
    ),
    "conflict_committed_own.none": N_("{player} laid no card in the conflict (only you see this)."),
    "conflict_resolved": (
        N_("The conflict in {province} is decided ({cards}): the {peoples} leave it.")
    ),
    "conflict_cards": N_("{player} laid {cards}"),
    "conflict_cards.none": N_("{player} laid none"),
    "province_pacified": N_("{province} is pacified ({century}th century)."),
    "scored.century": N_("Scoring of the {century}th century; the scores are now {scores}."),
    "scored.final": N_("Final scoring; the scores are now {scores}."),
    "game_ended": N_(
        "The game is over: {winners} won with {points} points.",
        "The game is over: {winners} share the win with {points} points.",
    ),
    "action_tile_used.double_turn": N_("{player} used the double turn tile."),
    "action_tile_used.swap": N_("{player} used the swap tile."),
    "action_tile_used.two_influence": N_("{player} used the two influence tile."),
    "cards_swapped": N_(
        "{player} swapped {count} card away: {cards}.",
        "{player} swapped {count} cards away: {cards}.",
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
}

#: One stone of a people, for "placed a Frank"; the data file only has the plural names.
PEOPLE_SINGULAR: dict[str, str] = {
    "franks": N_("Frank"),
    "huns": N_("Hun"),
    "goths": N_("Goth"),
    "saxons": N_("Saxon"),
    "teutons": N_("Teuton"),
    "vandals": N_("Vandal"),
}

#: Events not worth a sentence: turn bookkeeping, and the card whose stone says it all.
SILENT: frozenset[str] = frozenset({"card_played", "turn_started", "turn_ended"})


class Describe:
    """The sentences of one Attila board."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.describers: dict[str, Describer] = {
            "stone_placed": self._stone_placed,
            "influence_raised": self._influence_raised,
            "influence_waived": self._seat_only("influence_waived"),
            "card_discarded": self._card_discarded,
            "conflict_started": self._conflict_started,
            "conflict_passed_empty_hand": self._seat_only("conflict_passed_empty_hand"),
            "conflict_passed_resigned": self._seat_only("conflict_passed_resigned"),
            "conflict_committed": self._conflict_committed,
            "conflict_committed_own": self._conflict_committed_own,
            "conflict_resolved": self._conflict_resolved,
            "province_pacified": self._province_pacified,
            "scored": self._scored,
            "game_ended": self._game_ended,
            "action_tile_used": self._action_tile_used,
            "cards_swapped": self._cards_swapped,
            "cards_drawn": self._cards_drawn,
            "cards_drawn_own": self._cards_drawn_own,
            "discards_reshuffled": self._discards_reshuffled,
        }

    def __call__(
        self, event: Event, names: Sequence[str], words: Translator | None = None
    ) -> str | None:
        """The sentence for ``event`` (None for ``SILENT`` kinds).

        Only what the event carries is used: a public event never names hidden cards (in
        simultaneous conflicts not even their count). Events with an ``audience``
        (``*_own``: one's own drawn or laid cards) are described too; the caller shows those
        sentences only to that audience.
        """
        return describe_with(self.describers, SILENT, event, names, words)

    # -- names ----------------------------------------------------------------------------

    def _province(self, province_id: str) -> str:
        return word(self.board.province(province_id).name)

    def _peoples(self, people_id: str) -> str:
        return word(self.board.people(people_id).name_en)

    def _people_list(self, people_ids: Sequence[str]) -> str:
        return join(self._peoples(p) for p in people_ids)

    @staticmethod
    def _one(people_id: str) -> str:
        return word(PEOPLE_SINGULAR.get(people_id, people_id))

    def _cards(self, people_ids: Sequence[str]) -> str:
        return join(self._one(p) for p in people_ids)

    # -- describers -------------------------------------------------------------------------

    @staticmethod
    def _seat_only(kind: str) -> Describer:
        def describe(event: Event, names: Sequence[str]) -> str:
            return fill(TEMPLATES[kind], player=player(names, event.data["seat"]))

        return describe

    def _stone_placed(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["stone_placed"],
            player=player(names, d["seat"]),
            people=self._one(d["people"]),
            province=self._province(d["province"]),
        )

    def _influence_raised(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        if not d["steps"]:
            return fill(
                TEMPLATES["influence_raised.top"],
                player=player(names, d["seat"]),
                peoples=self._peoples(d["people"]),
            )
        return fill(
            TEMPLATES["influence_raised"],
            d["steps"],
            player=player(names, d["seat"]),
            peoples=self._peoples(d["people"]),
            field=d["field"],
        )

    def _card_discarded(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["card_discarded"],
            player=player(names, d["seat"]),
            people=self._one(d["people"]),
        )

    def _conflict_started(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["conflict_started"],
            province=self._province(d["province"]),
            peoples=self._people_list(d["peoples"]),
        )

    def _conflict_committed(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        who = player(names, d["seat"])
        if "count" not in d:
            return fill(TEMPLATES["conflict_committed.secret"], player=who)
        if not d["count"]:
            return fill(TEMPLATES["conflict_committed.none"], player=who)
        return fill(TEMPLATES["conflict_committed.count"], d["count"], player=who)

    def _conflict_committed_own(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        who = player(names, d["seat"])
        if not d["cards"]:
            return fill(TEMPLATES["conflict_committed_own.none"], player=who)
        cards = d["cards"]
        return fill(
            TEMPLATES["conflict_committed_own"], len(cards), player=who, cards=self._cards(cards)
        )

    def _conflict_resolved(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        laid = [
            fill(TEMPLATES["conflict_cards"], player=player(names, int(seat)), cards=self._cards(c))
            if c
            else fill(TEMPLATES["conflict_cards.none"], player=player(names, int(seat)))
            for seat, c in sorted(d.get("cards", {}).items(), key=lambda pair: int(pair[0]))
        ]
        return fill(
            TEMPLATES["conflict_resolved"],
            province=self._province(d["province"]),
            peoples=self._people_list(d["removed"]),
            cards="; ".join(laid),
        )

    def _province_pacified(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["province_pacified"],
            province=self._province(d["province"]),
            century=d["century"],
        )

    def _scored(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        scores = _scores(d["scores"], names)
        if d["scoring"] == "century":
            return fill(TEMPLATES["scored.century"], century=d["century"], scores=scores)
        return fill(TEMPLATES["scored.final"], scores=scores)

    def _game_ended(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        winners = d["winners"]
        return fill(
            TEMPLATES["game_ended"],
            len(winners),
            winners=join(player(names, s) for s in winners),
            points=d["scores"][winners[0]],
        )

    def _action_tile_used(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(TEMPLATES[f"action_tile_used.{d['tile']}"], player=player(names, d["seat"]))

    def _cards_swapped(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["cards_swapped"],
            len(d["cards"]),
            player=player(names, d["seat"]),
            cards=self._cards(d["cards"]),
        )

    def _cards_drawn(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(TEMPLATES["cards_drawn"], d["count"], player=player(names, d["seat"]))

    def _cards_drawn_own(self, event: Event, names: Sequence[str]) -> str:
        d = event.data
        return fill(
            TEMPLATES["cards_drawn_own"],
            len(d["cards"]),
            player=player(names, d["seat"]),
            cards=self._cards(d["cards"]),
        )

    def _discards_reshuffled(self, event: Event, names: Sequence[str]) -> str:
        return fill(TEMPLATES["discards_reshuffled"], event.data["cards"])


def _scores(scores: Sequence[int], names: Sequence[str]) -> str:
    return join(f"{player(names, seat)} {points}" for seat, points in enumerate(scores))

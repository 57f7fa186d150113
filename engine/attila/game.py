"""Attila (Hans im Glück, 2000) as a ``Game``: options, views and the engine entry points."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.attila.actions import AttilaAction, Notation
from engine.attila.board import Board, load_board
from engine.attila.describe import Describe
from engine.attila.rules import Rules
from engine.attila.state import AttilaState, dump_state, load_state
from engine.core import RulesGame, Translator, options_from_data
from engine.sentences import N_, fill, player, translating

#: The subjects and sentences of ``event_words`` (English; marked for the catalogs).
EVENT_WORDS: dict[str, str] = {
    "conflict_resolved": N_("a conflict was resolved"),
    "conflict_resolved.text": N_(
        "The conflict in {province} was resolved. Revealed cards: {cards}. Removed: {removed}."
    ),
    "cards": N_("{player}: {cards}"),
    "nothing": N_("nothing"),
    "nobody": N_("nobody"),
    "scored": N_("scoring"),
    "scored.text": N_("Scoring. Scores: {scores}."),
    "scored.century": N_("century scoring"),
    "scored.century.text": N_("Century scoring. Scores: {scores}."),
    "scored.final": N_("final scoring"),
    "scored.final.text": N_("Final scoring. Scores: {scores}."),
    "none yet": N_("none yet"),
}


class AttilaGame(RulesGame[AttilaState, AttilaAction]):
    id: ClassVar[str] = "attila"
    title: ClassVar[str] = "Attila"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5
    rules_version: ClassVar[str] = "attila-2"
    notify_events: ClassVar[Mapping[str, str]] = {
        "conflict_resolved": "conflict_resolved",
        "scored": "scored",
        "game_ended": "ended",
    }
    # A missed turn takes influence (or ends a turn that has nothing left); docs/rules/attila.md.
    timeout_move: ClassVar[tuple[str, ...]] = ("inf", "end")
    #: Each kind of move in a few words, for mails (docs/rules/attila.md has the rules).
    move_rules: ClassVar[Mapping[str, str]] = {
        "play": N_(
            "play a card and set a stone of its people into a province: people letter, "
            "then province, e.g. V ITA"
        ),
        "influence": N_("take the influence for the stone just set: inf"),
        "waive": N_(
            "waive the influence and set a second stone of that people (waive ROM), or none (waive)"
        ),
        "commit": N_("lay cards face down in the conflict (commit VVH), or none (pass)"),
        "double": N_("action tile double turn: one more card this turn: double"),
        "swap": N_(
            "action tile swap: give 1 or more of your cards back for as many new ones, e.g. swap VF"
        ),
        "boost": N_(
            "action tile two influence: +2 on one people (boost V) or +1 on two (boost V H)"
        ),
        "discard": N_("no card can be played: discard one and the turn ends, e.g. discard V"),
        "end": N_("end the turn without a tile: end"),
    }
    step_names: ClassVar[Mapping[str, str]] = {
        "play_card": N_("play a card"),
        "influence": N_("take or waive the influence"),
        "conflict_cards": N_("your cards for the conflict"),
        "finish": N_("an action tile, or end the turn"),
    }
    rules: Rules  # the full rules object, beyond what RulesGame needs of it
    board: Board

    def __init__(self, board: Board) -> None:
        self.board = board
        self.rules = Rules(board)
        self.notation_ = Notation(board)
        self.describer = Describe(board)
        self.options = options_from_data(board.raw["rule_options"])

    # -- words for players --------------------------------------------------------------------

    def event_words(
        self,
        kind: str,
        data: Mapping[str, Any],
        names: Sequence[str] = (),
        words: Translator | None = None,
    ) -> tuple[str, str] | None:
        with translating(words):
            if kind == "conflict_resolved":
                return self._conflict_words(data, names)
            if kind == "scored":
                return self._scored_words(data, names)
        return None

    def _conflict_words(self, data: Mapping[str, Any], names: Sequence[str]) -> tuple[str, str]:
        cards = "; ".join(
            fill(
                EVENT_WORDS["cards"],
                player=player(names, int(s)),
                cards=" ".join(c) or fill(EVENT_WORDS["nothing"]),
            )
            for s, c in sorted(data.get("cards", {}).items(), key=lambda p: int(p[0]))
        )
        removed = ", ".join(data.get("removed", [])) or fill(EVENT_WORDS["nobody"])
        return (
            fill(EVENT_WORDS["conflict_resolved"]),
            fill(
                EVENT_WORDS["conflict_resolved.text"],
                province=data.get("province"),
                cards=cards,
                removed=removed,
            ),
        )

    def _scored_words(self, data: Mapping[str, Any], names: Sequence[str]) -> tuple[str, str]:
        scoring = str(data.get("scoring", ""))
        key = f"scored.{scoring}" if f"scored.{scoring}" in EVENT_WORDS else "scored"
        scores = ", ".join(
            f"{player(names, seat)} {points}"
            for seat, points in enumerate(data.get("scores") or [])
        )
        return (
            fill(EVENT_WORDS[key]),
            fill(EVENT_WORDS[key + ".text"], scores=scores or fill(EVENT_WORDS["none yet"])),
        )

    # -- setup and play ---------------------------------------------------------------------

    def new_state(
        self, players: int, seed: str, options: Mapping[str, Any] | None = None
    ) -> AttilaState:
        self.check_players(players)
        return self.rules.new_state(players, seed, self.resolve_options(options))

    def dump(self, state: AttilaState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, raw: Mapping[str, Any]) -> AttilaState:
        return load_state(dict(raw))

    # -- views -----------------------------------------------------------------------------

    def view(self, state: AttilaState, seat: int | None) -> dict[str, Any]:
        """The board and every public counter; the hand and own conflict cards of ``seat``."""
        b = self.board
        ids = [p.id for p in b.peoples]
        century = self.rules.current_century(state)
        out: dict[str, Any] = {
            "seat": seat,
            "players": state.players,
            "turn": state.turn,
            "active": state.active,
            "step": state.step,
            "pending": [d.to_json() for d in self.pending(state)],
            "provinces": {
                p.id: {
                    "stones": {ids[i]: n for i, n in enumerate(state.stones[p.index]) if n},
                    "pacified": state.pacified[p.index] or None,
                }
                for p in b.provinces
            },
            "supply": dict(zip(ids, state.supply, strict=True)),
            "century": b.first_century + century,
            "influence_per_stone": b.influence_steps[century],
            "pacification_tiles": {
                str(b.first_century + i): n for i, n in enumerate(state.tiles_left)
            },
            "influence": {
                ids[i]: [state.influence[s][i] for s in range(state.players)]
                for i in range(len(ids))
            },
            "scores": list(state.scores),
            "action_tiles": [list(tiles) for tiles in state.action_tiles],
            "tile_used_this_turn": state.tile_used,
            "cards_left_this_turn": state.cards_left if state.step != "over" else 0,
            "current_people": ids[state.people] if state.people >= 0 else None,
            "hand_counts": self._hand_counts(state),
            "draw_pile": len(state.deck),
            "discard_pile": dict(Counter(ids[c] for c in state.discard)),
            "conflict": self._conflict_view(state, seat),
            "result": state.result,
            "resigned": list(state.resigned),
        }
        if seat is not None and 0 <= seat < state.players:
            out["hand"] = [ids[c] for c in state.hands[seat]]
        return out

    def _hand_counts(self, state: AttilaState) -> list[int]:
        counts = [len(hand) for hand in state.hands]
        if state.conflict and state.options["CONFLICT_COMMIT_ORDER"] == "simultaneous":
            # Counts would betray how many cards a seat laid before the joint reveal.
            for seat, cards in state.conflict.commits.items():
                counts[seat] += len(cards)
        return counts

    def _conflict_view(self, state: AttilaState, seat: int | None) -> dict[str, Any] | None:
        conflict = state.conflict
        if conflict is None:
            return None
        public_counts = state.options["CONFLICT_COMMIT_ORDER"] != "simultaneous"
        ids = [p.id for p in self.board.peoples]
        out: dict[str, Any] = {
            "ref": conflict.ref,
            "province": self.board.provinces[conflict.province].id,
            "peoples": [ids[p] for p in conflict.present],
            "order": list(conflict.order),
            "committed": {
                str(s): (len(cards) if public_counts else True)
                for s, cards in conflict.commits.items()
            },
        }
        if seat in conflict.commits:
            out["own_cards"] = [ids[c] for c in conflict.commits[seat]]
        return out


GAME = AttilaGame(load_board())

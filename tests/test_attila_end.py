"""Rulebook §6 (end of the game) and §8 (edge cases): the three end conditions, the last
stone returned by a conflict, the single final scoring, shared victory, no playable card."""

from __future__ import annotations

import pytest

from engine.attila.actions import Discard, Play
from engine.core import IllegalAction
from tests.attila_helpers import (
    CAPACITY,
    B,
    G,
    P,
    do,
    first,
    fresh,
    frontier,
    inland,
    kinds,
    put,
    qid,
    resolve,
    set_hands,
    whole_hand_laid_in_a_conflict,
)

V, S, F, H, Go, T = P("V"), P("S"), P("F"), P("H"), P("G"), P("T")


def spread(state, people: int, count: int, avoid: set[int]) -> None:
    """Put ``count`` stones of ``people`` on the board, at most 3 per province."""
    for q in inland():
        if q in avoid or not count:
            continue
        n = min(3, count)
        put(state, q, people, n)
        count -= n
    assert not count


def everybody_passes(state) -> list:
    events = []
    for seat in state.conflict.order:
        if seat not in state.conflict.commits:
            events += do(state, seat, "pass")
    return events + resolve(state)


def last_vandal_position(conflict: bool):
    """Every Vandal stone but one is on the board; seat 0 sets the last one."""
    state = fresh(3)
    t = frontier()[0]
    if conflict:
        put(state, t, S, 2)
        put(state, t, F, 2)
    spread(state, V, B.stones_per_people - 1, {t})
    assert state.supply[V] == 1
    set_hands(state, {0: [V] * 6, 1: [H] * 6, 2: [Go] * 6})
    state.action_tiles[0] = []  # no `finish` step
    return state, t


def test_last_stone_returned_by_conflict_game_goes_on() -> None:
    state, t = last_vandal_position(conflict=True)
    do(state, 0, f"V {qid(t)}", "inf")
    assert state.supply[V] == 0
    events = everybody_passes(state)  # V1 < S2 = F2: the Vandal leaves
    assert state.supply[V] == 1
    assert "game_ended" not in kinds(events)
    assert not G.is_over(state) and state.active == 1


def test_supply_empty_ends_the_game_after_the_turn() -> None:
    state, t = last_vandal_position(conflict=False)
    events = do(state, 0, f"V {qid(t)}", "inf")
    assert G.is_over(state)
    assert state.result["reasons"] == ["supply_empty"]
    names = kinds(events)
    assert names.index("cards_drawn") < names.index("scored") < names.index("game_ended")
    assert [e.data["scoring"] for e in events if e.kind == "scored"] == ["final"]
    assert G.pending(state) == []
    assert all(G.legal_actions(state, seat) == [] for seat in range(3))
    with pytest.raises(IllegalAction) as error:
        G.apply(state, 1, G.parse(f"H {qid(frontier()[1])}"))
    assert error.value.code == "game-over"


def last_tile_position(options=None):
    state = fresh(3, options=options)
    state.tiles_left = [0] * len(state.tiles_left)
    state.tiles_left[-1] = 1
    t = frontier()[0]
    put(state, t, S, CAPACITY)
    other = frontier()[1]
    put(state, other, F, 2)
    state.influence[1][F] = 3  # seat 1 alone on the Franks: 2 stones + 1 province = 3
    set_hands(state, {0: [V] * 6, 1: [H] * 6, 2: [Go] * 6})
    return state, t


def test_last_tile_single_final_scoring_after_turn() -> None:
    state, t = last_tile_position()
    events = do(state, 0, f"V {qid(t)}", "inf") + everybody_passes(state)
    assert all(state.tiles_left[i] == 0 for i in range(len(state.tiles_left)))
    assert "scored" not in kinds(events), "no scoring before the turn is finished"
    assert state.step == "finish"  # seat 0 may still use an action tile
    events += do(state, 0, "end")
    scored = [e for e in events if e.kind == "scored"]
    assert [e.data["scoring"] for e in scored] == ["final"]
    assert G.is_over(state) and state.result["reasons"] == ["last_tile"]
    assert state.scores == [0, 3, 0]


def test_last_tile_then_double_turn_cannot_make_another_fifth_stone() -> None:
    state, t = last_tile_position()
    do(state, 0, f"V {qid(t)}", "inf")
    everybody_passes(state)
    do(state, 0, "double")
    full = frontier()[2]
    put(state, full, H, CAPACITY)
    legal = {a.province for a in G.legal_actions(state, 0) if isinstance(a, Play)}
    assert full not in legal and frontier()[3] in legal
    do(state, 0, f"V {qid(frontier()[3])}", "inf")
    assert G.is_over(state)
    # seat 0 alone on the Vandals (1 stone, 1 province), seat 1 alone on the Franks
    assert state.scores == [2, 3, 0]


def test_last_tile_score_twice_option() -> None:
    state, t = last_tile_position({"LAST_TILE_FINAL_SCORING": "score_twice"})
    events = do(state, 0, f"V {qid(t)}", "inf") + everybody_passes(state) + do(state, 0, "end")
    assert [e.data["scoring"] for e in events if e.kind == "scored"] == ["century", "final"]
    assert state.scores == [0, 6, 0]
    assert state.result["reasons"] == ["last_tile"]


def test_last_tile_score_at_once_and_end_option() -> None:
    state, t = last_tile_position({"LAST_TILE_FINAL_SCORING": "score_at_once_and_end"})
    events = do(state, 0, f"V {qid(t)}", "inf") + everybody_passes(state)
    assert [e.data["scoring"] for e in events if e.kind == "scored"] == ["century"]
    assert G.is_over(state) and state.scores == [0, 3, 0]
    assert state.result["reasons"] == ["last_tile"]


def test_century_scoring_before_last_tile_is_separate_from_final() -> None:
    """The 6th century's last tile scores at once; the game goes on."""
    state, t = last_tile_position()
    state.tiles_left = [0, 0, 1, 4]
    events = do(state, 0, f"V {qid(t)}", "inf") + everybody_passes(state)
    assert [e.data["scoring"] for e in events if e.kind == "scored"] == ["century"]
    assert first(events, "scored").data["century"] == B.first_century + 2
    assert state.scores == [0, 3, 0] and not G.is_over(state)


def test_winners_share_a_tie() -> None:
    state, t = last_vandal_position(conflict=False)
    state.scores = [7, 4, 7]
    do(state, 0, f"V {qid(t)}", "inf")
    # seat 0 alone on the Vandals: all 20 stones + their provinces
    stones = B.stones_per_people
    provinces = sum(1 for row in state.stones if row[V])
    assert state.scores == [7 + stones + provinces, 4, 7]
    assert state.result["winners"] == [0]
    state, t = last_vandal_position(conflict=False)
    state.scores = [7, 4, 7 + stones + provinces]
    do(state, 0, f"V {qid(t)}", "inf")
    assert state.result["winners"] == [0, 2]
    assert state.result["scores"] == state.scores


def no_playable_position():
    state = fresh(3)
    for q in frontier():
        state.pacified[q] = B.first_century  # no way in for a people not on the board
    set_hands(state, {0: [V, V, S, S, F, H]})
    return state


def test_no_playable_card_discard_then_refill() -> None:
    state = no_playable_position()
    legal = G.legal_actions(state, 0)
    discards = [a for a in legal if isinstance(a, Discard)]
    assert {a.people for a in discards} == {V, S, F, H}
    assert not any(isinstance(a, Play) for a in legal)
    with pytest.raises(IllegalAction) as error:
        G.apply(state, 0, G.parse(f"V {qid(frontier()[0])}"))
    assert error.value.code == "illegal-province"
    with pytest.raises(IllegalAction) as error:
        G.apply(state, 0, G.parse("discard T"))
    assert error.value.code == "card-not-in-hand"
    do(state, 0, "discard S")
    assert state.discard == [S]
    assert len(state.hands[0]) == B.hand_size and state.active == 1


def test_discard_refused_when_a_card_is_playable() -> None:
    state = fresh(3)
    set_hands(state, {0: [V, V, S, S, F, H]})
    assert not any(isinstance(a, Discard) for a in G.legal_actions(state, 0))
    with pytest.raises(IllegalAction) as error:
        G.apply(state, 0, G.parse("discard V"))
    assert error.value.code == "card-playable"


def test_only_playable_cards_offered_when_some_are_blocked() -> None:
    state = no_playable_position()
    source = next(q for q in inland() if not state.pacified[q])
    put(state, source, S, 1)
    legal = G.legal_actions(state, 0)
    assert {a.people for a in legal if isinstance(a, Play)} == {S}
    assert not any(isinstance(a, Discard) for a in legal)


def test_empty_hand_skips_the_turn() -> None:
    """Without the two influence tile (the only one usable without a card) nothing is left
    to decide. With it, see test_attila_tiles."""
    state = fresh(3, options={"DRAW_PILE_EXHAUSTED": "stop_drawing"})
    set_hands(state, {0: [V] * 6, 1: []})
    state.action_tiles[1] = ["double_turn", "swap"]
    state.hands[2] = sorted(state.hands[2] + state.deck)
    state.deck = []
    events = do(state, 0, f"V {qid(frontier()[0])}", "inf")
    assert state.active == 2, "seat 1 has no card and is skipped"
    assert [e.data["seat"] for e in events if e.kind == "turn_started"] == [1, 2]


def test_player_who_laid_every_card_in_a_conflict_skips_the_turn_and_refills() -> None:
    """Rulebook: only the active player refills. A seat that laid its whole hand in someone
    else's conflict has no card at its own turn: the turn passes (NO_PLAYABLE_CARD), then the
    usual refill at the end of that turn. (Here seat 1 has used its two influence tile; with
    it the turn waits for `boost` or `end` first, see test_attila_tiles.)"""
    state = whole_hand_laid_in_a_conflict(seat_1_tiles=["double_turn", "swap"])
    # seat 0 ended its turn; seat 1 holds nothing, so its turn passes with a refill
    assert state.active == 2
    assert len(state.hands[1]) == B.hand_size
    assert len(state.hands[0]) == B.hand_size


def test_stop_drawing_all_hands_empty_does_not_crash() -> None:
    state = fresh(3, options={"DRAW_PILE_EXHAUSTED": "stop_drawing"})
    set_hands(state, {0: [V], 1: [], 2: []})
    state.discard = state.deck  # the pile is used up
    state.deck = []
    do(state, 0, f"V {qid(frontier()[0])}", "inf")  # nobody holds a card any more
    assert G.is_over(state)
    assert state.result["reasons"] == ["no_cards_left"]


def test_supply_emptied_by_the_first_card_ends_the_game_though_the_second_refills_it() -> None:
    """§6: the game ends "sobald von einem Volk kein Spielstein mehr im Vorrat ist" (short
    rules: "nach Befriedung"); §8's only exception is the last stone set as a 5th stone and
    sent back by its own conflict. 2 players: card 1 `F BEL` sets the last Frank, no conflict;
    card 2 `H MOE` makes a 5th stone in MOE (F1 S3 H1) whose conflict sends a Frank back.
    The end was already reached after card 1: the turn is finished, then the game ends."""
    state = fresh(2)
    bel, moe = B.province("BEL").index, B.province("MOE").index
    put(state, moe, F, 1)
    put(state, moe, S, CAPACITY - 1)
    spread(state, F, B.stones_per_people - 2, {bel, moe})
    assert state.supply[F] == 1
    set_hands(state, {0: [F, F, H, H, H, H], 1: [Go] * 6})
    state.action_tiles[0] = []  # no `finish` step
    events = do(state, 0, "F BEL", "inf")
    assert state.supply[F] == 0 and not G.is_over(state)  # the turn goes on with card 2
    events += do(state, 0, "H MOE", "inf")
    events += everybody_passes(state)  # H1 = F1 < S3: Huns and the Frank leave MOE
    assert state.supply[F] == 1
    assert G.is_over(state)
    assert state.result["reasons"] == ["supply_empty"]
    # MOE took the 4th century's only tile: its scoring, then the final one
    assert [e.data["scoring"] for e in events if e.kind == "scored"] == ["century", "final"]

"""Rulebook §5 (action tiles), §7 (2-player card count) and §8 (refill), plus the
DRAW_PILE_EXHAUSTED and SWAP_TILE_LIMIT options."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.attila.actions import Boost, DoubleTurn, EndTurn, Swap
from engine.core import IllegalAction
from tests.attila_helpers import (
    B,
    G,
    P,
    do,
    fresh,
    frontier,
    kinds,
    norm,
    put,
    qid,
    resolve,
    set_hands,
    whole_hand_laid_in_a_conflict,
)

V, S, F, H, Go, T = P("V"), P("S"), P("F"), P("H"), P("G"), P("T")


def assert_illegal(state, seat, text, code):
    before = norm(G.dump(state))
    with pytest.raises(IllegalAction) as error:
        G.apply(state, seat, G.parse(text))
    assert error.value.code == code
    assert norm(G.dump(state)) == before


# -- double turn -------------------------------------------------------------------------------


def test_double_turn_plays_a_second_card_then_refills() -> None:
    state = fresh(3)
    set_hands(state, {0: [V, V, S, S, F, F]})
    a, b = frontier()[0], frontier()[1]
    do(state, 0, "double")
    assert state.cards_left == 2 and "double_turn" not in state.action_tiles[0]
    do(state, 0, f"V {qid(a)}", "inf")
    assert state.active == 0 and state.step == "play_card"
    assert len(state.hands[0]) == 5  # no refill between the cards
    do(state, 0, f"S {qid(b)}", "inf")
    assert state.active == 1
    assert len(state.hands[0]) == B.hand_size
    assert state.influence[0][V] == 1 and state.influence[0][S] == 1


def test_double_turn_between_card_and_influence() -> None:
    state = fresh(3)
    set_hands(state, {0: [V, V, S, S, F, F]})
    do(state, 0, f"V {qid(frontier()[0])}", "double", "inf")
    assert state.active == 0 and state.step == "play_card"


def test_two_players_play_two_cards_and_double_adds_one() -> None:
    state = fresh(2)
    set_hands(state, {0: [V, V, S, S, F, F]})
    assert state.cards_left == B.two_player_cards_per_turn == 2
    do(state, 0, f"V {qid(frontier()[0])}", "inf")
    assert state.active == 0 and state.step == "play_card" and len(state.hands[0]) == 5
    do(state, 0, f"S {qid(frontier()[1])}", "inf")
    assert state.active == 1 and len(state.hands[0]) == B.hand_size
    assert Counter(state.discard) == Counter([V, S])

    state = fresh(2)
    set_hands(state, {0: [V, V, S, S, F, F]})
    do(state, 0, "double")
    assert state.cards_left == 3
    for i, card in enumerate("VSF"):
        assert state.active == 0
        do(state, 0, f"{card} {qid(frontier()[i])}", "inf")
    assert state.active == 1
    assert Counter(state.discard) == Counter([V, S, F])


# -- swap -------------------------------------------------------------------------------------


def test_swap_draws_first_then_discards() -> None:
    state = fresh(3)
    set_hands(state, {0: [V, V, S, S, F, F]})
    top = sorted(state.deck[-2:])
    do(state, 0, "swap VS")
    assert Counter(state.hands[0]) == Counter([V, S, F, F, *top])
    assert Counter(state.discard) == Counter([V, S])
    assert len(state.hands[0]) == B.hand_size
    assert state.step == "play_card"  # the turn goes on


def test_swap_reshuffles_discards_and_never_draws_back_given_cards() -> None:
    state = fresh(3)
    set_hands(state, {0: [V, V, V, S, S, S]})
    state.discard, state.deck = state.deck, []
    old_discard = Counter(state.discard)
    events = do(state, 0, "swap VVV")
    assert "discards_reshuffled" in kinds(events)
    # the given-up cards are the whole new discard pile; the drawn ones came from the old one
    assert Counter(state.discard) == Counter([V, V, V])
    drawn = Counter(state.hands[0]) - Counter([S, S, S])
    assert sum(drawn.values()) == 3 and not drawn - old_discard
    assert len(state.deck) == sum(old_discard.values()) - 3


def test_cannot_swap_more_than_drawable() -> None:
    state = fresh(3)
    set_hands(state, {0: [V, V, V, S, S, S]})
    extra = state.deck[2:]
    state.deck = state.deck[:2]
    state.discard = extra
    state.options["DRAW_PILE_EXHAUSTED"] = "stop_drawing"
    legal = [a for a in G.legal_actions(state, 0) if isinstance(a, Swap)]
    assert legal and max(len(a.cards) for a in legal) == 2
    assert_illegal(state, 0, "swap VVV", "swap-too-many")
    do(state, 0, "swap VV")
    assert len(state.hands[0]) == B.hand_size


def test_swap_errors() -> None:
    state = fresh(3)
    set_hands(state, {0: [V, V, V, S, S, S]})
    assert_illegal(state, 0, "swap F", "card-not-in-hand")
    assert_illegal(state, 0, "swap VVVV", "card-not-in-hand")
    with pytest.raises(IllegalAction) as error:
        G.apply(state, 0, Swap(()))
    assert error.value.code == "swap-empty"


# -- two influence ----------------------------------------------------------------------------


def test_boost_two_on_one_people_or_one_on_two() -> None:
    state = fresh(3)
    set_hands(state, {0: [V] * 6})
    state.influence[0][V] = 3
    do(state, 0, "boost V")
    assert state.influence[0][V] == 5
    state = fresh(3)
    set_hands(state, {0: [V] * 6})
    state.influence[0][V] = 3
    do(state, 0, "boost V H")
    assert state.influence[0][V] == 4 and state.influence[0][H] == 1  # entry on field 1
    state = fresh(3)
    set_hands(state, {0: [V] * 6})
    do(state, 0, "boost S")
    assert state.influence[0][S] == 2  # entering with +2 lands on field 2


def test_boost_capped_and_rejects_same_people_twice() -> None:
    state = fresh(3)
    set_hands(state, {0: [V] * 6})
    assert_illegal(state, 0, "boost V V", "bad-boost")
    assert_illegal(state, 0, "boost V H S", "bad-boost")
    state.influence[0][V] = B.influence_top - 1
    do(state, 0, "boost V")
    assert state.influence[0][V] == B.influence_top
    assert "influence_top" in state.end_reasons
    assert not G.is_over(state)  # the turn is finished first
    do(state, 0, f"V {qid(frontier()[0])}", "inf")
    assert G.is_over(state)


def test_boost_is_legal_for_every_people_and_pair() -> None:
    state = fresh(3)
    boosts = [a for a in G.legal_actions(state, state.active) if isinstance(a, Boost)]
    n = len(B.peoples)
    assert len(boosts) == n + n * (n - 1) // 2


# -- limits -----------------------------------------------------------------------------------


def test_one_tile_per_turn_and_each_once() -> None:
    state = fresh(3)
    set_hands(state, {0: [V, V, S, S, F, F]})
    do(state, 0, "boost V")
    assert not any(isinstance(a, (DoubleTurn, Swap, Boost)) for a in G.legal_actions(state, 0))
    assert_illegal(state, 0, "double", "one-tile-per-turn")
    do(state, 0, f"V {qid(frontier()[0])}", "inf")
    for seat in (1, 2):
        do(state, seat, f"{G.board.peoples[state.hands[seat][0]].letter} {qid(frontier()[1])}")
        do(state, seat, "inf")
    assert state.active == 0
    assert_illegal(state, 0, "boost S", "tile-used-up")
    assert not any(isinstance(a, Boost) for a in G.legal_actions(state, 0))
    do(state, 0, "double")  # another tile is fine in a new turn


def test_tiles_not_during_conflicts_nor_in_other_turns() -> None:
    state = fresh(3)
    t = frontier()[0]
    put(state, t, S, 4)
    set_hands(state, {0: [V] * 6, 1: [S, S, F, F, H, H]})
    assert_illegal(state, 1, "double", "not-your-turn")
    do(state, 0, f"V {qid(t)}", "inf")
    assert state.step == "conflict_cards"
    assert_illegal(state, 0, "double", "wrong-step")
    assert_illegal(state, 0, "boost V", "wrong-step")
    do(state, 0, "pass")
    assert_illegal(state, 1, "swap S", "wrong-step")
    assert all(not isinstance(a, (DoubleTurn, Swap, Boost)) for a in G.legal_actions(state, 1))


def finish_position():
    state = fresh(3)
    t = frontier()[0]
    put(state, t, S, 4)
    set_hands(state, {0: [V] * 6})
    do(state, 0, f"V {qid(t)}", "inf")
    for seat in state.conflict.order:
        do(state, seat, "pass")
    resolve(state)
    return state


def test_finish_step_offered_after_conflict_when_tile_usable() -> None:
    state = finish_position()
    assert state.step == "finish" and state.active == 0
    [decision] = G.pending(state)
    assert decision.seat == 0 and decision.kind == "move"
    legal = G.legal_actions(state, 0)
    assert EndTurn() in legal and DoubleTurn() in legal
    assert len(state.hands[0]) == 5  # not refilled yet
    do(state, 0, "end")
    assert state.active == 1 and len(state.hands[0]) == B.hand_size


def test_boost_at_finish_ends_the_turn() -> None:
    state = finish_position()
    do(state, 0, "boost H")
    assert state.influence[0][H] == 2 and state.active == 1


def test_double_at_finish_plays_another_card() -> None:
    state = finish_position()
    do(state, 0, "double")
    assert state.step == "play_card" and state.active == 0
    do(state, 0, f"V {qid(frontier()[1])}", "inf")
    assert state.active == 1


def test_no_finish_step_without_usable_tile() -> None:
    state = fresh(3)
    t = frontier()[0]
    put(state, t, S, 4)
    set_hands(state, {0: [V] * 6})
    do(state, 0, "boost H", f"V {qid(t)}", "inf")
    for seat in state.conflict.order:
        do(state, seat, "pass")
    resolve(state)
    assert state.active == 1 and state.step == "play_card"
    assert_illegal(state, 1, "end", "wrong-step")


# -- refill and the draw pile ------------------------------------------------------------------


def test_empty_pile_reshuffles_discards_at_refill() -> None:
    state = fresh(3)
    set_hands(state, {0: [V] * 6})
    state.discard, state.deck = state.deck, []
    events = do(state, 0, f"V {qid(frontier()[0])}", "inf")
    assert "discards_reshuffled" in kinds(events)
    assert len(state.hands[0]) == B.hand_size and state.discard == []


def test_reshuffle_is_deterministic() -> None:
    decks = []
    for _ in range(2):
        state = fresh(3, seed="reshuffle")
        set_hands(state, {0: [V] * 6})
        state.discard, state.deck = state.deck, []
        do(state, 0, f"V {qid(frontier()[0])}", "inf")
        decks.append((list(state.deck), list(state.hands[0])))
    assert decks[0] == decks[1]


def test_stop_drawing_option_leaves_hand_short() -> None:
    state = fresh(3, options={"DRAW_PILE_EXHAUSTED": "stop_drawing"})
    set_hands(state, {0: [V] * 6})
    state.discard, state.deck = state.deck, []
    events = do(state, 0, f"V {qid(frontier()[0])}", "inf")
    assert "discards_reshuffled" not in kinds(events)
    assert len(state.hands[0]) == B.hand_size - 1 and state.active == 1


def test_both_piles_empty_hand_stays_short() -> None:
    state = fresh(3)
    set_hands(state, {0: [V] * 4})
    parked = state.deck
    state.deck = []
    state.hands[1] = sorted(state.hands[1] + parked)  # park the rest in a hand: still 54
    do(state, 0, f"V {qid(frontier()[0])}", "inf")
    # only the played card could be reshuffled and drawn back
    assert len(state.hands[0]) == 4 and not state.deck and not state.discard
    assert state.active == 1


def test_double_turn_first_card_fully_resolved_before_second() -> None:
    """Card 1's conflict, pacification and century scoring come before card 2, whose
    influence then uses the new century; the refill comes last."""
    state = fresh(3)
    t = frontier()[0]
    put(state, t, S, 4)
    set_hands(state, {0: [V, V, V, F, F, F]})
    state.influence[1][S] = 1  # seat 1 alone on the Saxons
    events = do(state, 0, "double", f"V {qid(t)}", "inf")
    for seat in state.conflict.order:
        events += do(state, seat, "pass")
    events += resolve(state)
    assert state.tiles_left[0] == 0 and state.scores[1] == 4 + 1
    assert state.step == "play_card" and state.active == 0
    events += do(state, 0, f"F {qid(frontier()[1])}", "inf")
    assert state.influence[0][F] == B.influence_steps[1]  # 5th century now
    names = kinds(events)
    assert names.index("scored") < names.index("cards_drawn")
    assert names.count("cards_drawn") == 1 and state.active == 1


# -- an empty hand at the own turn ----------------------------------------------------------


def seat_1_laid_its_whole_hand():
    state = whole_hand_laid_in_a_conflict()
    assert state.active == 1 and not state.hands[1]
    return state


def test_empty_hand_at_turn_start_may_still_use_the_two_influence_tile() -> None:
    """§5: "Der aktive Spieler kann jederzeit in seinem Zug seine Aktions-Plättchen
    einsetzen." The 2-influence tile needs no card, so an empty hand must not cost it: the
    turn waits for `boost …` or `end` before the refill. Swap needs a card to give; double
    turn stays legal as everywhere else, but with no card it would only spend the tile."""
    state = seat_1_laid_its_whole_hand()
    assert state.step == "finish"
    assert [d.seat for d in G.pending(state)] == [1]
    legal = G.legal_actions(state, 1)
    assert legal[0] == EndTurn()
    assert Boost((S,)) in legal and Boost((F, S)) in legal
    assert not any(isinstance(a, Swap) for a in legal)
    events = do(state, 1, "boost S")
    assert state.influence[1][S] == 2
    assert state.action_tiles[1] == ["double_turn", "swap"]
    assert "cards_drawn" in kinds(events)
    assert len(state.hands[1]) == B.hand_size and state.active == 2


def test_empty_hand_at_turn_start_may_decline_with_end() -> None:
    state = seat_1_laid_its_whole_hand()
    events = do(state, 1, "end")
    assert kinds(events)[:2] == ["cards_drawn", "cards_drawn_own"]
    assert len(state.hands[1]) == B.hand_size and state.active == 2
    assert len(state.action_tiles[1]) == 3

"""Rulebook §3 (conflict and pacification), §8 (conflict with one people), the
CONFLICT_COMMIT_ORDER option and the SYSTEM resolution."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.attila.actions import Commit, Resolve
from engine.core import SYSTEM, IllegalAction, visible_events
from tests.attila_helpers import (
    CAPACITY,
    B,
    G,
    P,
    do,
    first,
    fresh,
    frontier,
    kinds,
    norm,
    pid,
    put,
    qid,
    resolve,
    set_hands,
    total_in,
)

V, S, F, H, Go, T = P("V"), P("S"), P("F"), P("H"), P("G"), P("T")
OTHER = [H, Go, T, H, Go, T]  # cards of peoples absent from the conflict
SIMULTANEOUS = {"CONFLICT_COMMIT_ORDER": "simultaneous"}


def conflict_position(players: int = 3, active: int = 0, options=None, hands=None):
    """Province T (frontier) holds V1 S2 F1; the active player sets a 5th stone (Vandals)."""
    state = fresh(players, options=options, active=active)
    t = frontier()[0]
    put(state, t, V, 1)
    put(state, t, S, 2)
    put(state, t, F, 1)
    default = {seat: [V, S, F, H, Go, T] for seat in range(players)}
    default[active] = [V, V, V, S, F, H]
    set_hands(state, hands or default)
    do(state, active, f"V {qid(t)}", "inf")
    return state, t


def test_fifth_stone_starts_a_conflict_in_seat_order_from_active() -> None:
    state, t = conflict_position(players=4, active=2)
    assert state.step == "conflict_cards"
    assert state.conflict is not None and state.conflict.province == t
    assert state.conflict.order == (2, 3, 0, 1)
    assert set(state.conflict.present) == {V, S, F}
    [decision] = G.pending(state)
    assert decision.seat == 2 and decision.sealed and decision.ref == state.conflict.ref
    # the others wait their turn
    for seat in (3, 0, 1):
        with pytest.raises(IllegalAction) as error:
            G.apply(state, seat, G.parse("pass"))
        assert error.value.code == "not-your-turn"
    order = []
    for _ in range(4):
        [decision] = G.pending(state)
        order.append(decision.seat)
        do(state, decision.seat, "pass")
    assert order == [2, 3, 0, 1]
    [decision] = G.pending(state)
    assert decision.seat == SYSTEM and decision.kind == "resolve"
    assert G.legal_actions(state, SYSTEM) == [Resolve()]


def test_four_stones_do_not_start_a_conflict() -> None:
    state = fresh()
    t = frontier()[0]
    put(state, t, S, CAPACITY - 1)
    set_hands(state, {0: [V] * 6})
    do(state, 0, f"V {qid(t)}", "inf")
    assert total_in(state, t) == CAPACITY
    assert state.conflict is None and state.active == 1 and not state.pacified[t]


def test_legal_commits_are_cards_of_present_peoples() -> None:
    state, _ = conflict_position()
    legal = G.legal_actions(state, 0)
    assert Commit(()) in legal
    for action in legal:
        assert isinstance(action, Commit)
        assert set(action.cards) <= {V, S, F}
        assert not Counter(action.cards) - Counter(state.hands[0])
    assert Commit((V, V)) in legal  # several cards of one people
    assert all(H not in a.cards for a in legal)


def test_commit_errors_leave_state_unchanged() -> None:
    state, _ = conflict_position()
    before = norm(G.dump(state))
    for text, code in [("commit H", "people-not-in-conflict"), ("commit SS", "card-not-in-hand")]:
        with pytest.raises(IllegalAction) as error:
            G.apply(state, 0, G.parse(text))
        assert error.value.code == code
        assert norm(G.dump(state)) == before


def test_count_public_peoples_hidden_until_resolve() -> None:
    state, _ = conflict_position()
    events = do(state, 0, "commit VV")
    public = visible_events(events, 1)
    assert [e.data.get("count") for e in public if e.kind == "conflict_committed"] == [2]
    assert all("cards" not in e.data for e in public)
    own = [e for e in events if e.kind == "conflict_committed_own"]
    assert own and own[0].audience == (0,) and own[0].data["cards"] == [pid(V), pid(V)]
    view1 = G.view(state, 1)
    assert view1["conflict"]["committed"] == {"0": 2}
    assert "own_cards" not in view1["conflict"]
    assert G.view(state, 0)["conflict"]["own_cards"] == [pid(V), pid(V)]
    assert "own_cards" not in G.view(state, None)["conflict"]
    events = do(state, 1, "commit S") + do(state, 2, "pass")
    assert all("cards" not in e.data for e in visible_events(events, 2) if e.audience is None)
    resolved = first(resolve(state), "conflict_resolved")
    assert resolved.audience is None
    assert resolved.data["cards"] == {"0": [pid(V), pid(V)], "1": [pid(S)], "2": []}


def test_player_cannot_resolve_and_system_waits_for_all() -> None:
    state, _ = conflict_position()
    with pytest.raises(IllegalAction) as error:
        G.apply(state, 0, Resolve())
    assert error.value.code == "wrong-step"
    with pytest.raises(IllegalAction) as error:
        G.apply(state, SYSTEM, Resolve())
    assert error.value.code == "not-your-turn"
    for seat in (0, 1, 2):
        do(state, seat, "pass")
    with pytest.raises(IllegalAction) as error:
        G.apply(state, 0, Resolve())
    assert error.value.code == "not-your-turn"
    with pytest.raises(IllegalAction) as error:
        G.apply(state, SYSTEM, G.parse("pass"))
    assert error.value.code == "wrong-step"
    resolve(state)
    assert state.conflict is None


def test_rulebook_conflict_example() -> None:
    """Vandals 4, Saxons 3, Franks 3: Saxons and Franks leave, the Vandals stay."""
    state = fresh(3)
    t = frontier()[0]
    put(state, t, V, 1)
    put(state, t, S, 2)
    put(state, t, F, 1)  # the 5th stone is a Frank: V1 S2 F2
    set_hands(state, {0: [F, V, V, H, H, H], 1: [V, S, Go, Go, Go, Go], 2: [F, T, T, T, T, T]})
    do(state, 0, f"F {qid(t)}", "inf")
    do(state, 0, "commit VV")  # Margret: two cards
    do(state, 1, "commit VS")  # Imelda: two cards
    do(state, 2, "commit F")  # Franz: one card
    discard_before = Counter(state.discard)
    events = resolve(state)
    resolved = first(events, "conflict_resolved")
    assert resolved.data["strength"] == {pid(V): 4, pid(S): 3, pid(F): 3}
    assert sorted(resolved.data["removed"]) == sorted([pid(S), pid(F)])
    assert state.stones[t][V] == 1 and state.stones[t][S] == 0 and state.stones[t][F] == 0
    assert state.supply[S] == B.stones_per_people and state.supply[F] == B.stones_per_people
    assert state.pacified[t] == B.first_century
    # the five laid cards are on the discard pile
    assert Counter(state.discard) - discard_before == Counter([V, V, V, S, F])


def test_all_weakest_leave_and_province_can_empty() -> None:
    state = fresh(3)
    t = frontier()[0]
    put(state, t, V, 2)
    put(state, t, S, 2)
    set_hands(state, {0: [S, V, H, H, H, H], 1: [Go] * 6, 2: [T] * 6})
    do(state, 0, f"S {qid(t)}", "inf")  # V2 S3
    do(state, 0, "commit V")  # V3 S3
    do(state, 1, "pass")
    do(state, 2, "pass")
    events = resolve(state)
    assert sorted(first(events, "conflict_resolved").data["removed"]) == sorted([pid(V), pid(S)])
    assert total_in(state, t) == 0 and state.pacified[t]
    assert state.supply[V] == state.supply[S] == B.stones_per_people


def test_conflict_with_one_people_empties_the_province() -> None:
    """Rulebook §8: its stones all leave; its cards can still be laid to get rid of them."""
    state = fresh(3)
    t = frontier()[0]
    put(state, t, V, CAPACITY)
    set_hands(state, {0: [V, V, V, H, H, H], 1: [V, Go, Go, Go, Go, Go], 2: [T] * 6})
    do(state, 0, f"V {qid(t)}", "inf")
    assert state.conflict.present == (V,)
    do(state, 0, "commit VV")
    do(state, 1, "commit V")
    do(state, 2, "pass")
    resolve(state)
    assert total_in(state, t) == 0
    assert state.pacified[t]
    assert state.supply[V] == B.stones_per_people
    assert state.discard.count(V) == 4  # the played card and three conflict cards


def test_pacification_tile_from_lowest_nonempty_century() -> None:
    state, t = conflict_position()
    state.tiles_left[0] = 0  # the 4th century is already empty
    before = list(state.tiles_left)
    for seat in (0, 1, 2):
        do(state, seat, "pass")
    events = resolve(state)
    assert state.tiles_left[1] == before[1] - 1
    assert state.tiles_left[2:] == before[2:]
    assert state.pacified[t] == B.first_century + 1
    assert first(events, "province_pacified").data["century"] == B.first_century + 1
    assert "scored" not in kinds(events)  # the 5th century field is not empty yet


def test_only_active_player_refills_after_conflict() -> None:
    state, _ = conflict_position()
    do(state, 0, "commit VV")
    do(state, 1, "commit VS")
    do(state, 2, "pass")
    assert len(state.hands[0]) == 3 and len(state.hands[1]) == 4  # no refill yet
    resolve(state)
    # seat 0 may still use an action tile: the game asks for `end`
    assert state.step == "finish" and state.active == 0
    do(state, 0, "end")
    assert len(state.hands[0]) == B.hand_size
    assert len(state.hands[1]) == 4 and len(state.hands[2]) == 6
    assert state.active == 1


def test_seat_with_empty_hand_passes_automatically() -> None:
    state = fresh(3, options={"DRAW_PILE_EXHAUSTED": "stop_drawing"})
    t = frontier()[0]
    put(state, t, S, CAPACITY)
    set_hands(state, {0: [V, H, H, H, H, H], 1: [], 2: [S] * 6})
    do(state, 0, f"V {qid(t)}", "inf")
    assert state.conflict.commits == {1: ()}
    do(state, 0, "pass")
    assert [d.seat for d in G.pending(state)] == [2]


def test_two_conflicts_in_one_turn_resolved_in_placement_order() -> None:
    state = fresh(3)
    a, b = frontier()[0], frontier()[1]
    put(state, a, S, CAPACITY)
    put(state, b, F, CAPACITY)
    set_hands(state, {0: [V] * 6, 1: [Go] * 6, 2: [T] * 6})
    do(state, 0, f"V {qid(a)}", f"waive {qid(b)}")
    assert state.conflict.province == a and state.queued == [b]
    for seat in (0, 1, 2):
        do(state, seat, "pass")
    resolve(state)
    assert state.pacified[a] and state.conflict.province == b
    for seat in (0, 1, 2):
        do(state, seat, "pass")
    resolve(state)
    assert state.pacified[b]
    # a: V1 vs S4 -> Vandals leave; b: V1 vs F4 -> Vandals leave
    assert state.stones[a][S] == CAPACITY and state.stones[b][F] == CAPACITY
    assert state.stones[a][V] == state.stones[b][V] == 0


# -- simultaneous commits ---------------------------------------------------------------------


def test_simultaneous_all_seats_pending_at_once() -> None:
    state, _ = conflict_position(players=4, active=1, options=SIMULTANEOUS)
    pending = G.pending(state)
    assert sorted(d.seat for d in pending) == [0, 1, 2, 3]
    assert all(d.sealed and d.step == "conflict_cards" for d in pending)
    do(state, 3, "commit V")  # any order
    assert sorted(d.seat for d in G.pending(state)) == [0, 1, 2]
    public = [e for e in do(state, 0, "commit S") if e.audience is None]
    assert all("count" not in e.data and "cards" not in e.data for e in public)
    do(state, 1, "pass")
    do(state, 2, "pass")
    assert [d.seat for d in G.pending(state)] == [SYSTEM]


def test_simultaneous_views_do_not_betray_counts() -> None:
    """Seat 1 laying two cards or passing must look the same to seat 0 and spectators."""
    one, _ = conflict_position(options=SIMULTANEOUS)
    two, _ = conflict_position(options=SIMULTANEOUS)
    events_one = do(one, 1, "commit VS")
    events_two = do(two, 1, "pass")
    for seat in (0, 2, None):
        assert norm(G.view(one, seat)) == norm(G.view(two, seat))
        assert norm([e.to_json() for e in visible_events(events_one, seat)]) == norm(
            [e.to_json() for e in visible_events(events_two, seat)]
        )
    assert G.view(one, 0)["hand_counts"][1] == 6
    assert G.view(one, 1)["conflict"]["own_cards"] == [pid(S), pid(V)]


def test_seat_order_views_show_counts() -> None:
    state, _ = conflict_position()
    do(state, 0, "commit VV")
    view = G.view(state, 1)
    assert view["hand_counts"][0] == 3
    assert view["conflict"]["committed"] == {"0": 2}

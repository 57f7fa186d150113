"""Property tests (hypothesis): random legal play from any seed and player count ends, and
every action keeps the game's invariants."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from engine.core import IllegalAction
from tests.attila_helpers import G, check_invariants, norm, random_step

# stop_drawing is left out: it hits the recursion bug recorded in test_attila_end.py.
OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "CONFLICT_COMMIT_ORDER": st.sampled_from(["seat_order_counts_public", "simultaneous"]),
        "NEW_COUNTER_ENTRY": st.sampled_from(["entry_is_first_step", "entry_consumes_all_steps"]),
        "LAST_TILE_FINAL_SCORING": st.sampled_from(
            ["single_scoring_after_turn", "score_at_once_and_end", "score_twice"]
        ),
        "TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE": st.sampled_from([3, 2]),
        "START_PLAYER": st.sampled_from(["random_from_game_seed", "host_chooses"]),
        "DRAW_PILE_EXHAUSTED": st.sampled_from(["reshuffle_discards", "stop_drawing"]),
    },
)
MAX_ACTIONS = 3000
PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_views(state) -> None:
    for seat in [*range(state.players), None]:
        view = G.view(state, seat)
        if seat is None:
            assert "hand" not in view
        else:
            assert view["hand"] == [G.board.peoples[c].id for c in state.hands[seat]]
        conflict = view["conflict"]
        if conflict is not None and "own_cards" in conflict:
            assert seat in state.conflict.commits
            ids = [G.board.peoples[c].id for c in state.conflict.commits[seat]]
            assert conflict["own_cards"] == ids


@PROPS
@given(
    seed=st.text(max_size=10),
    players=st.integers(2, 5),
    choices=st.integers(0, 2**32 - 1),
    options=OPTIONS,
)
def test_random_play_ends_and_keeps_invariants(seed, players, choices, options) -> None:
    state = G.new_state(players, seed, options)
    rng = random.Random(choices)
    check_invariants(state)
    scores = list(state.scores)
    for count in range(MAX_ACTIONS):
        if G.is_over(state):
            break
        random_step(state, rng)
        check_invariants(state)
        assert all(now >= before for now, before in zip(state.scores, scores, strict=True))
        scores = list(state.scores)
        if count % 7 == 0 or state.conflict is not None:
            check_views(state)
    assert G.is_over(state), "random legal play must end"
    result = G.result(state)
    assert result["scores"] == state.scores
    assert result["winners"] == [s for s, p in enumerate(state.scores) if p == max(state.scores)]
    assert result["reasons"] and set(result["reasons"]) <= {
        "last_tile",
        "supply_empty",
        "influence_top",
        "no_cards_left",
    }
    if "no_cards_left" in result["reasons"]:
        assert options.get("DRAW_PILE_EXHAUSTED") == "stop_drawing"
    assert G.pending(state) == []


@PROPS
@given(seed=st.text(max_size=6), players=st.integers(2, 5), choices=st.integers(0, 2**16))
def test_illegal_actions_leave_state_untouched(seed, players, choices) -> None:
    """Every action legal for someone else, or at another step, is refused cleanly."""
    rng = random.Random(choices)
    state = G.new_state(players, seed)
    pool: list = []
    for _ in range(120):
        if G.is_over(state):
            break
        for decision in G.pending(state):
            pool += G.legal_actions(state, decision.seat)[:5]
        seat = rng.choice([*range(players), -1])
        legal = G.legal_actions(state, seat)
        action = rng.choice(pool)
        if action not in legal:
            before = norm(G.dump(state))
            try:
                G.apply(state, seat, action)
            except IllegalAction as error:
                assert error.code
                assert norm(G.dump(state)) == before
            else:
                raise AssertionError(f"{G.notation(action)} by {seat} was not in legal_actions")
        random_step(state, rng)


class AttilaMachine(RuleBasedStateMachine):
    """Drives one game with hypothesis choosing among the legal actions."""

    @initialize(seed=st.text(max_size=6), players=st.integers(2, 5), options=OPTIONS)
    def start(self, seed, players, options) -> None:
        self.state = G.new_state(players, seed, options)
        self.scores = list(self.state.scores)

    @rule(pick=st.integers(0, 10_000), who=st.integers(0, 10))
    def act(self, pick: int, who: int) -> None:
        if G.is_over(self.state):
            return
        decisions = G.pending(self.state)
        decision = decisions[who % len(decisions)]
        legal = G.legal_actions(self.state, decision.seat)
        assert legal
        G.apply(self.state, decision.seat, legal[pick % len(legal)])

    @invariant()
    def conserved(self) -> None:
        if hasattr(self, "state"):
            check_invariants(self.state)
            assert all(a >= b for a, b in zip(self.state.scores, self.scores, strict=True))
            self.scores = list(self.state.scores)

    @invariant()
    def views_hide_hands(self) -> None:
        if hasattr(self, "state"):
            check_views(self.state)


AttilaMachine.TestCase.settings = settings(max_examples=20, stateful_step_count=60, deadline=None)
test_attila_machine = AttilaMachine.TestCase

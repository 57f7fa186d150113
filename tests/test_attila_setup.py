"""Setup (rulebook: Spielvorbereitungen) and game creation errors."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core import IllegalAction
from tests.attila_helpers import PEOPLES, TOTAL_CARDS, B, G, all_cards


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_components(players: int) -> None:
    state = G.new_state(players, "setup-seed")
    constants = B.raw["constants"]
    # 54 cards, 9 per people, all accounted for
    assert constants["cards_total"] == TOTAL_CARDS
    assert all_cards(state) == Counter({p: constants["cards_per_people"] for p in PEOPLES})
    assert [len(hand) for hand in state.hands] == [constants["hand_size"]] * players
    assert len(state.deck) == TOTAL_CARDS - players * constants["hand_size"]
    assert state.discard == []
    # 20 stones per people in the supply, none on the board
    assert state.supply == [constants["stones_per_people"]] * len(B.peoples)
    assert all(n == 0 for row in state.stones for n in row)
    assert not any(state.pacified)
    # pacification tiles as the data says (1/2/3/4 on the 4th..7th century)
    by_century = constants["pacification_tiles_by_century"]
    assert state.tiles_left == [by_century[c] for c in sorted(by_century, key=int)]
    assert sum(state.tiles_left) == constants["pacification_tiles"]
    # three action tiles per player, one of each kind
    tiles = [t["id"] for t in constants["action_tiles"]]
    assert len(tiles) == constants["action_tiles_per_player"]
    assert all(sorted(own) == sorted(tiles) for own in state.action_tiles)
    assert len(state.action_tiles) == players
    # nobody on any track, no points
    assert all(f == 0 for track in state.influence for f in track)
    assert state.scores == [0] * players
    assert state.result is None and not G.is_over(state)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_first_decision_is_start_player_playing_a_card(players: int) -> None:
    state = G.new_state(players, "first")
    assert 0 <= state.start_seat < players
    assert state.active == state.start_seat
    [decision] = G.pending(state)
    assert (decision.seat, decision.kind, decision.step) == (state.start_seat, "move", "play_card")
    expected_cards = B.two_player_cards_per_turn if players == 2 else 1
    assert state.cards_left == expected_cards


def test_start_player_and_deal_are_deterministic_from_the_seed() -> None:
    for seed in ("a", "b", "c"):
        one, two = G.new_state(4, seed), G.new_state(4, seed)
        assert one.start_seat == two.start_seat
        assert one.hands == two.hands and one.deck == two.deck
    starts = {G.new_state(4, f"seed-{i}").start_seat for i in range(40)}
    assert len(starts) > 1, "the start player should depend on the seed"
    hands = {tuple(map(tuple, G.new_state(4, f"seed-{i}").hands)) for i in range(10)}
    assert len(hands) > 1, "the deal should depend on the seed"


def test_host_chooses_start_player_is_seat_zero() -> None:
    for i in range(20):
        state = G.new_state(4, f"host-{i}", {"START_PLAYER": "host_chooses"})
        assert state.start_seat == 0 and state.active == 0
        assert G.pending(state)[0].seat == 0


@pytest.mark.parametrize("players", [0, 1, 6, 10])
def test_bad_player_count(players: int) -> None:
    with pytest.raises(IllegalAction) as error:
        G.new_state(players, "x")
    assert error.value.code == "bad-player-count"


def test_unknown_option() -> None:
    with pytest.raises(IllegalAction) as error:
        G.new_state(3, "x", {"NO_SUCH_OPTION": 1})
    assert error.value.code == "unknown-option"


@pytest.mark.parametrize(
    "options",
    [
        {"START_PLAYER": "youngest"},
        {"CONFLICT_COMMIT_ORDER": "random"},
        {"TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE": 4},
        {"TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE": "3"},
        {"DRAW_PILE_EXHAUSTED": None},
    ],
)
def test_bad_option_value(options: dict) -> None:
    with pytest.raises(IllegalAction) as error:
        G.new_state(3, "x", options)
    assert error.value.code == "bad-option"


def test_every_spec_option_is_named_with_the_data_default() -> None:
    specs = {spec.name: spec for spec in G.options}
    for name, raw in B.raw["rule_options"].items():
        if name == "note":
            continue
        assert specs[name].default == raw["default"]
        assert set(specs[name].choices) == {raw["default"], *raw.get("alternatives", ())}
    state = G.new_state(3, "x")
    assert state.options == {name: spec.default for name, spec in specs.items()}


def test_every_alternative_option_value_is_accepted() -> None:
    for spec in G.options:
        for choice in spec.choices:
            state = G.new_state(3, "x", {spec.name: choice})
            assert state.options[spec.name] == choice

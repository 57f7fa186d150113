"""Each player's public state beside their name on the game page: Attila's points, cards in
hand as a count and action tiles after the seat's shape, Attika's colour, buildings and cards,
the wargame's side; the same for a spectator, and never what is in a hand."""

from __future__ import annotations

import html
import re

import pytest
from flask import Flask

from service.domain.games import views
from service.store import Store
from tests.game_helpers import new_table, play_random

FACTS = re.compile(r'<span class="facts">(.*?)</span>', re.S)


@pytest.mark.parametrize(
    ("game_type", "seats", "words"),
    [
        ("attila", 3, ["○", "□", "△", "cards, action tiles:"]),
        ("attika", 2, ["built", "card(s)"]),
        ("attila-wargame", 2, ["Roman", "Barbarian"]),
    ],
)
def test_each_player_shows_their_public_state_beside_their_name(
    app: Flask, store: Store, game_type: str, seats: int, words: list[str]
) -> None:
    table = new_table(store, seats, f"facts-{game_type}", game_type)
    play_random(store, table, 6, seed=1)
    record = store.get_game(table.game_id)
    page = app.test_client().get(f"/games/{table.game_id}").text  # a spectator
    facts = [html.unescape(f) for f in FACTS.findall(page)]
    assert len(facts) == seats, facts
    joined = " | ".join(facts)
    assert all(word in joined for word in words), facts
    if game_type == "attila":
        view = views.game_view(record, None, None)["view"]
        for seat, line in enumerate(facts):
            assert f"{view['hand_counts'][seat]} cards" in line
        hands = [record.game.view(record.game.load(record.state), s)["hand"] for s in range(3)]
        names = {card for hand in hands for card in hand}
        assert not any(name in joined.lower() for name in names), facts  # counts, not cards

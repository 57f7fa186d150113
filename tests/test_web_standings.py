"""The end of a game on its page (issue 32): the standings best first, each seat's points per
scoring (Attila's ``scored`` events) and the result's other per-seat figures (Attika's
settlements and amphorae), from public events only."""

from __future__ import annotations

from engine.core import Event
from service.http.web.standings import standings

NAMES = ["Ann", "Bo", "Cy"]


def _entry(*events: Event) -> tuple[int, dict[str, object]]:
    return (7, {"events": [e.to_json() for e in events]})


def test_attila_standings_add_the_points_of_each_scoring() -> None:
    century = Event(
        "scored",
        {
            "scoring": "century",
            "century": 5,
            "peoples": [
                {"people": "huns", "points": {"0": 3, "2": 1}},
                {"people": "goths", "points": {"0": 1, "1": 2}},
            ],
            "scores": [4, 2, 1],
        },
    )
    final = Event(
        "scored",
        {
            "scoring": "final",
            "peoples": [{"people": "huns", "points": {"1": 6}}],
            "scores": [4, 8, 1],
        },
    )
    hidden = Event("scored", {"scoring": "secret", "peoples": []}, audience=(0,))
    result = {"scores": [4, 8, 1], "winners": [1], "reasons": ["end"]}
    table = standings(result, [_entry(century), _entry(hidden, final)], NAMES)
    assert table is not None
    assert table["columns"] == ["V", "Final"]  # the hidden one is not shown
    rows = [(r["place"], r["name"], r["cells"], r["score"], r["winner"]) for r in table["rows"]]
    assert rows == [
        (1, "Bo", [2, 6], 8, True),
        (2, "Ann", [4, 0], 4, False),
        (3, "Cy", [1, 0], 1, False),
    ]


def test_attika_standings_show_the_tie_breaking_figures_and_ties() -> None:
    result = {
        "winners": [0],
        "reasons": ["all_buildings"],
        "scores": [30, 29],
        "settlements": [3, 4],
        "amphorae": [0, 2],
    }
    table = standings(result, [], NAMES[:2])
    assert table is not None and table["columns"] == ["settlements", "amphorae"]
    assert [(r["name"], r["cells"]) for r in table["rows"]] == [("Ann", [3, 0]), ("Bo", [4, 2])]
    assert standings(None, [], NAMES) is None

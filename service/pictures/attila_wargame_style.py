"""The wargame picture's colours, fonts and names: what every part of it (the map, the units,
the side panel) and the text summary call a side, a people, a unit, a round or a phase.

Everything named comes from the board data (peoples, command units, the calendar), so a
corrected data file needs no change here.
"""

from __future__ import annotations

import re

from engine.attila_wargame.board import Board
from engine.sentences import N_
from service.common.i18n import say_word
from service.common.numbers import is_ascii_digits

SEA = "#a9cbe3"
SEA_LINE = "#5d88ab"
EMPIRE_FILL = {"west": "#f4ead0", "east": "#f1dfe4", "barbarian": "#dfe8cf"}
OUT_OF_PLAY = "#d3d3cf"
EMPIRE_NAME = {"west": "Western Empire", "east": "Eastern Empire", "barbarian": "Barbaricum"}
RIVER = "#2a6db5"
BORDER = "#9c2a2a"
SIDE_BAND = {"roman": "#7b1e3b", "barbarian": "#202020", "neutral": "#8a8a8a"}
SIDE_NAME = {"roman": "Roman", "barbarian": "Barbarian", "neutral": "neutral"}
#: The calendar's seasons (engine data), marked here for the catalog (docs/i18n.md).
SEASON_WORDS = (N_("spring"), N_("summer"), N_("autumn"), N_("winter"))
#: The forces sheet's colour names (data ``peoples[].colour``) as fills.
PEOPLE_COLOUR = {
    "white": "#f8f6f0",
    "green": "#4f9d2d",
    "yellow": "#f2cf3b",
    "dark blue": "#27448f",
    "brown": "#8b5a2b",
    "pink": "#f2a7c3",
    "light blue": "#9fd3f0",
    "violet": "#9161c9",
    "red": "#d3352c",
    "orange": "#f0922b",
}
FALLBACK_COLOUR = "#bbbbbb"
TEMP_MARK, PERM_MARK = "#e07b1a", "#6e1010"
#: Greek letters for the Eastern units' designations (ids keep the spelled-out names).
GREEK = {
    "ALPHA": "Α",
    "BETA": "Β",
    "GAMMA": "Γ",
    "DELTA": "Δ",
    "EPSILON": "Ε",
    "ZETA": "Ζ",
    "ETA": "Η",
    "THETA": "Θ",
    "IOTA": "Ι",
    "KAPPA": "Κ",
    "LAMBDA": "Λ",
    "MU": "Μ",
    "NU": "Ν",
    "XI": "Ξ",
    "OMICRON": "Ο",
    "PI": "Π",
    "RHO": "Ρ",
    "SIGMA": "Σ",
    "TAU": "Τ",
    "PHI": "Φ",
    "CHI": "Χ",
    "PSI": "Ψ",
    "OMEGA": "Ω",
}
CONDENSED = 'font-family="DejaVu Sans Condensed, Arial Narrow, sans-serif"'
#: A white outline drawn under the letters: a label stays readable on any fill or pattern.
HALO = 'stroke="#fff" stroke-width="1.6" stroke-opacity="0.85" paint-order="stroke"'


def people_fill(board: Board, people: str) -> str:
    colour = next((p["colour"] for p in board.raw["peoples"] if p["id"] == people), "")
    return PEOPLE_COLOUR.get(colour, FALLBACK_COLOUR)


def people_name(board: Board, people: str) -> str:
    name = next((p["name"] for p in board.raw["peoples"] if p["id"] == people), people)
    return name.split(" (")[0]


def designation(board: Board, unit: str) -> str:
    """A combat unit's short name on its counter: ``III·INF``, ``Λ·CAV``, ``HUN 7``."""
    parts = unit.split("-")
    if len(parts) == 3:
        return f"{GREEK.get(parts[1], parts[1])}·{parts[2]}"
    return " ".join(parts)


def cmu_short(board: Board, unit: str) -> str:
    name = next((c["name"] for c in board.raw["cmus"] if c["id"] == unit), unit)
    letters = re.sub(r"[^A-Za-z]", "", name.split(" ")[0])
    return letters[:3].upper()


def cmu_name(board: Board, unit: str) -> str:
    return next((c["name"] for c in board.raw["cmus"] if c["id"] == unit), unit)


def round_name(board: Board, round_: int) -> str:
    """``spring 447`` for round 5, from the calendar's first round and its seasons."""
    seasons = board.seasons
    first = board.raw["calendar"]["round_1"].split()
    year = int(first[-1]) + (round_ - 1) // len(seasons) if is_ascii_digits(first[-1]) else None
    season = say_word(seasons[(round_ - 1) % len(seasons)])
    return f"{season} {year}" if year is not None else season


def phase_names(board: Board) -> dict[str, str]:
    return {p["id"]: p["name"] for p in board.raw["calendar"]["phases"]}

"""Attila's kit (service/kits/__init__.py): its picture (the mails' with its panels, the web
table's the board alone), its table of cards and action tiles, and the panels beside the board."""

from __future__ import annotations

from service.kits import GameKit, Pictures, Table

KIT = GameKit(
    id="attila",
    pictures=Pictures(
        render="service.pictures.attila:render",
        summary="service.pictures.attila_text:summary",
        seat_facts="service.pictures.attila_text:seat_facts",
        web="service.pictures.attila_web:render",
    ),
    table=Table(
        targets="engine.attila.targets",
        controller="games/attila.js",
        draws="engine.attila.targets:DRAWS",
        sends=("swap",),
        pieces="service.pictures.attila_table:pieces",
        panel="service.pictures.attila_table:panel",
        after_pieces="games/attila_panel.html",
    ),
    # Attila is best with three.
    play_now_seats=3,
    play_now_first=True,
    log_codec="attila-1",
)

"""The Attila wargame's kit (service/kits/__init__.py): its map (cropped and framed in mails;
the web table's the map alone, its counters' web face),
its table of counters, marches and battle cards, and the panel beside the map (the status strip,
the last battle, the seat's secret orders)."""

from __future__ import annotations

from engine.translatable import N_
from service.kits import GameKit, Pictures, Table

KIT = GameKit(
    id="attila-wargame",
    pictures=Pictures(
        render="service.pictures.attila_wargame:render",
        summary="service.pictures.attila_wargame_text:summary",
        seat_facts="service.pictures.attila_wargame_text:seat_facts",
        crop="service.pictures.attila_wargame:crop_box",
        overview="service.pictures.attila_wargame:overview",
        web="service.pictures.attila_wargame:web",
    ),
    table=Table(
        targets="engine.attila_wargame.targets",
        controller="games/attila_wargame.js",
        details="engine.attila_wargame.targets:details",
        march="engine.attila_wargame.targets:march",
        card_names="engine.attila_wargame.targets:card_names",
        panel="service.pictures.attila_wargame_table:panel",
        board_data=("layers", "words"),
        above_board="games/attila_wargame_status.html",
        after_pieces="games/attila_wargame_orders.html",
        board_class="wargame-board",
        data_id="wargame-data",
        move_hint=N_(
            "Tap a counter, then the hex it marches to (the path is drawn); in combat tap a "
            "target, then its attackers. Confirm plays it all."
        ),
    ),
    own_view_heading=N_("What you see (your secret orders are yours alone)"),
    log_codec="attila-wargame-1",
)

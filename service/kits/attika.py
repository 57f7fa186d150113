"""Attika's kit (service/kits/__init__.py): its picture (the mails' with its panel, the web
table's the map alone), its table of resource cards, buildings and stacks, the costs of each
build, the drawn map tile's preview and the panel beside the map."""

from __future__ import annotations

from service.kits import GameKit, Pictures, Table

KIT = GameKit(
    id="attika",
    pictures=Pictures(
        render="service.pictures.attika:render",
        summary="service.pictures.attika_text:summary",
        seat_facts="service.pictures.attika_text:seat_facts",
        web="service.pictures.attika_web:render",
    ),
    table=Table(
        targets="engine.attika.targets",
        controller="games/attika.js",
        draws="engine.attika.targets:DRAWS",
        sends=("reveal", "draw"),
        costs="engine.attika.targets:costs",
        open_hexes="engine.attika.targets:open_hexes",
        tile_preview="service.pictures.attika_table:tile_preview",
        pieces="service.pictures.attika_table:pieces",
        panel="service.pictures.attika_table:panel",
        after_pieces="games/attika_panel.html",
        board_class="attika-board",
    ),
    log_codec="attika-1",
)

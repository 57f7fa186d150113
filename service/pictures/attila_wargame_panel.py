"""The wargame picture's side panel: who plays which side, the last move in words, the round
track, the phases and whom the game waits for, the situation, the battle or council in
progress, the peoples and their sides, the units off the map, the result, and the legend of
every mark on the map.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

from engine.attila_wargame.board import Board
from engine.attila_wargame.game import WargameGame
from service.common.i18n import say as _
from service.common.i18n import say_word
from service.pictures import LAST_MOVE, seat_label, svg_points, wrap_words
from service.pictures.attila_wargame_map import HEADER, PANEL_W, hex_corners
from service.pictures.attila_wargame_style import (
    BORDER,
    CONDENSED,
    EMPIRE_FILL,
    OUT_OF_PLAY,
    RIVER,
    SEA_LINE,
    SIDE_BAND,
    SIDE_NAME,
    people_fill,
    people_name,
    phase_names,
    round_name,
)
from service.pictures.attila_wargame_units import DISC, counter


class Panel:
    """The panel right of the map, filled from the top: its parts and where the next line goes."""

    def __init__(self, left: float) -> None:
        self.left = left
        self.x = left + 18
        self.y = HEADER + 28.0
        self.parts: list[str] = []

    def text(
        self, text: str, size: float = 12, bold: bool = False, dx: float = 0, **kw: str
    ) -> None:
        weight = ' font-weight="bold"' if bold else ""
        fill = kw.get("fill", "#222")
        self.parts.append(
            f'<text x="{self.x + dx:.1f}" y="{self.y:.1f}" font-size="{size}"{weight} '
            f'fill="{fill}">{escape(text)}</text>'
        )

    def line(self, text: str, size: float = 12, gap: float = 16, **kw: Any) -> None:
        self.text(text, size, **kw)
        self.y += gap

    def heading(self, text: str) -> None:
        self.y += 8
        self.parts.append(
            f'<line x1="{self.x:.1f}" y1="{self.y - 14:.1f}" x2="{self.left + PANEL_W - 18:.1f}" '
            f'y2="{self.y - 14:.1f}" stroke="#d8ccb0"/>'
        )
        self.line(text, 14, 20, bold=True, fill="#3a2a44")


def side_panel(
    board: Board,
    view: dict[str, Any],
    left: float,
    names: Sequence[str] = (),
    last_move: Sequence[str] = (),
) -> Panel:
    """The panel of ``view`` whose left edge is at ``left`` (the map's width)."""
    p = Panel(left)
    _players(view, names, p)
    _last_move(last_move, p)
    _round_track(board, view, p)
    _phases(board, view, p, players=names)
    _situation(board, view, p)
    if view.get("battle"):
        _battle(board, view["battle"], p)
    if view.get("council"):
        _council(view["council"], p)
    _peoples(board, view, p)
    _lost(board, view, p)
    if view.get("result"):
        _result(board, view["result"], p)
    _legend(board, p)
    return p


def round_track(board: Board, view: dict[str, Any]) -> list[dict[str, Any]]:
    """Each round: its number, season and year, and whether it is ``here`` (the round in
    play), ``done`` or ``ahead``."""
    current = view["round"] if view["phase"] not in ("notes",) else 0
    over = bool(view.get("result"))
    out = []
    for n in range(1, board.rounds + 1):
        season, _space, year = round_name(board, n).partition(" ")
        state = "done" if n < current or over else ("here" if n == current else "ahead")
        out.append({"n": n, "season": season, "year": year, "state": state})
    return out


def _round_track(board: Board, view: dict[str, Any], p: Panel) -> None:
    p.line(_("Round track"), 14, 12, bold=True, fill="#3a2a44")
    per_row = 8
    box_w, box_h = (PANEL_W - 36) / per_row, 30
    for r in round_track(board, view):
        n = r["n"]
        row, col = divmod(n - 1, per_row)
        bx, by = p.x + col * box_w, p.y + row * (box_h + 4)
        here = r["state"] == "here"
        fill = "#7b1e3b" if here else ("#e4dccb" if r["state"] == "done" else "#fffaf0")
        ink = "#fff" if here else "#3a2f24"
        p.parts.append(
            f'<g id="round-{n}"><rect x="{bx:.1f}" y="{by:.1f}" width="{box_w - 3:.1f}" '
            f'height="{box_h}" rx="3" fill="{fill}" stroke="#8f8268"/>'
            f'<text x="{bx + (box_w - 3) / 2:.1f}" y="{by + 13:.1f}" font-size="11" '
            f'font-weight="bold" text-anchor="middle" fill="{ink}">{n}</text>'
            f'<text x="{bx + (box_w - 3) / 2:.1f}" y="{by + 25:.1f}" font-size="7.5" '
            f'text-anchor="middle" fill="{ink}">{escape(r["season"][:3])} {escape(r["year"])}'
            "</text></g>"
        )
    p.y += 2 * (box_h + 4) + 16


def _players(view: dict[str, Any], names: Sequence[str], p: Panel) -> None:
    """Who plays which side: the sides' bands are the game's own marks, the names the
    players'."""
    for seat, side in enumerate(view["sides"]):
        p.parts.append(
            f'<rect x="{p.x:.1f}" y="{p.y - 11:.1f}" width="18" height="12" rx="2" '
            f'fill="{SIDE_BAND.get(side, "#555")}"/>'
        )
        side_name = _(SIDE_NAME.get(side, side))
        p.line(f"{side_name}: {seat_label(names, seat)}", 13, 18, dx=26, bold=True)


def _last_move(last_move: Sequence[str], p: Panel) -> None:
    """The last move in words (at most six lines; the game's log has the rest)."""
    lines = [line for sentence in last_move for line in wrap_words(sentence, 52)]
    for i, line in enumerate(lines[:6]):
        p.line((_("Last move: ") if i == 0 else "") + line, 11.5, 15, fill="#7a3a00")
    if lines:
        p.y += 4


def _phases(board: Board, view: dict[str, Any], p: Panel, players: Sequence[str] = ()) -> None:
    names = phase_names(board)
    for pid, name in names.items():
        here = view["phase"] == pid
        mark = "▶ " if here else "   "
        p.line(
            f"{mark}({pid}) {say_word(name)}",
            12,
            15,
            bold=here,
            fill="#7b1e3b" if here else "#555",
        )
    pending = view.get("pending") or []
    if pending and not view.get("result"):
        sides = view["sides"]
        who = []
        for d in pending:
            side = _(SIDE_NAME.get(sides[d["seat"]], sides[d["seat"]])) if d["seat"] >= 0 else ""
            name = _("the server") if d["seat"] < 0 else f"{side}, {seat_label(players, d['seat'])}"
            step = WargameGame.step_names.get(d["step"], d["step"].replace("_", " "))
            who.append(f"{name}: {say_word(step)}")
        for line in wrap_words(_("Waiting for %(whom)s", whom="; ".join(who)), 54):
            p.line(line, 11.5, 15, fill="#2b2233")


def situation_lines(board: Board, view: dict[str, Any]) -> list[str]:
    """The situation in lines: invasions, Leo and Attila, the council, the cities taken, the
    devastation, the secret notes ``view`` shows."""
    leo = {"alive": _("on the map"), "dead": _("dead"), "driven_out": _("driven out")}
    roles = board.bindings["roles"]
    attila_gone = view["gone"].get(roles["attila"])
    attila = _("dead (%(how)s)", how=attila_gone) if attila_gone else _("on the map")
    if view.get("attila_title"):
        attila += f", {view['attila_title']}"
    if roles["pope"] in view["gone"] and view["leo"] == "alive":
        leo_text = view["gone"][roles["pope"]]
    else:
        leo_text = leo.get(view["leo"], view["leo"])
    yes = {True: _("yes"), False: _("no")}
    lines = [
        _(
            "West invaded: %(west)s · Gaul invaded: %(gaul)s",
            west=yes[bool(view["west_invaded"])],
            gaul=yes[bool(view["gaul_invaded"])],
        ),
        _("Leo I (Pope): %(leo)s · Attila: %(attila)s", leo=leo_text, attila=attila),
        _(
            "Council of Lugdunum: %(council)s",
            council=_("held") if view["lugdunum_council_done"] else _("not yet"),
        ),
    ]
    taken = [board.city_by_id[c].name for c in view["cities_taken"] if c in board.city_by_id]
    cities = ", ".join(taken) or _("none")
    lines.append(_("Cities ever taken by the Barbarian: %(cities)s", cities=cities))
    temp, perm = view["devastated"]["temporary"], view["devastated"]["permanent"]
    lines.append(
        _(
            "Devastated fields: %(temporary)s temporary (VT), %(permanent)s permanent (VP)",
            temporary=len(temp),
            permanent=len(perm),
        )
    )
    notes = view["notes"]
    fired = notes.get("fired") or []
    if fired:
        lines.append(_("Secret notes fired: %(notes)s", notes=", ".join(fired)))
    for key, value in notes.get("known", {}).items():
        lines.append(_("Note %(key)s: %(value)s", key=key, value=value))
    return lines


def _situation(board: Board, view: dict[str, Any], p: Panel) -> None:
    p.heading(_("Situation"))
    for text in situation_lines(board, view):
        for line in wrap_words(text, 56):
            p.line(line, 11.5, 15)


def battle_lines(battle: dict[str, Any]) -> tuple[str, list[str]]:
    """The battle in progress: its heading, and its sides, odds and cards in lines."""
    number = battle["ref"].split("-")[-1]
    heading = _("Battle %(number)s at %(target)s", number=number, target=battle["target"])
    attackers, defenders = ", ".join(battle["attackers"]), ", ".join(battle["defenders"])
    lines = [
        _("Attackers: %(units)s (%(strength)s)", units=attackers, strength=battle["attack"]),
        _("Defenders: %(units)s (%(strength)s)", units=defenders, strength=battle["defence"]),
        _("Odds column %(column)s", column=battle["column"]),
    ]
    if "cards" in battle:
        cards = " vs ".join(battle["cards"][s] for s in sorted(battle["cards"]))
        lines.append(_("Cards %(cards)s: result %(result)s", cards=cards, result=battle["result"]))
    else:
        lines.append(_("Cards chosen (sealed): %(chosen)s of 2", chosen=len(battle["chosen"])))
    return heading, lines


def _battle(board: Board, battle: dict[str, Any], p: Panel) -> None:
    heading, lines = battle_lines(battle)
    p.heading(heading)
    for text in lines:
        for line in wrap_words(text, 56):
            p.line(line, 11.5, 15)


def council_lines(council: dict[str, Any]) -> tuple[str, list[str]]:
    """The council in progress: its heading, and its cards (or how many are sealed)."""
    kind = _("Council of Lugdunum") if council["kind"] == "lugdunum" else _("End council")
    if "cards" in council:
        return kind, [_("Cards: %(cards)s", cards=", ".join(council["cards"].values()))]
    chosen = len(council["chosen"])
    return kind, [_("Diplomatic cards chosen (sealed): %(chosen)s of 2", chosen=chosen)]


def _council(council: dict[str, Any], p: Panel) -> None:
    kind, lines = council_lines(council)
    p.heading(kind)
    for line in lines:
        p.line(line, 11.5)


def people_rows(board: Board, view: dict[str, Any]) -> list[dict[str, Any]]:
    """Each people: its name and colour, its side with the side's band, its units on the map."""
    counts: dict[str, int] = defaultdict(int)
    for info in view["units"].values():
        if info["combat"]:
            counts[info["people"]] += 1
    rows = []
    for people in board.peoples:
        side = view["alignment"].get(people, "neutral")
        rows.append(
            {
                "name": say_word(people_name(board, people)),
                "fill": people_fill(board, people),
                "band": SIDE_BAND.get(side, "#555"),
                "side": _(
                    "%(side)s · %(count)s on the map",
                    side=_(SIDE_NAME.get(side, side)),
                    count=counts[people],
                ),
            }
        )
    return rows


def _peoples(board: Board, view: dict[str, Any], p: Panel) -> None:
    p.heading(_("Peoples"))
    for row in people_rows(board, view):
        p.parts.append(
            f'<rect x="{p.x:.1f}" y="{p.y - 10:.1f}" width="20" height="12" rx="2" '
            f'fill="{row["fill"]}" stroke="{row["band"]}" stroke-width="1.5"/>'
        )
        p.text(row["name"], 11.5, dx=28)
        p.text(row["side"], 11.5, dx=190, fill="#555")
        p.y += 16


def lost_lines(view: dict[str, Any]) -> list[str]:
    """The units off the map, by why they left it."""
    by_reason: dict[str, list[str]] = defaultdict(list)
    for unit, why in view["gone"].items():
        by_reason[why].append(unit)
    return [f"{why}: {', '.join(units)}" for why, units in sorted(by_reason.items())]


def _lost(board: Board, view: dict[str, Any], p: Panel) -> None:
    lines = lost_lines(view)
    if not lines:
        return
    p.heading(_("Off the map"))
    for text in lines:
        for line in wrap_words(text, 60):
            p.line(line, 10.5, 14, fill="#444")


def result_lines(board: Board, result: dict[str, Any]) -> tuple[str, list[str]]:
    """The result: who wins, and the points and regions that decided it, in lines."""
    side = _(SIDE_NAME.get(result["winner_side"], result["winner_side"]))
    lines = [
        _(
            "Barbarian points %(points)s (threshold %(threshold)s)",
            points=result["barbarian_points"],
            threshold=result["threshold"],
        )
    ]
    for key, value in result.get("points_lines", {}).items():
        name = board.city_by_id[key].name if key in board.city_by_id else key.replace("_", " ")
        lines.append(f"   {name}: {value:+d}")
    held = result.get("regions_held", {})
    regions = ", ".join(f"{r} ({len(c)})" for r, c in held.items()) or _("none")
    lines.append(_("Regions held: %(regions)s", regions=regions))
    return "★ " + _("The %(side)s player wins", side=side), lines


def _result(board: Board, result: dict[str, Any], p: Panel) -> None:
    p.heading(_("Result"))
    winner, lines = result_lines(board, result)
    p.line(winner, 13, 18, bold=True, fill="#7b1e3b")
    for line in lines:
        if line.startswith("   "):  # a city's points, under the total
            p.line(line, 11, 14, fill="#444")
        else:
            p.line(line, 11.5)


def panel_facts(board: Board, view: dict[str, Any]) -> dict[str, Any]:
    """What the side panel shows below the round track, as facts for the web table's HTML
    (templates/games/attila_wargame_panel.html): the same lines, from the same view."""
    facts: dict[str, Any] = {
        "rounds": round_track(board, view),
        "situation": situation_lines(board, view),
        "battle": battle_lines(view["battle"]) if view.get("battle") else None,
        "council": council_lines(view["council"]) if view.get("council") else None,
        "peoples": people_rows(board, view),
        "lost": lost_lines(view),
        "result": result_lines(board, view["result"]) if view.get("result") else None,
    }
    return facts


def _legend(board: Board, p: Panel) -> None:
    p.heading(_("Legend"))
    x = p.x
    sample = {"people": "huns", "side": "barbarian", "combat": True, "hex": "", "mf": 5}
    p.parts.append(
        counter(board, "HUN-7", {**sample, "cf": 5, "printed_cf": 5}, x + 14, p.y + 4).replace(
            'id="unit-', 'id="legend-unit-'
        )
    )
    p.parts.append(
        counter(board, "HUN-8", {**sample, "cf": 3, "printed_cf": 5}, x + 46, p.y + 4).replace(
            'id="unit-', 'id="legend-unit-'
        )
    )
    p.text(_("combat unit: band = side and name,"), 11, dx=70)
    p.y += 14
    p.text(_("combat-movement; red: reduced"), 11, dx=70)
    p.y += 24
    swatches = [
        ("roman", _("Roman side")),
        ("barbarian", _("Barbarian side")),
        ("neutral", _("neutral")),
    ]
    for k, (side, text) in enumerate(swatches):
        sx = x + k * 118
        p.parts.append(
            f'<rect x="{sx:.1f}" y="{p.y - 10:.1f}" width="18" height="12" rx="2" '
            f'fill="{SIDE_BAND[side]}"/>'
            f'<text x="{sx + 24:.1f}" y="{p.y:.1f}" font-size="11" fill="#222">{text}</text>'
        )
    p.y += 20
    p.parts.append(
        f'<circle cx="{x + 9:.1f}" cy="{p.y - 4:.1f}" r="{DISC}" fill="#f8f6f0" '
        f'stroke="{SIDE_BAND["roman"]}" stroke-width="2"/>'
        f'<text x="{x + 9:.1f}" y="{p.y - 1.7:.1f}" font-size="6.3" font-weight="bold" '
        f'text-anchor="middle" fill="#111" {CONDENSED}>LEO</text>'
    )
    p.text(_("command unit (first letters of its name)"), 11, dx=28)
    p.y += 20
    p.parts.append(
        f'<polygon points="{svg_points(hex_corners(x + 11, p.y - 4, 11))}" fill="none" '
        f'stroke="{LAST_MOVE}" stroke-width="3"/>'
        f'<polygon points="{svg_points(hex_corners(x + 40, p.y - 4, 11))}" fill="#d00000" '
        'fill-opacity="0.12" stroke="#d00000" stroke-width="2.5"/>'
    )
    p.text(_("last move (hexes, units)  ·  battle target"), 11, dx=58)
    p.y += 22
    fx, fy = x + 8, p.y - 4
    p.parts.append(
        f'<path d="M{fx:.1f},{fy + 5:.1f} v-10 l7,3 -7,3" fill="#222" stroke="#222" '
        'stroke-width="1"/>'
        f'<path d="M{x + 30:.1f},{p.y - 11:.1f} l14,14 m0,-14 l-14,14" stroke="#444" '
        'stroke-width="2"/>'
    )
    p.text(_("city taken by the Barbarian  ·  neutralised traitor"), 11, dx=58)
    p.y += 22
    lines = [
        (f'stroke="{RIVER}" stroke-width="3.6" stroke-linecap="round"', _("river hexside")),
        (f'stroke="{BORDER}" stroke-width="3.2" stroke-dasharray="7 3"', _("border of an empire")),
        ('stroke="#6d6250" stroke-width="1.6" stroke-dasharray="5 3"', _("border of a region")),
        (f'stroke="{SEA_LINE}" stroke-width="1.3"', _("coast")),
    ]
    for style, text in lines:
        p.parts.append(
            f'<line x1="{x:.1f}" y1="{p.y - 4:.1f}" x2="{x + 22:.1f}" y2="{p.y - 4:.1f}" {style}/>'
        )
        p.text(text, 11, dx=30)
        p.y += 17
    fills = [
        (EMPIRE_FILL["west"], "", _("Western Empire")),
        (EMPIRE_FILL["east"], "", _("Eastern Empire")),
        (EMPIRE_FILL["barbarian"], "", _("Barbaricum")),
        (OUT_OF_PLAY, "url(#outside)", _("out of play")),
        ("#f4ead0", "url(#fields)", _("cultivated field (next to a city)")),
        ("#f4ead0", "url(#temp)", _("VT temporary devastation")),
        ("#f4ead0", "url(#perm)", _("VP permanent devastation")),
    ]
    for fill, overlay, text in fills:
        p.parts.append(
            f'<rect x="{x:.1f}" y="{p.y - 11:.1f}" width="22" height="14" fill="{fill}" '
            'stroke="#a99c7e"/>'
        )
        if overlay:
            p.parts.append(
                f'<rect x="{x:.1f}" y="{p.y - 11:.1f}" width="22" height="14" fill="{overlay}"/>'
            )
        p.text(text, 11, dx=30)
        p.y += 18
    p.parts.append(
        f'<circle cx="{x + 11:.1f}" cy="{p.y - 4:.1f}" r="7.2" fill="#c9a227" stroke="#3a2f24"/>'
        f'<text x="{x + 11:.1f}" y="{p.y - 1:.1f}" font-size="8" font-weight="bold" '
        f'text-anchor="middle" fill="#fff">+5</text>'
        f'<circle cx="{x + 31:.1f}" cy="{p.y - 4:.1f}" r="7.2" fill="#5b7aa6" stroke="#3a2f24"/>'
        f'<text x="{x + 31:.1f}" y="{p.y - 1:.1f}" font-size="8" font-weight="bold" '
        f'text-anchor="middle" fill="#fff">−3</text>'
    )
    p.text(_("city value: + for the Barbarian holding it,"), 11, dx=46)
    p.y += 14
    p.text(_("− against the Roman holding it"), 11, dx=46)
    p.y += 18
    for line in wrap_words(
        _(
            "Each land hex shows its label CCRR (column, row) as written in moves, e.g. "
            "move HUN-7 3110-3111. Eastern units carry Greek letters: Λ·CAV is E-LAMBDA-CAV."
        ),
        62,
    ):
        p.line(line, 10.5, 14, fill="#456")

"""How a game looks to people: a board picture (SVG) and a plain-text summary per game type.

Both are drawn from a view (``Game.view``), never from the state, so they show exactly what
the viewer may see. Each game's picture functions are those its kit names (service/kits/); a
game type whose kit names none gets no picture and a JSON summary.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from engine.core import Event
from engine.registry import get_game
from engine.sentences import player
from service import kits
from service.common import i18n
from service.common.i18n import say as _
from service.store.record import GameRecord


def _pictures(game_type: str) -> kits.Pictures | None:
    """The game's pictures as its kit names them; None for a game without."""
    return kits.kit(game_type).pictures


def _load(game_type: str, part: str) -> Callable[..., Any]:
    """One of the game's picture functions (its kit's ``part``: render, summary, ...)."""
    found = _pictures(game_type)
    assert found is not None and getattr(found, part), (game_type, part)
    return kits.load(getattr(found, part))  # type: ignore[no-any-return]  # a kit's "module:attribute"


def svg_points(corners: Iterable[tuple[float, float]]) -> str:
    """Corners as a polygon's ``points`` attribute, to a tenth of a pixel."""
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)


def wrap_words(text: str, width: int) -> list[str]:
    """Lines of at most ``width`` characters, broken between words only (labels and panels)."""
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)


def has_picture(game_type: str) -> bool:
    return _pictures(game_type) is not None


#: The mark of the last move in every picture: a thick magenta frame. No game gives this
#: colour to a people, a player or another mark (orange is the wargame's Visigoths and its
#: devastation, red its battles and Attila's frontier).
LAST_MOVE = "#e0007a"


def seat_label(names: Sequence[str], seat: int) -> str:
    """A seat as the pictures name it: the player's display name and the seat number (the
    API's key for it), or the seat number alone for callers that pass no names."""
    if 0 <= seat < len(names) and names[seat]:
        return _("%(name)s (seat %(seat)s)", name=player(names, seat), seat=seat)
    return _("Seat %(seat)s", seat=seat)


def seat_text(names: Sequence[str], seat: int) -> str:
    """A seat inside a sentence of the text summaries: "Anna (seat 0)", or "seat 0"."""
    if 0 <= seat < len(names) and names[seat]:
        return seat_label(names, seat)
    return _("seat %(seat)s", seat=seat)


def resigned_mark(view: Mapping[str, Any], seat: int) -> str:
    """ " ✗ resigned" after a seat that resigned (the view's ``resigned``), else ""."""
    return " ✗ " + _("resigned") if seat in view.get("resigned", ()) else ""


def visible_events(
    events: Iterable[Event | Mapping[str, Any]], seat: int | None = None
) -> list[Event]:
    """The events as ``Event``s (log entries hold their JSON), keeping only those ``seat``
    may see (None: the spectators): a picture never tells a hidden event."""
    out = [e if isinstance(e, Event) else Event.from_json(e) for e in events]
    return [e for e in out if e.visible_to(seat)]


def last_move_sentences(
    game_type: str, events: Sequence[Event], names: Sequence[str], lang: str = i18n.DEFAULT
) -> list[str]:
    """The last move in words (each game's ``describe``), one sentence per event said, in
    ``lang``."""
    game = get_game(game_type)
    words = i18n.engine_words(lang)
    return [s for e in events if (s := game.describe(e, names, words))]


def board_svg(
    game_type: str,
    view: dict[str, Any],
    title: str,
    *,
    names: Sequence[str] = (),
    last_events: Iterable[Event | Mapping[str, Any]] = (),
    seat: int | None = None,
    lang: str = i18n.DEFAULT,
    open_hexes: Sequence[str] = (),
    have: Collection[str] = (),
    web: bool = False,
) -> str:
    """The picture of ``view``. ``names``: the players' display names, one per seat (the
    record's ``names``). ``last_events``: the events of the last move (a log entry's
    ``events``), marked on the board and told in the legend; only those ``seat`` (None: a
    spectator, whose view this must then be) may see are used. ``lang``: the language of
    its labels, legend and sentences (service/common/i18n.py; the notation stays the same).
    ``open_hexes``: empty places to draw for the web table (Attika's map tile anchors); only
    a picture that has such places takes them. ``have``: the keys of the unchanging parts a
    page already shows, sent empty (keep.py); only a picture with such parts takes them.
    ``web``: the web table's picture (the kit's ``web``, the board alone, when it has one)."""
    game = get_game(game_type)
    events = visible_events(last_events, seat)
    sentences = last_move_sentences(game_type, events, names, lang)
    found = _pictures(game_type)
    render = _load(game_type, "web" if web and found and found.web else "render")
    board = game.board
    extra: dict[str, Any] = {"open_hexes": open_hexes} if open_hexes else {}
    if have:
        extra["have"] = have
    with i18n.speaking(lang):
        svg: str = render(
            board, view, title, names=names, events=events, last_move=sentences, **extra
        )
        return svg


def board_crop_box(
    game_type: str,
    view: dict[str, Any],
    events: Iterable[Event | Mapping[str, Any]],
    *,
    seat: int | None = None,
    largest: tuple[float, float] | None = None,
) -> tuple[float, float, float, float] | None:
    """The viewBox round the places ``events`` (those ``seat`` may see; None: the spectators)
    touched, at most ``largest`` (width, height) in the map's units; None when the game's
    picture is small enough whole (Attila, Attika) or the events touched no place."""
    if not has_crop(game_type):
        return None
    board = get_game(game_type).board
    find = _load(game_type, "crop")
    box: tuple[float, float, float, float] | None = find(
        board, view, visible_events(events, seat), largest=largest
    )
    return box


def board_crop_svg(
    game_type: str,
    view: dict[str, Any],
    title: str,
    *,
    names: Sequence[str] = (),
    last_events: Iterable[Event | Mapping[str, Any]] = (),
    seat: int | None = None,
    width: int = 600,
    lang: str = i18n.DEFAULT,
    largest: tuple[float, float] | None = None,
) -> str | None:
    """The picture cut to where the ``last_events`` happened (and marked there), ``width``
    pixels wide, at most ``largest`` (see ``board_crop_box``); None when the game's picture is
    small enough whole (Attila, Attika) or the events touched no place. A mail attaches it
    (``last_events``: those since its reader's last move) above the ``board_overview_svg``."""
    game = get_game(game_type)
    events = visible_events(last_events, seat)
    box = board_crop_box(game_type, view, events, largest=largest)
    if box is None:
        return None
    board = game.board
    render = _load(game_type, "render")
    sentences = last_move_sentences(game_type, events, names, lang)
    with i18n.speaking(lang):
        cropped: str = render(
            board,
            view,
            title,
            names=names,
            events=events,
            last_move=sentences,
            crop=box,
            crop_width=width,
        )
        return cropped


def has_crop(game_type: str) -> bool:
    """Whether the game's picture is too big to read whole in a mail: cut round a move."""
    found = _pictures(game_type)
    return found is not None and bool(found.crop)


def has_overview(game_type: str) -> bool:
    found = _pictures(game_type)
    return found is not None and bool(found.overview)


def board_overview_svg(
    game_type: str,
    view: dict[str, Any],
    title: str,
    *,
    last_events: Iterable[Event | Mapping[str, Any]] = (),
    seat: int | None = None,
    outline: tuple[float, float, float, float] | None = None,
    width: int = 600,
) -> str:
    """The game's whole map small, ``width`` pixels wide, without words: the ``last_events``
    (those ``seat`` may see) marked and the crop ``outline`` (``board_crop_box``) framed.
    Only for the games ``has_overview`` names."""
    board = get_game(game_type).board
    events = visible_events(last_events, seat)
    draw = _load(game_type, "overview")
    svg: str = draw(board, view, title, events=events, outline=outline, width=width)
    return svg


def spectator_pictures(
    record: GameRecord,
    last_events: Iterable[Event | Mapping[str, Any]],
    title: str,
    *,
    lang: str = i18n.DEFAULT,
    crop_width: int | None = None,
    open_hexes: Sequence[str] = (),
    have: Collection[str] = (),
    web: bool = False,
) -> tuple[str | None, str]:
    """The spectators' picture of ``record``'s version (board.svg, the mails): the crop round
    the last move (when ``crop_width`` is given and the game has one) and the whole board.
    ``last_events``: the events of the log entry of that version; ``open_hexes``, ``have`` and
    ``web``: see ``board_svg``."""
    game = record.game
    view = game.view(game.load(record.state or {}), None)
    names = record.names
    crop = None
    if crop_width is not None:
        crop = board_crop_svg(
            record.type,
            view,
            title,
            names=names,
            last_events=last_events,
            width=crop_width,
            lang=lang,
        )
    board = board_svg(
        record.type,
        view,
        title,
        names=names,
        last_events=last_events,
        lang=lang,
        open_hexes=open_hexes,
        have=have,
        web=web,
    )
    return crop, board


def seat_facts(game_type: str, view: dict[str, Any], *, lang: str = i18n.DEFAULT) -> list[str]:
    """Each seat's public state in one short line, as the game's text summary words it (Attila:
    points, cards in hand as a count, action tiles; Attika: the colour, buildings, cards…; the
    wargame: the side): the game page shows it beside each player's name. None for a game type
    without a presenter."""
    if not has_picture(game_type):
        return []
    facts = _load(game_type, "seat_facts")
    with i18n.speaking(lang):
        return list(facts(get_game(game_type).board, view))


def text_summary(
    game_type: str,
    view: dict[str, Any],
    *,
    names: Sequence[str] = (),
    lang: str = i18n.DEFAULT,
) -> str:
    """The view in plain text; ``names`` (one per seat) names the players as the pictures do;
    ``lang``: its language."""
    if not has_picture(game_type):
        return json.dumps(view, indent=2, ensure_ascii=False) + "\n"
    game = get_game(game_type)
    summary = _load(game_type, "summary")
    with i18n.speaking(lang):
        text: str = summary(game.board, view, names=names)
        return text

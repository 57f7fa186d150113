"""What a turn mail shows, and its two parts (text and HTML) from Jinja templates.

A mail to one seat (workers/notify.py ``_seat_mail``) says, in this order: whose turn it is
and what is asked; what happened since the reader's last move; the board as it was at the
version mailed (a PNG attached inline, rendered here from the spectator's picture); the
reader's own secret information (from the seat's own view, never another seat's); the legal
moves grouped by kind (``Game.move_groups``: a rule and examples, not every combination); how
to reply; the links. The text part says all of it without the picture.

Every user-visible string is marked for translation: ``{{ _("...") }}`` in the templates
(workers/templates/mail/), ``_()`` here (service/common/i18n.py ``say``). A mail is built and
rendered inside ``with i18n.speaking(lang)`` (workers/notify.py: the reader's ``language``
preference), so everything here, the engine's sentences and rules, the pictures and the
templates speak the reader's language (docs/i18n.md).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, tzinfo
from typing import Any

from engine.core import SYSTEM, MoveGroup
from engine.sentences import N_
from service import pictures
from service.common import i18n
from service.common.i18n import say as _
from service.common.i18n import say_n as ngettext
from service.common.lru import Lru
from service.domain import clocks
from service.domain.games import views
from service.pictures import png as picture_png
from service.pictures import text_summary
from service.store import Store
from service.store.record import GameRecord
from workers import mail

log = logging.getLogger("kurier.notify")
#: The mail's width (px) and the pictures' pixel width: twice that, sharp on dense screens.
MAIL_WIDTH = 600
PICTURE_PIXELS = 2 * MAIL_WIDTH
#: A mail-in answer's picture: there is one at every move by mail, so it is drawn at the
#: mail's width (sharp there, a little soft on dense screens; the turn mails have the sharp
#: one), about half the cost of twice the width (docs/performance.md, "Pictures").
ANSWER_PIXELS = MAIL_WIDTH
#: The most a mail's pictures may weigh together: base64 makes them 37 % heavier (76-character
#: lines), so 200,000 bytes become 274 KB, and the text and HTML parts (10-20 KB) keep the whole
#: mail under 300 KB. Measured crops and overviews weigh 105-145 KB together.
PICTURE_BYTES = 200_000
#: The wargame's overview under its crop: the whole map without words at the mail's width,
#: where things are, not what (the crop and the link show that).
OVERVIEW_PIXELS = MAIL_WIDTH
#: The heading of the grouped moves in the text part, in English (tests/mail_stack.py reads
#: below it, in every language).
MOVES_HEADING = N_("Your moves, by kind:")
#: Rendered pictures by (game, version, language, brief, first unseen version): the seats of
#: one version that read one language and have seen the same share one render (the pictures'
#: labels and legend are in the reader's language; the wargame's crop is round what its
#: reader has not seen).
_cache: Lru[tuple[Picture, ...]] = Lru(8)


@dataclass(frozen=True)
class Picture:
    cid: str
    png: bytes
    alt: str


@dataclass(frozen=True)
class Standing:
    """One row of the final table: place (ties share one), player, points ("" if none)."""

    place: int
    name: str
    points: str
    winner: bool


@dataclass(frozen=True)
class TurnMail:
    """Everything one mail to one seat shows, in words (the templates only lay it out)."""

    greeting: str
    header: str
    told: tuple[str, ...]
    pictures: tuple[Picture, ...]
    #: The reader's own information that spectators do not see (the hand, secret notes).
    secret: tuple[str, ...]
    #: The whole view as text (the text part's board; the HTML part has the picture).
    view_text: str
    groups: tuple[MoveGroup, ...]
    #: The final table once the game is over (empty before).
    standings: tuple[Standing, ...]
    reply: str
    reply_more: str
    links: tuple[tuple[str, str], ...]
    footer: str
    #: "Decide before …" in the reader's time zone, when the game waits for the reader and
    #: has a deadline ("" otherwise).
    deadline: str = ""
    #: A mail-in answer's own lines (what was played, what was refused), shown first.
    answer: tuple[str, ...] = ()
    #: Every legal move in notation, under its heading (a mail-in answer to ``legal``).
    every_move: tuple[str, ...] = ()


def turn_mail(
    store: Store,
    record: GameRecord,
    seat: int,
    name: str,
    *,
    told: Sequence[str],
    asked: bool,
    links: Sequence[tuple[str, str]],
    zone: tzinfo = UTC,
    answer: Sequence[str] = (),
    every_move: Sequence[str] = (),
) -> TurnMail:
    """The mail to ``seat`` of the game as ``record`` has it: ``told`` what the notices say,
    ``asked`` whether to show the moves, ``zone`` the reader's time zone (the deadline).
    A mail-in answer has its ``answer`` lines instead of what happened since the reader's
    last move (its mails told that), for ``legal`` ``every_move``, and a brief picture
    (``mail_pictures``)."""
    over = record.status == "finished"
    groups = tuple(move_groups(record, seat)) if asked and not over else ()
    own, public = summaries(record, seat)
    entries = store.log_tail(record, views.RECENT_ENTRIES)
    example = groups[0].examples[0] if groups and groups[0].examples else ""
    if groups:
        reply = _(
            "Reply to this mail with your move, e.g. “%(example)s”, one per line.",
            example=example,
        )
    else:
        reply = _("Reply to this mail to write to the table: “say” and your text.")
    if over:
        # The game is over: nothing to resign from, no moves to ask for.
        reply_more = _("A line “say @Name <text>” writes to one player only.")
    else:
        reply_more = _(
            "A line “say <text>” writes to the table, “say @Name <text>” to one player, "
            "“resign” leaves the game; “legal” answers with every legal move, “help” "
            "with the rest."
        )
    return TurnMail(
        greeting=_("Hello %(name)s,", name=name) if name else _("Hello,"),
        header=header(record, seat),
        told=() if answer else tuple(what_happened(record, entries, seat, told)),
        pictures=mail_pictures(store, record, seat, brief=bool(answer), entries=entries),
        # After the end every hand is history: no secret box ("only you see this").
        secret=() if over else tuple(secret_lines(own, public)),
        view_text=own.rstrip(),
        groups=groups,
        standings=tuple(standings(record)),
        reply=reply,
        reply_more=reply_more,
        links=tuple(links),
        footer=_(
            "%(title)s, game %(game)s, version %(version)s.",
            title=game_title(record),
            game=record.id,
            version=record.version,
        ),
        deadline=deadline_line(record, seat, zone),
        answer=tuple(answer),
        every_move=tuple(every_move),
    )


def deadline_line(record: GameRecord, seat: int, zone: tzinfo) -> str:
    """ "Decide before …" in ``zone`` when the game waits for ``seat`` and has a deadline;
    under a time bank, what the seat's bank holds and when it runs out."""
    waits = any(d["seat"] == seat for d in record.pending)
    if record.status != "active" or not record.deadline_at or not waits:
        return ""
    banks = clocks.seat_banks(
        record.deadline, record.seating.get("banks", {}), len(record.seats), True, time.time()
    )
    if banks is not None:
        bank = banks[seat]
        if bank["runs_out_at"] is None:
            return ""
        return _(
            "Your time bank holds %(left)s: decide before %(time)s.",
            left=time_left(bank["seconds_left"]),
            time=local_time(bank["runs_out_at"], zone),
        )
    return _("Decide before %(time)s.", time=local_time(record.deadline_at, zone))


def time_left(seconds: float) -> str:
    """``seconds`` as days and hours ("2 d 4 h"), or hours and minutes under a day."""
    minutes = int(seconds // 60)
    days, hours, mins = minutes // 1440, (minutes % 1440) // 60, minutes % 60
    if days:
        return f"{days} {_('d')} {hours} {_('h')}"
    return f"{hours} {_('h')} {mins} {_('min')}"


def local_time(when: float, zone: tzinfo) -> str:
    """``when`` as the reader's clock shows it, with the zone's abbreviation."""
    return datetime.fromtimestamp(when, zone).strftime("%Y-%m-%d %H:%M %Z")


def what_happened(
    record: GameRecord,
    entries: list[tuple[int, dict[str, Any]]],
    seat: int,
    told: Sequence[str],
) -> list[str]:
    """What happened since the seat's last move in ``entries`` (the log's recent tail: the
    game's sentences, only events the seat may see, up to the mailed version), then what the
    notices tell beyond it; a bare "your turn" is left to the header."""
    words = i18n.spoken_words()
    sentences = [s["text"] for s in views.since_last_move(record, entries, seat, words)]
    extra = [line for line in told if line not in sentences and line != _("Your turn.")]
    return [*sentences, *extra]


def header(record: GameRecord, seat: int) -> str:
    """One line: whose turn it is and what is asked."""
    if record.status == "finished":
        winners = [_name(record, s) for s in (record.result or {}).get("winners") or []]
        if winners:
            # Two forms for German ("hat"/"haben gewonnen"); English says "won" for both.
            return ngettext(
                "The game is over: %(names)s won.",
                "The game is over: %(names)s won.",
                len(winners),
                names=", ".join(winners),
            )
        return _("The game is over.")
    if record.status != "active":
        return _("The game has not started yet.")
    mine = next((d for d in record.pending if d["seat"] == seat), None)
    if mine is not None:
        step = step_name(record, str(mine.get("step", "")))
        if mine.get("kind") == "sealed":
            return _("Your sealed choice, %(name)s: %(step)s", name=_name(record, seat), step=step)
        return _("Your turn, %(name)s: %(step)s", name=_name(record, seat), step=step)
    others = [_name(record, d["seat"]) for d in record.pending if d["seat"] != SYSTEM]
    if not others:
        return _("The server is resolving the last choices.")
    if len(others) == 1:
        return _("%(name)s is to move.", name=others[0])
    return _("%(names)s are to move.", names=", ".join(dict.fromkeys(others)))


def step_name(record: GameRecord, step: str) -> str:
    """What a decision's step asks, in the game's words (``Game.step_names``) and the spoken
    language; a step the game does not name reads as its id."""
    english = record.game.step_names.get(step)
    return step.replace("_", " ") if english is None else _(english)


def game_title(record: GameRecord) -> str:
    """The game type's title in the spoken language (the catalogs hold every title)."""
    return i18n.say_word(record.game.title)


def standings(record: GameRecord) -> list[Standing]:
    """The final table, in words: winners first, then by points; ties share a place."""
    result = record.result or {}
    if record.status != "finished" or not result:
        return []
    winners = set(result.get("winners") or [])
    scores = result.get("scores")
    seats = range(len(record.names))

    def points(seat: int) -> int | None:
        if isinstance(scores, list) and seat < len(scores) and isinstance(scores[seat], int):
            return int(scores[seat])
        return None

    def rank(seat: int) -> tuple[bool, int]:
        return (seat not in winners, -(points(seat) or 0))

    order = sorted(seats, key=rank)
    rows: list[Standing] = []
    for index, seat in enumerate(order):
        place = rows[-1].place if index and rank(order[index - 1]) == rank(seat) else index + 1
        shown = points(seat)
        rows.append(
            Standing(
                place, _name(record, seat), "" if shown is None else str(shown), seat in winners
            )
        )
    return rows


def _name(record: GameRecord, seat: int) -> str:
    if 0 <= seat < len(record.names) and record.names[seat]:
        return record.names[seat]
    return _("Player %(number)s", number=seat + 1)


def move_groups(record: GameRecord, seat: int) -> list[MoveGroup]:
    """The seat's legal moves (as ``views.legal_actions`` offers them) grouped by kind."""
    if record.state is None:
        return []
    offered = views.legal_actions(record, seat)["actions"]
    if not offered:
        return []
    game = record.game
    groups = game.move_groups([game.action_from_json(a["action"]) for a in offered])
    # The rules are the engine's English, marked N_: the catalog has them ("" stays "": the
    # empty msgid is the catalog's header).
    return [replace(g, rule=_(g.rule) if g.rule else "") for g in groups]


def summaries(record: GameRecord, seat: int) -> tuple[str, str]:
    """The text summaries of the seat's own view and of the spectators', in the spoken
    language ("" before the game starts): the state is loaded once for both."""
    if record.state is None:
        return "", ""
    game = record.game
    state = game.load(record.state)
    lang = i18n.spoken()
    own = text_summary(record.type, game.view(state, seat), names=record.names, lang=lang)
    public = text_summary(record.type, game.view(state, None), names=record.names, lang=lang)
    return own, public


def secret_lines(own: str, public: str) -> list[str]:
    """What the seat's own summary tells that the spectators' does not: its hand, its secret
    notes. Drawn from the seat's own view only, so never another seat's secret."""
    shown = set(public.splitlines())
    return [line.strip() for line in own.splitlines() if line.strip() and line not in shown]


# -- the picture of the mailed version ------------------------------------------------------------


#: The largest part of a map a mail's crop shows (width, height, in the picture's own units).
#: The wargame's counters, at the 562 px the mail gives a picture: 1.17 times their own size,
#: factors 13 px high, designations 7 px; on a 390 px phone 0.73 times, factors 8 px (at 600 x
#: 400 units that was 10 and 6 px: designations and hex labels blurred). A single changed hex
#: with its three hexes round it fills about that much. Changes spread wider are cut to their
#: largest cluster; the overview below shows where the rest is.
CROP_LARGEST = (480.0, 320.0)


def mail_pictures(
    store: Store,
    record: GameRecord,
    seat: int | None = None,
    brief: bool = False,
    entries: list[tuple[int, dict[str, Any]]] | None = None,
) -> tuple[Picture, ...]:
    """The board at ``record.version`` as PNGs in a 256-colour palette (a quarter to half
    their full-colour size; docs/performance.md, "Mail size"); none when the game has no
    picture or the server cannot render it. A game too big to read whole in a mail (the
    wargame) has the crop round what changed since ``seat``'s last move (the events everybody
    may see in ``entries``, the log's recent tail; read when None), sharp at twice the mail's
    width, then its whole map small with the crop framed; when nothing on the map changed,
    the whole picture at the mail's width. ``brief`` (a mail-in answer, one at every move by
    mail): the crop round the last move only, or the whole picture, at the mail's width
    (``ANSWER_PIXELS``)."""
    if record.state is None or not pictures.has_picture(record.type) or not pictures_enabled():
        return ()
    if entries is None:
        entries = store.log_tail(record, views.RECENT_ENTRIES)
    last = [raw for v, entry in entries if v == record.version for raw in entry["events"]]
    if brief or not pictures.has_overview(record.type):
        since, events = record.version, last
    else:
        seen = views.after_last_move(entries, seat)
        since = seen[0][0] if seen else record.version + 1
        events = [raw for _v, entry in seen for raw in entry["events"]]
    # The seats whose unseen entries start at one version share one render.
    key = (record.id, record.version, i18n.spoken(), brief, since)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    try:
        made = _render(record, events, last, brief)
    except picture_png.PictureRenderError as error:
        log.warning(
            "mail of %s v%s (%s, brief %s, since %s) goes without its picture: %s", *key, error
        )
        made = ()
    _cache.put(key, made)
    return made


def pictures_enabled() -> bool:
    """False when ``KURIER_MAIL_PICTURES`` is 0: mails go without the board's pictures (their
    text says what the pictures show). Rasterising them is most of a mail's CPU."""
    return os.environ.get("KURIER_MAIL_PICTURES", "1") != "0"


def _render(
    record: GameRecord,
    events: list[dict[str, Any]],
    last: list[dict[str, Any]],
    brief: bool,
) -> tuple[Picture, ...]:
    """The pictures of ``mail_pictures``: ``events`` (raw, from the log) those to crop round,
    ``last`` the last entry's, the crop's fallback."""
    game = record.game
    view = game.view(game.load(record.state or {}), None)
    title = _(
        "%(title)s · game %(game)s · version %(version)s",
        title=game_title(record),
        game=record.id,
        version=record.version,
    )
    lang = i18n.spoken()
    # The answer's crop is round the reader's own move, as small as it goes.
    largest = None if brief else CROP_LARGEST
    around, box = events, None
    if pictures.has_overview(record.type):
        for around in (events, last):
            box = pictures.board_crop_box(record.type, view, around, largest=largest)
            if box is not None:
                break
    cid = f"{record.id}-{record.version}@kurier"

    def png(svg: str, pixels: int) -> bytes:
        # The font directory read now, not at import: a test points it at an empty one.
        return picture_png.svg_to_png(
            svg, pixels, font_dir=picture_png.DEJAVU_DIR, palette=picture_png.MAIL_PALETTE
        )

    if box is None:
        svg = pictures.board_svg(
            record.type, view, title, names=record.names, last_events=last, lang=lang
        )
        # A picture made to be read whole (Attila, Attika) sharp; the wargame's whole map
        # at the mail's width (its crop is what is read), as every answer's.
        sharp = not brief and not pictures.has_overview(record.type)
        pixels = PICTURE_PIXELS if sharp else ANSWER_PIXELS
        return (Picture(f"board-{cid}", png(svg, pixels), _("The board")),)
    crop_svg = pictures.board_crop_svg(
        record.type,
        view,
        title,
        names=record.names,
        last_events=around,
        width=MAIL_WIDTH,
        lang=lang,
        largest=largest,
    )
    assert crop_svg is not None  # its box was found above
    if brief:
        return (
            Picture(
                f"crop-{cid}", png(crop_svg, ANSWER_PIXELS), _("The board round the last move")
            ),
        )
    overview = png(
        pictures.board_overview_svg(
            record.type, view, title, last_events=around, outline=box, width=OVERVIEW_PIXELS
        ),
        OVERVIEW_PIXELS,
    )
    crop = png(crop_svg, PICTURE_PIXELS)
    if len(crop) + len(overview) > PICTURE_BYTES:
        # A crop crowded with counters: at the mail's width it is still read at its scale.
        crop = png(crop_svg, MAIL_WIDTH)
    return (
        Picture(f"crop-{cid}", crop, _("The board round what changed since your last move")),
        Picture(f"map-{cid}", overview, _("The whole map, the part above framed")),
    )


# -- the two parts --------------------------------------------------------------------------------


def render_text(turn: TurnMail) -> str:
    return (
        mail.environment()
        .get_template("turn.txt")
        .render(turn=turn, moves_heading=_(MOVES_HEADING))
    )


def render_html(turn: TurnMail, subject: str) -> str:
    template = mail.environment().get_template("turn.html")
    return template.render(turn=turn, subject=subject, lang=i18n.spoken())

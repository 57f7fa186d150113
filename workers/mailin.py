"""Play by email: the job that reads one inbound mail, plays it, and answers it.

``kurier mail-in`` (service/mail/receiver.py) queues every mail for a ``play+…`` address as
``process_inbound``. This job:

1. ignores auto-replies (RFC 3834 ``Auto-Submitted``, a null sender, ``Precedence: bulk``);
2. checks the signed token in the address (service/common/replies.py): a forged, altered, expired or
   already used address is refused, and the refusal goes to the registered address of the
   seat's player, never to the sender (an address that names no seat is only logged);
3. requires the sender to be the player (service/common/mailauth.py: ``From:``, the envelope sender
   and, when configured, the relay's Authentication-Results), else the player is warned;
4. plays the body, one action per line, through ``play.play`` (the same checks, sealed
   commitments, resolution jobs and notifications as over HTTP), the Message-ID (and line
   number) being the idempotency key (``resign`` too); ``say <text>`` and
   ``say @<name> <text>`` post a message to the table or privately (once per mail and line);
   ``leave 14d`` (``urlaub 14t``, ``leave end``) takes or ends leave (service/domain/leave.py,
   once per mail and line);
   ``legal``, ``board`` and ``help`` are commands;
5. answers exactly once (a ledger keyed by Message-ID and recipient): what was played, or the
   line that failed and why, then the game as a turn mail shows it (workers/mailview.py: the
   board as an inline picture, the player's own view, the moves by kind, the deadline in the
   player's time zone), threaded to the player's mail and with a fresh signed Reply-To, in the
   player's ``language`` (the game's reasons too, but those naming a card, a unit or a hex:
   they stay English, as the API's; docs/i18n.md).

Each address works once (its nonce is claimed with ``SET NX``). A sealed choice is taken only
from a reply to a mail written while that sealed decision was pending; open moves are checked
against the current state, whatever mail they answer.

Nothing goes back to the sender, and whoever sends, the SMTP answer is the same: a sender
learns nothing about an address. A mail nobody authenticated makes Kurier write to the player
at most once per seat and day (``WARNING_INTERVAL``). Logs name an address only by
``replies.fingerprint``: the address itself is a key to the seat.
"""

from __future__ import annotations

import base64
import email
import email.policy
import hashlib
import logging
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from email.message import EmailMessage
from typing import Any

from engine.sentences import N_
from service.common import i18n, mailauth, replies
from service.common.i18n import say as _
from service.common.problems import Problem
from service.common.replies import SOFT_LIMIT, message_id_of
from service.domain import leave, messages, moderation, prefs
from service.domain.games import play
from service.store import Store
from service.store.record import GameRecord, Idempotency
from workers import mail, mailview, seatmail
from workers.shared import shared_store

log = logging.getLogger("kurier.mailin")
COMMANDS = ("legal", "board", "help")
#: A line ``say …`` is a message, not a move: ``say @Bruno …`` privately to that player.
SAY = re.compile(r"say(?:\s+(?P<text>.*))?", re.IGNORECASE | re.DOTALL)
#: Seconds between two warnings to a seat about mail nobody authenticated (forged address,
#: wrong sender): anyone who knows a game id can cause them, so at most one a day.
WARNING_INTERVAL = 86_400
_MSGID = re.compile(r"^<[^<>\s]{1,250}>$")


def nonce_key(nonce: str) -> str:
    return f"kurier:mail:nonce:{nonce}"


# -- the job ------------------------------------------------------------------------------------


@dataclass
class Inbound:
    mail_from: str
    recipient: str
    message: EmailMessage
    message_id: str
    size: int
    oversize: bool

    @property
    def ledger(self) -> str:
        digest = hashlib.sha256(f"{self.message_id} {self.recipient.lower()}".encode())
        return f"answer-{digest.hexdigest()[:32]}"


def process_inbound(
    mail_from: str, recipient: str, raw_b64: str, size: int, oversize: bool = False
) -> str:
    """Read, check, play and answer one inbound mail. Idempotent (see the module docstring)."""
    store = shared_store()
    raw = base64.b64decode(raw_b64)
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    inbound = Inbound(mail_from, recipient, message, message_id_of(raw), size, oversize)
    outcome = _process(store, inbound)
    log.info(
        "inbound mail %s for %s: %s", inbound.message_id, replies.fingerprint(recipient), outcome
    )
    return outcome


def _process(store: Store, inbound: Inbound) -> str:
    if is_auto_reply(inbound.mail_from, inbound.message):
        return "ignored-auto-reply"
    keys, _ = replies.load_keys(store.r)
    try:
        token = replies.read_address(inbound.recipient, keys, time.time())
    except replies.ReplyRejected as rejected:
        return _refuse_address(store, inbound, rejected)
    answer = Answer.for_seat(store, token.game_id, token.seat, inbound)
    if answer is None:
        return "no-player-to-answer"
    # Everything said from here on is in the player's language (service/common/i18n.py).
    with i18n.speaking(answer.lang):
        return _answer(store, inbound, token, answer)


def _answer(store: Store, inbound: Inbound, token: replies.ReplyToken, answer: Answer) -> str:
    doubt = _doubt(inbound, answer)
    if doubt is not None:
        return _warn(answer, doubt.code, _unauthenticated_text(doubt, token.game_id))
    if not _claim(store, token, inbound.message_id):
        return answer.send(
            "reused-token",
            [
                _(
                    "You answered a mail whose reply address was already used; each Kurier "
                    "mail's address works once. Nothing was played. Reply to this mail instead."
                )
            ],
        )
    if inbound.oversize:
        return answer.send(
            "too-large",
            [
                _(
                    "Your mail was %(size).1f MB; Kurier reads mails of up to %(limit)s KiB. "
                    "Nothing was played. Send plain text, without attachments.",
                    size=inbound.size / 1_048_576,
                    limit=SOFT_LIMIT // 1024,
                )
            ],
        )
    issued = store.r.hgetall(seatmail.issued_key(token.nonce))
    return _play_lines(store, answer, replies.reply_lines(inbound.message), issued)


def is_auto_reply(mail_from: str, message: EmailMessage) -> bool:
    """RFC 3834: automatic mail is never answered (no mail loops)."""
    if mail_from.strip() in ("", "<>"):
        return True
    auto = str(message.get("Auto-Submitted", "") or "").strip().lower()
    if auto and not auto.startswith("no"):
        return True
    precedence = str(message.get("Precedence", "") or "").strip().lower()
    return precedence in ("bulk", "junk", "list") or bool(message.get("X-Autoreply"))


def _doubt(inbound: Inbound, answer: Answer) -> mailauth.Doubt | None:
    return mailauth.doubt(
        inbound.mail_from, inbound.message, answer.registered, mailauth.trusted_authserv_id()
    )


def _claim(store: Store, token: replies.ReplyToken, message_id: str) -> bool:
    """Use the address once; the same mail again (a job run twice) may go on."""
    ttl = max(int(token.expires_at - time.time()), 0) + 86_400
    key = nonce_key(token.nonce)
    if store.r.set(key, message_id, nx=True, ex=ttl):
        return True
    stored: str | None = store.r.get(key)
    return stored == message_id


def _refuse_address(store: Store, inbound: Inbound, rejected: replies.ReplyRejected) -> str:
    named = replies.peek_address(inbound.recipient)
    answer = Answer.for_seat(store, *named, inbound) if named else None
    if answer is None:
        log.warning(
            "inbound mail %s refused (%s), nobody to tell", inbound.message_id, rejected.code
        )
        return f"{rejected.code}-unanswered"
    with i18n.speaking(answer.lang):
        text = [
            _(
                "A mail to a Kurier reply address of yours was refused: %(reason)s (%(code)s). "
                "Nothing was played.",
                reason=rejected.message,
                code=rejected.code,
            ),
            _("To play, reply to this mail or to the newest mail of the game."),
        ]
        # An expired address was once real: its owner's mistake is answered. Any other refusal
        # (an address this server never signed) may come from anyone: a warning, once a day.
        if rejected.code == "expired-token" and _doubt(inbound, answer) is None:
            return answer.send(rejected.code, text)
        return _warn(answer, rejected.code, text)


def _warn(answer: Answer, code: str, text: list[str]) -> str:
    """Tell the player about mail that was not authenticated, at most once per seat and day."""
    key = f"kurier:mail:warned:{answer.record.id}:{answer.seat}"
    first = answer.store.r.set(key, answer.inbound.message_id, nx=True, ex=WARNING_INTERVAL)
    # The same mail again (a job run twice) may go on: its answer's ledger sends it once.
    if not first and answer.store.r.get(key) != answer.inbound.message_id:
        return f"{code}-not-told"
    return answer.send(code, text, show_state=False)


def _unauthenticated_text(doubt: mailauth.Doubt, game_id: str) -> list[str]:
    return [
        _(
            "Someone tried to play for you in game %(game)s: %(detail)s was sent to your reply "
            "address. Only mail from your registered address, sent by your own mail provider, "
            "counts; it was ignored and nothing was played (%(code)s).",
            game=game_id,
            detail=doubt.detail,
            code=doubt.code,
        ),
        _(
            "If that was you, send from your registered address (or change it with PATCH "
            "/v1/me). Kurier tells you about such mails at most once a day."
        ),
    ]


# -- the body -----------------------------------------------------------------------------------


class LineRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _play_lines(store: Store, answer: Answer, lines: list[str], issued: dict[str, str]) -> str:
    if not lines:
        return answer.send(
            "empty",
            [
                _(
                    "Your mail had no move in it (quoted text and signatures are skipped). "
                    "Write one action per line, e.g. one of the legal moves below, or `help`."
                )
            ],
        )
    report: list[str] = []
    played = 0
    arrived_at = answer.record.version
    player = answer.store.players.get(answer.player_id) or {"id": answer.player_id}
    for number, line in enumerate(lines, start=1):
        shown = line[:80]
        word = line.lower()
        if word in COMMANDS:
            report += _command(answer, word)
            continue
        said = SAY.fullmatch(line)
        try:
            moderation.check_not_suspended(player)  # as the API refuses the account's token
            if leave.COMMAND.fullmatch(line):
                report.append(_leave(store, player, answer, line, number))
                continue
            if said:
                report.append(_say(store, player, answer, said["text"] or "", number))
                continue
            if word != "resign":  # resigning answers no particular mail
                _check_sealed(answer, issued)
            _play(store, player, answer, line, number)
        except (Problem, LineRefused) as error:
            code, reason = _reason(error)
            report.append(
                _(
                    'Line %(number)s "%(line)s": not played: %(reason)s (%(code)s).',
                    number=number,
                    line=shown,
                    reason=reason,
                    code=code,
                )
            )
            if number < len(lines):
                report.append(_("The lines after it were not read."))
            report += _stale_note(arrived_at, issued)
            return answer.send(f"refused:{code}", report)
        report.append(_('Line %(number)s "%(line)s": played.', number=number, line=shown))
        played += 1
    return answer.send(f"played:{played}" if played else "answered", report)


def _play(store: Store, player: dict[str, Any], answer: Answer, line: str, number: int) -> None:
    fingerprint = hashlib.sha256(line.encode()).hexdigest()
    idem = Idempotency(answer.player_id, f"mail:{answer.inbound.message_id}:{number}", fingerprint)
    play.play(store, player, answer.record.id, line, None, None, None, idem)
    answer.stale = True


def _say(store: Store, player: dict[str, Any], answer: Answer, text: str, number: int) -> str:
    """Post the message of a ``say`` line; the same mail again (a job run twice) posts
    nothing more."""
    to_seat, text = _addressee(answer.current(), text.strip())
    if not text:
        raise LineRefused("empty-message", _("write the message after `say`, e.g. `say good luck`"))
    once = f"kurier:mail-said:{answer.inbound.message_id}:{number}"
    if store.r.set(once, "1", nx=True, ex=7 * 86_400):
        messages.post(store, player, answer.record.id, text, to_seat)
    if to_seat is not None:
        return _("Line %(number)s: said privately to the table.", number=number)
    return _("Line %(number)s: said to the table.", number=number)


def _leave(store: Store, player: dict[str, Any], answer: Answer, line: str, number: int) -> str:
    """Take or end leave (``leave 14d``, ``urlaub 2 wochen``, ``leave end``: service/domain/
    leave.py), once per mail and line; what it did, said in the player's words."""
    days = leave.parse_command(line)
    once = f"kurier:mail-leave:{answer.inbound.message_id}:{number}"
    raw = store.players.hash(answer.player_id)
    if not store.r.set(once, "1", nx=True, ex=7 * 86_400):
        done = leave.read(store, answer.player_id)  # this mail's line was taken already
    elif days is None:
        done = leave.end_leave(store, answer.player_id)
    else:
        done = leave.take_leave(store, player, days)
    current = done["current"]
    if current is None:
        return _(
            "Line %(number)s: no leave runs now; %(left)s days of leave left this year.",
            number=number,
            left=done["left_days"],
        )
    until = datetime.fromtimestamp(current["until"], prefs.zone(raw))
    return _(
        "Line %(number)s: on leave until %(until)s (your clocks are paused, your opponents "
        "told; any move ends it); %(left)s days of leave left this year.",
        number=number,
        until=until.strftime("%Y-%m-%d %H:%M"),
        left=done["left_days"],
    )


def _addressee(record: GameRecord, text: str) -> tuple[int | None, str]:
    """``@Name rest`` -> (Name's seat, rest); the longest matching name wins (names may hold
    spaces)."""
    if not text.startswith("@"):
        return None, text
    rest = text[1:]
    by_length = sorted(enumerate(record.names), key=lambda pair: -len(pair[1]))
    for seat, name in by_length:
        if rest.lower().startswith(name.lower()) and rest[len(name) : len(name) + 1] in ("", " "):
            return seat, rest[len(name) :].strip()
    raise LineRefused(
        "unknown-recipient",
        _(
            "after `say @` write a player's name as the game shows it: %(names)s",
            names=", ".join(record.names),
        ),
    )


def _check_sealed(answer: Answer, issued: dict[str, str]) -> None:
    """A sealed choice only answers the mail that asked for it (not an older turn's mail)."""
    record = answer.current()
    owed = next((d for d in record.pending if d["seat"] == answer.seat), None)
    if owed and owed["kind"] == "sealed" and issued.get("ref", "") != owed.get("ref", ""):
        raise LineRefused(
            "sealed-choice-elsewhere",
            _(
                "the game now asks for a sealed choice that the mail you answered did not "
                "show; reply to the mail that asks for it (this one)"
            ),
        )


def _reason(error: Problem | LineRefused) -> tuple[str, str]:
    if isinstance(error, LineRefused):
        return error.code, error.message
    # The game's and the service's reasons are marked N_ where they are raised, fixed ones
    # and templates (IllegalAction.composed: the line that could not be read), so the catalog
    # has them: said in the player's language. One composed in an f-string (naming a card, a
    # unit, a hex) is in no catalog and stays English, as the API says it.
    template, values = error.reason
    return error.problem_code, _(template, **values)


def _stale_note(arrived_at: int, issued: dict[str, str]) -> list[str]:
    """Say so when the mail answered an older version than the one it arrived at."""
    then = issued.get("version")
    if then and int(then) != arrived_at:
        return [
            _(
                "The mail you answered showed version %(then)s; the game had moved on to "
                "%(now)s when it arrived (the current state is below).",
                then=then,
                now=arrived_at,
            )
        ]
    return []


def _command(answer: Answer, word: str) -> list[str]:
    if word == "help":
        return _(HELP).split("\n")
    if word == "board":
        return [_("board: your view of the board is below.")]
    answer.every_move = True  # the answer lists every legal move, not only examples
    return [_("legal: your legal moves are below.")]


#: What ``help`` answers: one message (a translator sees it whole), a line of the mail each.
HELP = N_(
    "help: how to play by email.\n"
    "  Reply to a Kurier mail with one action per line, in the game's notation (the legal\n"
    "  moves are listed in each mail). Quoted text and your signature are skipped.\n"
    "  Sealed choices work the same: reply to the mail asking for them (e.g. `commit VVH`\n"
    "  or `pass`); only you see your choice until the reveal.\n"
    "  Talk: `say <text>` to the table, `say @<name> <text>` privately to one player.\n"
    "  `resign` leaves the game (two players: your opponent wins).\n"
    "  Leave: `leave 14d` (or `2w`) pauses your clocks in every game, `leave end` ends it.\n"
    "  Commands: legal (your legal moves), board (your view), help.\n"
    "  Each mail's reply address works once; every answer brings a new one."
)


# -- answering ------------------------------------------------------------------------------------


@dataclass
class Answer:
    """One answer to one inbound mail, to the seat's registered address only."""

    store: Store
    record: GameRecord
    seat: int
    player_id: str
    name: str
    registered: str
    inbound: Inbound
    #: The player's ``language`` preference (service/common/i18n.py).
    lang: str = i18n.DEFAULT
    #: The player's time zone (the deadline, service/domain/prefs.py ``zone``).
    zone: tzinfo = UTC
    #: The mail asked for ``legal``: the answer lists every legal move.
    every_move: bool = False
    #: This mail's own move changed the game since ``record`` was read.
    stale: bool = False

    @classmethod
    def for_seat(cls, store: Store, game_id: str, seat: int, inbound: Inbound) -> Answer | None:
        try:
            record = store.get_game(game_id)
        except Problem:
            return None
        if not 0 <= seat < len(record.seats):
            return None
        raw = store.players.hash(record.seats[seat])
        if not raw.get("email"):
            return None
        name, lang = raw.get("name", ""), i18n.language(raw.get("language"))
        return cls(
            store, record, seat, raw["id"], name, raw["email"], inbound, lang, prefs.zone(raw)
        )

    def current(self) -> GameRecord:
        """The game as it is now. Read once per mail, and again only after the mail's own move
        (which ``Store.transact`` judged against a fresh read of its own)."""
        if self.stale:
            self.record = self.store.get_game(self.record.id)
            self.stale = False
        return self.record

    def send(self, outcome: str, lines: list[str], show_state: bool = True) -> str:
        """Answer with ``lines``; with ``show_state``, as a designed mail (workers/mailview.py)
        of the game as it is now: the board as an inline picture, the seat's moves grouped by
        kind as a turn mail shows them (every move for ``legal``), the deadline."""
        record = self.current()
        subject = self._subject(record)
        common: dict[str, Any] = {
            "to": self.registered,
            "to_name": self.name,
            "subject": subject,
            "message_id": f"<{self.inbound.ledger}@{mail.mail_domain()}>",
            "reply_to": seatmail.issue_address(self.store, record, self.seat),
            "extra_headers": self._threading(record),
        }
        if show_state:
            turn = self._turn(record, lines)
            message = mail.Mail(
                **common,
                text=mailview.render_text(turn),
                html=mailview.render_html(turn, subject),
                images=tuple(mail.InlineImage(p.cid, p.png) for p in turn.pictures),
            )
        else:  # a warning about someone else's mail: what happened, nothing of the game
            text = [_("Hello %(name)s,", name=self.name), "", *lines]
            message = mail.Mail(**common, text="\n".join(text))
        seatmail.send_once(self.store, self.inbound.ledger, message)
        return outcome

    def _turn(self, record: GameRecord, lines: list[str]) -> mailview.TurnMail:
        asked = record.status == "active" and any(d["seat"] == self.seat for d in record.pending)
        every = seatmail.legal_moves(record, self.seat) if self.every_move else []
        return mailview.turn_mail(
            self.store,
            record,
            self.seat,
            self.name,
            told=(),
            asked=asked,
            links=seatmail.game_links(record),
            zone=self.zone,
            answer=lines,
            every_move=every,
        )

    def _subject(self, record: GameRecord) -> str:
        theirs = " ".join(str(self.inbound.message.get("Subject", "") or "").split())[:150]
        if theirs:
            return theirs if theirs.lower().startswith("re:") else f"Re: {theirs}"
        return _("%(title)s game %(id)s: your mail", title=record.game.title, id=record.id)

    def _threading(self, record: GameRecord) -> dict[str, str]:
        headers = {"X-Kurier-Version": str(record.version)}
        theirs = self.inbound.message_id
        thread = mail.thread_id(record.id)
        if _MSGID.match(theirs):
            headers |= {"In-Reply-To": theirs, "References": f"{thread} {theirs}"}
        else:
            headers |= {"In-Reply-To": thread, "References": thread}
        return headers

"""What a request may carry, decided once for every way in.

The API's schemas (service/http/schemas) build their fields from these rules, and the service
functions that store a value (``prefs.apply``, ``players.create``, ``messages.post``,
``lifecycle.create_game``…) check it again with the same rules: a web form, a mailed line and an
API body are refused alike, and the two paths can never disagree. A rule raises ``Refused``
(what is wrong, in English, as a schema's field error says it); ``problem`` makes it the 422
problem+json that a service function raises, naming the field.

Types are strict: a JSON ``"1"`` is not the integer 1, ``1`` is not ``true``, and ``1.5`` is no
seat. Dates are bounded to what every page and mail can show (years ``FIRST_YEAR`` to
``LAST_YEAR`` in UTC: Python's dates end at 9999, and a far date plus a time zone did not).
"""

from __future__ import annotations

import functools
import math
import re
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from service.common.problems import Problem
from service.store import game_jobs

#: What no name-like text may hold: C0 and C1 controls (CR, LF, tab, NUL, NEL…), DEL, the
#: Unicode line and paragraph separators, and the bidirectional embeddings, overrides and
#: isolates (U+202A-U+202E, U+2066-U+2069), which make a name or a line display other than it
#: reads. A character class body, for Python and the document's ECMA patterns alike.
CONTROLS = r"\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
#: The same for a message, which may hold line breaks (LF; a form's CR LF is made LF first).
MESSAGE_CONTROLS = r"\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
CONTROLS_ERROR = (
    "control characters (CR, LF, tab, NUL, line separators, direction overrides…) "
    "are not allowed here"
)
MESSAGE_CONTROLS_ERROR = "control characters other than line breaks are not allowed here"
BLANK_ERROR = "not only white space"

FIRST_YEAR, LAST_YEAR = 2000, 2999
DATE_ERROR = f"a date and time from {FIRST_YEAR}-01-01 to {LAST_YEAR}-12-31 (UTC), with its offset"


class Refused(ValueError):
    """A value a rule refuses; ``str()`` says why. ``character``: the one refused (U+202E),
    when it is a character that may not show where it is."""

    def __init__(self, reason: str, character: str | None = None) -> None:
        super().__init__(f"{reason} ({character})" if character else reason)
        self.character = character


def problem(field: str, error: Refused) -> Problem:
    """The 422 a service function raises for ``error`` in ``field``."""
    code = "invalid-" + field.replace("_", "-")
    extra: dict[str, Any] = {"character": error.character} if error.character else {}
    return Problem(422, code, f"{field}: {error}", field=field, **extra)


def checked(field: str, rule: Any, value: Any) -> Any:
    """``rule(value)``, a ``Refused`` raised as the field's 422."""
    try:
        return rule(value)
    except Refused as error:
        raise problem(field, error) from None


@dataclass(frozen=True)
class Text:
    """Text of 1 to ``max_length`` characters, not only white space, none of ``banned``."""

    max_length: int
    banned: str = CONTROLS
    error: str = CONTROLS_ERROR

    @property
    def pattern(self) -> str:
        """The whole rule but the length, as the document's ECMA pattern: at least one
        character that is neither white space nor banned. (Not used to check: a regex engine
        backtracks over this one on long text; ``content`` does the same in one pass.)"""
        allowed, visible = f"[^{self.banned}]", rf"[^\s{self.banned}]"
        return f"^{allowed}*{visible}{allowed}*$"

    def check(self, value: Any) -> str:
        """The whole rule: a string, its length, its characters."""
        if not isinstance(value, str):
            raise Refused("Not a valid string.")
        if not 1 <= len(value) <= self.max_length:
            raise Refused(f"Length must be between 1 and {self.max_length}.")
        return self.content(value)

    def content(self, value: str) -> str:
        """Its characters only (a schema checks the length with its own validator, which the
        document shows as minLength and maxLength)."""
        found = _banned(self.banned).search(value)
        if found:
            raise Refused(self.error, f"U+{ord(found.group()):04X}")
        if not value.strip():
            raise Refused(BLANK_ERROR)
        return value


@functools.cache
def _banned(characters: str) -> re.Pattern[str]:
    return re.compile(f"[{characters}]")


NAME = Text(40)  # a player's name
TOKEN_NAME = Text(60)
GAME_TYPE = Text(40)
SEED = Text(128)
CODE = Text(64)  # an invite code, a seat's code
MESSAGE = Text(2000, MESSAGE_CONTROLS, MESSAGE_CONTROLS_ERROR)
NOTE = Text(4000, MESSAGE_CONTROLS, MESSAGE_CONTROLS_ERROR)  # a private note on a game
REASON = Text(500, MESSAGE_CONTROLS, MESSAGE_CONTROLS_ERROR)  # why a report, a moderator's action
#: A move as text: its characters are the engine's to judge (it names what is wrong).
NOTATION_LENGTH = 200

#: An address: a dot-atom local part, a domain of letter-digit-hyphen labels (any script) and
#: a top-level domain of letters (or punycode). No quoted local parts, IP literals or bare
#: hosts: what a mail header and an SMTP envelope carry without quoting.
EMAIL_LENGTH = 254
_ATOM = r"[\w!#$%&'*+/=?^`{|}~-]+"
_LABEL = r"[^\W_](?:[\w-]{0,61}[^\W_])?"
EMAIL = re.compile(
    rf"{_ATOM}(?:\.{_ATOM})*@(?:{_LABEL}\.)+(?:[^\W\d_]{{2,63}}|xn--[a-z0-9-]{{1,59}})",
    re.IGNORECASE,
)


def email(value: Any) -> str:
    if not isinstance(value, str):
        raise Refused("Not a valid string.")
    if len(value) > EMAIL_LENGTH or not EMAIL.fullmatch(value) or not value.isprintable():
        raise Refused("Not a valid email address.")
    return value


#: An IANA zone name's shape (Europe/Berlin, UTC, Etc/GMT+5), for the document; ``timezone``
#: also wants the name in the tz database.
TIMEZONE_PATTERN = r"^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$"
TIMEZONE_ERROR = "an IANA zone name such as Europe/Berlin"


@functools.cache
def zones() -> frozenset[str]:
    """The zone names a player may choose: the tz database's (read once; it is on disk).
    ``localtime`` is the server's own zone, not a place."""
    return frozenset(zoneinfo.available_timezones() - {"localtime"})


def timezone(value: Any) -> str:
    if not isinstance(value, str) or value not in zones():
        raise Refused(TIMEZONE_ERROR)
    return value


def moment(value: Any) -> datetime:
    """An aware date and time whose UTC date is in ``FIRST_YEAR``-``LAST_YEAR``."""
    if not isinstance(value, datetime) or value.utcoffset() is None:
        raise Refused(DATE_ERROR)
    try:
        utc = value.astimezone(UTC)
    except (OverflowError, ValueError):  # 9999-12-31T23:59-23:59 is past datetime.max in UTC
        raise Refused(DATE_ERROR) from None
    if not FIRST_YEAR <= utc.year <= LAST_YEAR:
        raise Refused(DATE_ERROR)
    return utc


def whole(value: Any) -> int:
    """A JSON integer: not a bool, a float (1.5 was seat 1) or a string."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused("Not a valid integer.")
    return value


def integer(value: Any, low: int, high: int) -> int:
    """A JSON integer in [low, high]."""
    number = whole(value)
    if not low <= number <= high:
        raise Refused(f"Must be greater than or equal to {low} and less than or equal to {high}.")
    return number


def number(value: Any, low: float, high: float) -> float:
    """A JSON number (an integer or a finite float, not a bool or a string) in [low, high],
    as given."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise Refused("Not a valid number.")
    if not low <= value <= high:
        raise Refused(f"Must be greater than or equal to {low} and less than or equal to {high}.")
    return value


def boolean(value: Any) -> bool:
    """JSON true or false; nothing else stands for them."""
    if not isinstance(value, bool):
        raise Refused("Not a valid boolean.")
    return value


def one_of(value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise Refused(f"Must be one of: {', '.join(choices)}.")
    return value


# -- a game's service settings -------------------------------------------------------------------

#: Each bound of a deadline (hours, days): the schema's ranges and ``deadline``'s.
DEADLINE_HOURS: tuple[float, float] = (0.0005, 24 * 60)
REMIND_BEFORE_HOURS: tuple[float, float] = (0, 24 * 60)
VACATION_MAX_DAYS: tuple[float, float] = (0, 90)
#: What a missed decision brings: the game's default move, only a logged timeout (a fixed
#: clock's), the game's pass where it has one (else the default move), the seat's
#: resignation, or a bot of ``bot_level`` holding the seat until its player moves again.
DEADLINE_POLICIES = ("default_move", "remind_only", "skip", "resign", "bot")
CLOCK_KINDS = ("fixed", "bank")
#: Each of a time bank's numbers of days (initial, per move, cap).
BANK_DAYS: tuple[float, float] = (0, 365)
BANK_MEMBERS = {"kind", "initial_days", "per_move_days", "max_days", "weekend_pause"}
DEADLINE_MEMBERS = {
    "hours",
    "clock",
    "remind_before_hours",
    "policy",
    "bot_level",
    "vacation_max_days",
}
ACCESS = ("invite", "open")
ABANDON_AFTER = (0, 20)
SEATS = (1, 16)
SEAT_NUMBERS = (0, SEATS[1] - 1)
#: A computer opponent's level (engine/bots.py ``LEVELS``), and how long a bot seat waits
#: before it moves (0: at once; up to a week, a correspondence pace).
BOT_LEVELS = ("easy", "medium", "hard")
BOT_DELAY_SECONDS = (0, 7 * 86_400)
#: How bots pace their moves (service/store/game_jobs.py ``bot_wait``).
BOT_PACES: tuple[str, ...] = game_jobs.BOT_PACES
#: A game with bots and no pace given: like a person at the table (a few seconds).
DEFAULT_BOT_PACE = "seconds"


def deadline(value: Mapping[str, Any]) -> dict[str, Any]:
    """A game's deadline: a fixed time per decision (``hours``) or a time bank (``clock``),
    with their defaults, each member checked."""
    if not isinstance(value, Mapping):
        raise Refused("Not a valid mapping type.")
    unknown = sorted(set(value) - DEADLINE_MEMBERS)
    if unknown:
        raise Refused(f"{unknown[0]}: Unknown field.")
    clock = _member("clock", time_bank, value.get("clock", {"kind": "fixed"}))
    out: dict[str, Any] = {}
    if clock["kind"] == "fixed":
        if "hours" not in value:
            raise Refused("hours: Missing data for required field.")
        out["hours"] = _member("hours", lambda v: number(v, *DEADLINE_HOURS), value["hours"])
    elif "hours" in value:
        raise Refused("hours: a time bank has no fixed hours.")
    else:
        out["clock"] = clock
    out["remind_before_hours"] = _member(
        "remind_before_hours",
        lambda v: number(v, *REMIND_BEFORE_HOURS),
        value.get("remind_before_hours", 0),
    )
    policy = _member(
        "policy", lambda v: one_of(v, DEADLINE_POLICIES), value.get("policy", "default_move")
    )
    if policy == "remind_only" and clock["kind"] == "bank":
        raise Refused("policy: remind_only needs a fixed clock (a bank at zero stays at zero).")
    out["policy"] = policy
    if policy == "bot":
        out["bot_level"] = _member(
            "bot_level", lambda v: one_of(v, BOT_LEVELS), value.get("bot_level", "medium")
        )
    elif "bot_level" in value:
        raise Refused("bot_level: only with the policy bot.")
    out["vacation_max_days"] = _member(
        "vacation_max_days",
        lambda v: number(v, *VACATION_MAX_DAYS),
        value.get("vacation_max_days", 14),
    )
    return out


def time_bank(value: Any) -> dict[str, Any]:
    """A deadline's ``clock``: ``{"kind": "fixed"}`` or ``{"kind": "bank", "initial_days",
    "per_move_days", "max_days", "weekend_pause"}`` (service/domain/clocks.py)."""
    if not isinstance(value, Mapping):
        raise Refused("Not a valid mapping type.")
    kind = _member("kind", lambda v: one_of(v, CLOCK_KINDS), value.get("kind"))
    allowed = {"kind"} if kind == "fixed" else BANK_MEMBERS
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise Refused(f"{unknown[0]}: Unknown field.")
    if kind == "fixed":
        return {"kind": "fixed"}
    for name in ("initial_days", "per_move_days", "max_days"):
        if name not in value:
            raise Refused(f"{name}: Missing data for required field.")
    initial = _member("initial_days", lambda v: number(v, *BANK_DAYS), value["initial_days"])
    if initial <= 0:
        raise Refused("initial_days: Must be greater than 0.")
    per_move = _member("per_move_days", lambda v: number(v, *BANK_DAYS), value["per_move_days"])
    cap = _member("max_days", lambda v: number(v, *BANK_DAYS), value["max_days"])
    if cap < initial:
        raise Refused("max_days: Must be at least initial_days.")
    pause = _member("weekend_pause", boolean, value.get("weekend_pause", False))
    return {
        "kind": "bank",
        "initial_days": initial,
        "per_move_days": per_move,
        "max_days": cap,
        "weekend_pause": pause,
    }


#: A reliability filter's fields (service/domain/reliability.py) and their highest values.
RELIABILITY_FILTER = {"min_on_time_percent": 100, "max_abandoned": 1000}


def reliability_filter(value: Any) -> dict[str, int]:
    """``{"min_on_time_percent": 0-100, "max_abandoned": 0-1000}``, either or both (empty:
    no condition)."""
    if not isinstance(value, Mapping):
        raise Refused("Not a valid mapping type.")
    unknown = sorted(set(value) - set(RELIABILITY_FILTER))
    if unknown:
        raise Refused(f"{unknown[0]}: Unknown field.")
    out: dict[str, int] = {}
    for name, high in RELIABILITY_FILTER.items():
        if name in value:
            out[name] = _member(name, lambda v, high=high: integer(v, 0, high), value[name])
    return out


def _member(name: str, rule: Any, value: Any) -> Any:
    """``rule(value)``, a refusal prefixed with the member's name (``clock.max_days: ...``)."""
    try:
        return rule(value)
    except Refused as error:
        raise Refused(f"{name}: {error}", error.character) from None


def game_settings(value: Mapping[str, Any]) -> dict[str, Any]:
    """A game's service settings: who may join (access, reliability), ratings, listing,
    talk, abandoning."""
    rules = {
        "access": lambda v: one_of(v, ACCESS),
        "rated": boolean,
        "public": boolean,
        "spectators_see_messages": boolean,
        "abandon_after": lambda v: integer(v, *ABANDON_AFTER),
        "bot_delay_seconds": lambda v: number(v, *BOT_DELAY_SECONDS),
        "bot_pace": lambda v: one_of(v, BOT_PACES),
        "reliability": reliability_filter,
    }
    out = {}
    for name, given in value.items():
        if name not in rules:
            raise problem(name, Refused("Unknown field."))
        out[name] = checked(name, rules[name], given)
    return out


def bot_pace(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A game with bots' settings with its pace: ``bot_pace`` as given, ``instant`` when only
    ``bot_delay_seconds`` is (a fixed wait), else the default; a wait of its own with a pace
    that spreads its waits is refused."""
    pace = settings.get("bot_pace")
    if pace is None:
        pace = "instant" if "bot_delay_seconds" in settings else DEFAULT_BOT_PACE
    elif pace != "instant" and settings.get("bot_delay_seconds"):
        raise problem("bot_delay_seconds", Refused("Only with the pace 'instant' (a fixed wait)."))
    return {**settings, "bot_pace": pace}


def bot_seats(value: Any, seats: int) -> dict[int, str]:
    """A new game's computer opponents: ``[{"seat", "level"}]`` -> seat -> level. Each seat
    once, inside the game; the creator takes the lowest seat no bot holds (none if bots hold
    them all), and the seats the bots and the creator hold must come first (players who join
    take the seats after them: seat numbers never change once given)."""
    if not isinstance(value, list):
        raise Refused("Not a valid list.")
    if len(value) > SEATS[1]:
        raise Refused(f"Longer than maximum length {SEATS[1]}.")
    out: dict[int, str] = {}
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise Refused(f"{index}: Not a valid mapping type.")
        unknown = sorted(set(item) - {"seat", "level"})
        if unknown:
            raise Refused(f"{index}.{unknown[0]}: Unknown field.")
        try:
            seat = integer(item.get("seat"), 0, seats - 1)
            level = one_of(item.get("level"), BOT_LEVELS)
        except Refused as error:
            raise Refused(f"{index}: {error}") from None
        if seat in out:
            raise Refused(f"{index}: seat {seat} is given twice.")
        out[seat] = level
    mine = creator_seat(out, seats)
    taken = set(out) | ({mine} if mine is not None else set())
    if taken != set(range(len(taken))):
        raise Refused(
            "the bots' seats and the creator's must come first: players who join take the "
            "seats after them."
        )
    return out


def creator_seat(bots: Mapping[int, str], seats: int) -> int | None:
    """The seat of a new game's creator: the lowest one no bot holds (None: bots hold every
    seat, and the creator watches their game)."""
    return next((seat for seat in range(seats) if seat not in bots), None)

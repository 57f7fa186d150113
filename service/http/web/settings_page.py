"""The settings page's view model: the form's values (as stored, or as typed into a form that
was refused), the time-zone picker's groups, and what a refusal says to the player.

The routes (pages.settings, pages.save_settings) read the form and call ``prefs.apply``, which
checks every value by the API's rules (service/domain/inputs.py): nothing is decided here.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

from flask_babel import gettext, pgettext

from engine.sentences import N_
from service.common.problems import Problem
from service.domain import inputs, prefs


def _regions() -> dict[str, str]:
    """The tz database's regions, in the picker's order, as the page names them (in their own
    context: "Africa" is also a province of Attila's map)."""
    return {
        "Africa": pgettext("time zones", "Africa"),
        "America": pgettext("time zones", "America"),
        "Antarctica": pgettext("time zones", "Antarctica"),
        "Arctic": pgettext("time zones", "Arctic"),
        "Asia": pgettext("time zones", "Asia"),
        "Atlantic": pgettext("time zones", "Atlantic"),
        "Australia": pgettext("time zones", "Australia"),
        "Europe": pgettext("time zones", "Europe"),
        "Indian": pgettext("time zones", "Indian Ocean"),
        "Pacific": pgettext("time zones", "Pacific"),
    }


#: What a refused settings form says, by the field the refusal names (else its detail).
SETTINGS_WORDS = {
    "name": N_("A name is 1-40 characters, not only spaces, without control characters."),
    "email": N_("That does not look like an email address."),
    "timezone": N_("Choose a time zone from the list."),
    "language": N_("Choose a language from the list."),
    "confirm_moves": N_("Choose when moves wait for Confirm from the list."),
    "vacation_until": N_("The vacation date is a day from 2000-01-01 to 2999-12-31."),
    "digest": N_("Choose a digest from the list."),
    "digest_hour": N_("The digest hour is a whole hour 0-23."),
    "quiet_hours": N_(
        "Quiet hours need both a start and an end, two different times of day (or neither)."
    ),
}
TOKEN_WORDS = {
    "name": N_("A token's name is 1-60 characters, not only spaces, without control characters."),
}
#: The form's fields, as typed values are kept (a refused form is shown as it was sent).
FIELDS = (
    "name",
    "email",
    "timezone",
    "language",
    "confirm_moves",
    "vacation_until",
    "digest",
    "digest_hour",
    "quiet_start",
    "quiet_end",
    "mail_at_table",
    "webhook_url",
)


def refusal(error: Problem, words: Mapping[str, str]) -> str:
    """What the page says about ``error``: the sentence for the field it names, in the page's
    language, else its detail; and the character refused if it was one (a direction override
    or a line separator does not show in the box)."""
    field = error.extra.get("field")
    if not (isinstance(field, str) and field in words):
        return str(error.description)
    character = error.extra.get("character")
    return gettext(words[field]) + (f" ({character})" if character else "")


def leave_values(status: Mapping[str, Any], zone: str) -> dict[str, Any]:
    """The leave part of the page: the budget (service/domain/leave.py ``status``) and the
    running leave's end as a local day and time ("" if none)."""
    current = status["current"]
    until = ""
    if current is not None:
        local = datetime.fromtimestamp(current["until"], prefs.zone({"timezone": zone}))
        until = local.strftime("%Y-%m-%d %H:%M")
    return {**status, "until": until}


def values(
    player: Mapping[str, Any], chosen: Mapping[str, Any], typed: Mapping[str, str] | None
) -> dict[str, Any]:
    """The form's values: the stored preferences, or what was typed into a refused form
    (``typed``, the posted fields), so that the player corrects rather than types again."""
    if typed is not None:
        shown: dict[str, Any] = {name: typed.get(name, "") for name in FIELDS}
        shown["notify"] = {k.removeprefix("notify:") for k in typed if k.startswith("notify:")}
        return shown
    quiet = chosen["quiet_hours"] or {}
    return {
        "name": player["name"],
        "email": chosen["email"] or "",
        "timezone": chosen["timezone"],
        "language": chosen["language"],
        "confirm_moves": chosen["confirm_moves"],
        "vacation_until": _day(chosen["vacation_until"]),
        "digest": chosen["digest"],
        "digest_hour": str(chosen["digest_hour"]),
        "quiet_start": quiet.get("start", ""),
        "quiet_end": quiet.get("end", ""),
        "mail_at_table": "on" if chosen["mail_at_table"] else "off",
        "webhook_url": chosen["webhook_url"] or "",
        "notify": {f"{kind}:{c}" for kind, channels in chosen["notify"].items() for c in channels},
    }


def _day(until: float | None) -> str:
    """The vacation's last day for the date input; "" if none, or if it is a date no page can
    show (stored before dates were bounded: the page answered 500 for good)."""
    if not until:
        return ""
    try:
        return datetime.fromtimestamp(until, UTC).date().isoformat()
    except (ValueError, OverflowError, OSError):
        return ""


def zone_groups(current: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """The time-zone picker: UTC, then each region's zones by name with their UTC offset now
    (``Berlin (UTC+01:00)``), then, if the player's zone is none of these (an alias such as
    ``US/Pacific`` or ``Etc/GMT+5``, set through the API), that zone alone: the page never
    changes a zone the player did not touch."""
    now = datetime.now(UTC)
    regions = _regions()
    by_region: dict[str, list[tuple[str, str]]] = {region: [] for region in regions}
    for name in sorted(inputs.zones()):
        region, _, place = name.partition("/")
        if region in by_region and place:
            label = place.replace("_", " ").replace("/", " / ")
            by_region[region].append((name, f"{label} ({_offset(name, now)})"))
    groups = [("", [("UTC", "UTC")])]
    groups += [(regions[r], zones) for r, zones in by_region.items() if zones]
    offered = {name for _, zones in groups for name, _ in zones}
    if current and current not in offered:
        groups.append((pgettext("time zones", "Other"), [(current, current)]))
    return groups


@cache
def _zone(name: str) -> ZoneInfo:
    """The zone's rules, read from the tz database once per process: ``ZoneInfo``'s own cache
    keeps only the zones still referenced and the last 8, so the picker's ~500 zones were read
    from disk again on every settings page."""
    return ZoneInfo(name)


def _offset(name: str, now: datetime) -> str:
    delta = now.astimezone(_zone(name)).utcoffset()
    minutes = int(delta.total_seconds() // 60) if delta is not None else 0
    sign = "-" if minutes < 0 else "+"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"

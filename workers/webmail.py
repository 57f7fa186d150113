"""Mail for the web pages: the sign-in links (service/domain/websessions.py), in the reader's
language (docs/i18n.md)."""

from __future__ import annotations

import time

from service.common import i18n
from service.common.i18n import say as _
from workers import mail


def send_signin_links(address: str, links: list[dict[str, str]], lang: str = i18n.DEFAULT) -> str:
    """One mail to ``address`` with a sign-in link per player who gave it, in ``lang`` (a job
    queued before languages has none: English)."""
    with i18n.speaking(lang):
        message = mail.compose(
            mail.Mail(
                to=address,
                to_name="",
                subject=_("Your Kurier sign-in link"),
                text="\n".join(_signin_lines(links)),
            ),
            time.time(),
        )
    return mail.deliver(message, [address])


def _signin_lines(links: list[dict[str, str]]) -> list[str]:
    lines = [
        _("Hello,"),
        "",
        _("Someone (you, we hope) asked to sign in to Kurier with this address."),
    ]
    if len(links) == 1:
        lines += ["", _("Sign in as %(name)s:", name=links[0]["name"]), links[0]["url"]]
    else:
        lines += ["", _("This address belongs to several players; choose one:")]
        for link in links:
            lines += ["", f"{link['name']}:", link["url"]]
    lines += [
        "",
        _("Each link works once, within 15 minutes. If you did not ask for it, ignore this mail."),
    ]
    return lines

"""Mail for the web pages: the sign-in links (service/websessions.py)."""

from __future__ import annotations

import time

from workers import mail


def send_signin_links(address: str, links: list[dict[str, str]]) -> str:
    """One mail to ``address`` with a sign-in link per player who gave it."""
    lines = ["Hello,", "", "Someone (you, we hope) asked to sign in to Kurier with this address."]
    if len(links) == 1:
        lines += ["", f"Sign in as {links[0]['name']}:", links[0]["url"]]
    else:
        lines += ["", "This address belongs to several players; choose one:"]
        for link in links:
            lines += ["", f"{link['name']}:", link["url"]]
    lines += [
        "",
        "Each link works once, within 15 minutes. If you did not ask for it, ignore this mail.",
    ]
    message = mail.compose(
        mail.Mail(
            to=address, to_name="", subject="Your Kurier sign-in link", text="\n".join(lines)
        ),
        time.time(),
    )
    return mail.deliver(message)
